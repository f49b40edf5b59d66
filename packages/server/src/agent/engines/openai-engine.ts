// The openai-compatible engine: Chat Completions over HTTP (OpenAI, Ollama, vLLM, llama.cpp server). The system
// prompt is built from the channel's role, behavior, task, language, the best knowledge-base entries and the best
// passages of the base's documents (each with its source); the chat's recent messages follow. Two tools are offered:
// `complete_task(summary)` fires the task trigger, and the model is asked once more for the reply to send;
// `hand_off(reason)` hands the chat to the team (the channel's handoff message is sent, no second request). Images go as image parts (data URLs); audio
// through `/audio/transcriptions` when the channel names a transcription model, else the model is told a voice
// message came. 429, 5xx, timeouts and network errors are retried with backoff (model-server.ts); then the engine gives up.
import { FormData } from 'undici';
import type { StoredAttachment } from '../../db/schema.ts';
import type { FileStorage } from '../../files/file-storage.ts';
import type { RetrievedPassage, Retriever } from '../../knowledge/retrieval.ts';
import type { UrlGuard } from '../../kernel/url-guard.ts';
import { redactSecrets } from '../../lib/redact.ts';
import { voiceMessageNote } from '../agent-texts.ts';
import { AgentEngineError, type AgentAnswer, type AgentEngine, type AgentMessage, type AgentTurn, type TurnActions } from '../engine.ts';
import type { GivenPassage } from '@parley/contracts';
import type { ActionDefinition } from '../../actions/action-definition.ts';
import { BACKOFF_MS, createModelServerClient } from './model-server.ts';
import { ACTION_RUNS_PER_MESSAGE, actionTool, callActionTool, offeredActions, resumeConfirmation, type FunctionTool } from './openai-actions.ts';

export const DEFAULT_TIMEOUT_SECONDS = 30;
const HISTORY_MESSAGES = 20;
const KNOWLEDGE_ENTRIES = 5;
/** Passages of the base's documents given with the entries (each at most PASSAGE_MAX_CHARS: about 5,000 characters). */
const KNOWLEDGE_PASSAGES = 4;

export const COMPLETE_TASK_TOOL = {
  type: 'function',
  function: {
    name: 'complete_task',
    description: 'Call this once the task described in the instructions is complete for this customer.',
    parameters: {
      type: 'object',
      properties: { summary: { type: 'string', description: 'A short summary of the conversation and its outcome.' } },
      required: ['summary'],
    },
  },
} as const;

export const HAND_OFF_TOOL = {
  type: 'function',
  function: {
    name: 'hand_off',
    description:
      'Hand the conversation to a person of the team. Call it when the customer asks for a person, when the information ' +
      'you were given does not cover the question, or when the customer is upset; the customer is told a person will reply.',
    parameters: {
      type: 'object',
      properties: { reason: { type: 'string', description: 'Why a person should take over, in one sentence (shown to the team).' } },
      required: ['reason'],
    },
  },
} as const;

const TOOLS: readonly object[] = [COMPLETE_TASK_TOOL, HAND_OFF_TOOL];

/** Requests to the model for one customer message when it calls actions; the last one may call no tool. */
const MAX_ACTION_ROUNDS = 5;

type ContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };
interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}
type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ContentPart[] }
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

interface CompletionMessage {
  content: string | null;
  tool_calls: ToolCall[];
}

/** The first choice's message of a Chat Completions answer, checked: a malformed answer is the engine's failure. */
export function completionMessage(answer: unknown, path: string): CompletionMessage {
  const choices = (answer as { choices?: unknown } | null)?.choices;
  const message = Array.isArray(choices) ? (choices[0] as { message?: unknown } | undefined)?.message : undefined;
  if (typeof message !== 'object' || message === null) throw new AgentEngineError(`${path}: no choices[0].message in the answer`);
  const { content, tool_calls: calls } = message as { content?: unknown; tool_calls?: unknown };
  const toolCalls = (Array.isArray(calls) ? calls : []).filter(
    (call): call is ToolCall =>
      typeof call === 'object' &&
      call !== null &&
      typeof (call as ToolCall).id === 'string' &&
      typeof (call as ToolCall).function?.name === 'string' &&
      typeof (call as ToolCall).function.arguments === 'string',
  );
  return { content: typeof content === 'string' ? content : null, tool_calls: toolCalls };
}

export interface OpenAiEngineDeps {
  guard: UrlGuard;
  retriever: Pick<Retriever, 'retrieveWithPassages'>;
  baseLanguage: (accountId: string, knowledgeBaseId: string) => Promise<string | undefined>;
  files: Pick<FileStorage, 'open'>;
  /** Pauses between attempts (tests shorten them). */
  backoffMs?: readonly number[];
}

const FILE_KEY = /\/files\/([A-Za-z0-9_-]{32})\//;

/** Where a passage comes from, as the model and the console see it: `returns.pdf › Returns › Refunds`. */
export function passageSource(passage: Pick<RetrievedPassage, 'document' | 'headingPath'>): string {
  return [passage.document, ...passage.headingPath].join(' › ');
}

export function buildSystemPrompt(
  turn: AgentTurn,
  knowledge: { question: string; answer: string }[],
  passages: Pick<RetrievedPassage, 'document' | 'headingPath' | 'text'>[] = [],
  actions: readonly Pick<ActionDefinition, 'name'>[] = [],
): string {
  const { settings } = turn.channel;
  const lines: string[] = [];
  lines.push(settings.role.trim() ? `You are ${settings.role.trim()}.` : 'You are a customer support agent.');
  if (settings.behavior.trim()) lines.push(`How to behave: ${settings.behavior.trim()}`);
  if (settings.task.trim()) {
    lines.push(`Your task: ${settings.task.trim()}`);
    lines.push('When the task is complete, call the complete_task tool with a short summary, then reply to the customer.');
  } else {
    lines.push('Call the complete_task tool when the customer has what they came for.');
  }
  lines.push(
    'Call the hand_off tool, instead of answering, when the customer asks to talk to a person, when the knowledge given ' +
      'here does not cover the question (never guess facts about the business), or when the customer is upset or angry.',
  );
  lines.push(`Always answer in this language: ${settings.aiLang}.`);
  if (knowledge.length > 0) {
    lines.push('Knowledge base entries that may answer the customer (prefer them over your own knowledge):');
    for (const entry of knowledge) lines.push(`Q: ${entry.question}\nA: ${entry.answer}`);
  }
  if (actions.length > 0) {
    lines.push(
      `You can call these actions of the business to look up or change the customer's records: ${actions.map((action) => action.name).join(', ')}. ` +
        'Call one when it answers the question; ask the customer for a value you do not have rather than guessing it. ' +
        'An action that changes something runs only after the customer confirms it (they are asked for you).',
    );
  }
  if (passages.length > 0) {
    lines.push("Passages from the team's documents, each with its source (document › headings):");
    passages.forEach((passage, i) => lines.push(`[${i + 1}] ${passageSource(passage)}\n${passage.text}`));
    lines.push(
      'Answer questions about the business only from these passages and the entries above, never from your own knowledge. ' +
        'When they do not cover the question, do not guess: call the hand_off tool.',
    );
  }
  return lines.join('\n');
}

export function createOpenAiEngine({ guard, retriever, baseLanguage, files, backoffMs = BACKOFF_MS }: OpenAiEngineDeps): AgentEngine & { close(): Promise<void>; destroy(): Promise<void> } {
  const server = createModelServerClient({ guard, backoffMs });
  const { endpoint, send } = server;

  async function readFile(attachment: StoredAttachment): Promise<Buffer | undefined> {
    const key = FILE_KEY.exec(attachment.url)?.[1];
    const file = key ? await files.open(key) : undefined;
    if (!file) return undefined;
    const chunks: Buffer[] = [];
    for await (const chunk of file.stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async function answerTurn(turn: AgentTurn): Promise<AgentAnswer> {
    const { channel } = turn;
    if (channel.engine.kind !== 'openai-compatible') throw new AgentEngineError('not an openai-compatible channel');
    const engine = channel.engine;
    const timeoutMs = (engine.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000;
    const auth: Record<string, string> = channel.apiKey ? { authorization: `Bearer ${channel.apiKey}` } : {};

    async function transcribe(attachment: StoredAttachment): Promise<string | undefined> {
      if (!engine.transcriptionModel) return undefined;
      const bytes = await readFile(attachment);
      if (!bytes) return undefined;
      const form = new FormData();
      form.set('model', engine.transcriptionModel);
      form.set('file', new Blob([bytes], { type: attachment.contentType }), attachment.name);
      const answer = (await send(endpoint(engine.baseUrl, '/audio/transcriptions'), form, auth, timeoutMs)) as { text?: unknown } | null;
      return typeof answer?.text === 'string' ? answer.text : undefined;
    }

    /** A chat message as the model sees it; only the messages being answered carry images and transcriptions. */
    async function toModel(message: AgentMessage, current: boolean): Promise<ChatMessage> {
      if (message.role === 'assistant') return { role: 'assistant', content: message.text };
      const parts: ContentPart[] = [];
      const notes: string[] = [];
      for (const attachment of message.attachments) {
        if (attachment.kind === 'audio') {
          const transcript = current ? await transcribe(attachment) : undefined;
          notes.push(transcript ? `[Voice message: ${transcript}]` : voiceMessageNote(channel.settings.aiLang));
        } else if (attachment.kind === 'image' && current) {
          const bytes = await readFile(attachment);
          if (bytes) parts.push({ type: 'image_url', image_url: { url: `data:${attachment.contentType};base64,${bytes.toString('base64')}` } });
        }
      }
      const text = [message.text, ...notes].filter((part) => part.trim().length > 0).join('\n');
      if (parts.length === 0) return { role: 'user', content: text };
      return { role: 'user', content: [{ type: 'text', text }, ...parts] };
    }

    const question = turn.pending.map((message) => message.text).join('\n');
    const language = channel.knowledgeBaseId ? await baseLanguage(turn.accountId, channel.knowledgeBaseId) : undefined;
    const { entries: knowledge, passages } =
      channel.knowledgeBaseId && language !== undefined && question.trim()
        ? await retriever.retrieveWithPassages(channel.knowledgeBaseId, question, { entries: KNOWLEDGE_ENTRIES, passages: KNOWLEDGE_PASSAGES })
        : { entries: [], passages: [] };
    const given = passages.map(({ document, headingPath, text }) => ({ document, headingPath, text }));
    const offered = turn.actions ? offeredActions(turn.actions) : new Map<string, ActionDefinition>();
    const messages: ChatMessage[] = [{ role: 'system', content: buildSystemPrompt(turn, knowledge, given, [...offered.values()]) }];
    for (const message of turn.history.slice(-HISTORY_MESSAGES)) messages.push(await toModel(message, false));
    for (const message of turn.pending) messages.push(await toModel(message, true));
    // The customer's answer to the server's question about a `write` the model asked for: its call and result follow.
    const resumed = turn.actions ? await resumeConfirmation(turn.actions, turn.history, question, channel.settings.aiLang) : undefined;
    if (resumed) {
      messages.push({ role: 'assistant', content: null, tool_calls: [resumed.call] }, { role: 'tool', tool_call_id: resumed.call.id, content: resumed.result });
    }
    const acting: Acting | undefined =
      turn.actions && (offered.size > 0 || resumed)
        ? { actions: turn.actions, offered, aiLang: channel.settings.aiLang, runs: resumed ? 1 : 0, ok: resumed?.ok ?? false }
        : undefined;

    const url = endpoint(engine.baseUrl, '/chat/completions');
    const headers = { ...auth, 'content-type': 'application/json' };
    const complete = async (body: object) => completionMessage(await send(url, JSON.stringify(body), headers, timeoutMs), url.pathname);

    return answerWithTools((body) => complete({ model: engine.model, ...body }), url.pathname, messages, given, acting);
  }

  return {
    close: () => server.close(),
    /** Ends the requests in flight too (at shutdown, once their jobs were handed back). */
    destroy: () => server.destroy(),

    async answer(turn: AgentTurn): Promise<AgentAnswer> {
      try {
        return await answerTurn(turn);
      } catch (error) {
        // What the model server said goes to the failure list, the logs and the console: never its echo of the key.
        if (error instanceof AgentEngineError) throw new AgentEngineError(redactSecrets(error.message, [turn.channel.apiKey]));
        throw error;
      }
    },
  };
}

/** The actions of a turn as the model sees them, and what this customer message has run so far. */
interface Acting {
  actions: TurnActions;
  offered: Map<string, ActionDefinition>;
  aiLang: string;
  runs: number;
  /** A run gave an answer: the reply is one with an action's answer. */
  ok: boolean;
}

/**
 * The model's answer with its tools: `hand_off` hands the chat over (the channel's handoff message is the reply, no
 * second request; a `complete_task` in the same answer still fires); `complete_task` fires the trigger and the model
 * is asked once more for the reply, with no tool; otherwise its text is the reply. Action tools (openai-actions.ts)
 * are answered with their results and the model asked again, at most ACTION_RUNS_PER_MESSAGE runs and
 * MAX_ACTION_ROUNDS requests; a `write` ends the turn with the server's own question to the customer.
 */
async function answerWithTools(
  complete: (body: object) => Promise<CompletionMessage>,
  path: string,
  messages: ChatMessage[],
  given: GivenPassage[],
  acting?: Acting,
): Promise<AgentAnswer> {
  const tools: readonly object[] = acting ? [...TOOLS, ...[...acting.offered.values()].map((action): FunctionTool => actionTool(action))] : TOOLS;
  let conversation = messages;
  let taskComplete: AgentAnswer['taskComplete'] = null;
  for (let round = 1; ; round += 1) {
    const last = acting !== undefined && (round >= MAX_ACTION_ROUNDS || acting.runs >= ACTION_RUNS_PER_MESSAGE);
    const first = await complete(last ? { messages: conversation, tools, tool_choice: 'none' } : { messages: conversation, tools });
    const calls = last ? [] : first.tool_calls;
    const call = calls.find((tool) => tool.function.name === 'complete_task');
    const handOff = calls.find((tool) => tool.function.name === 'hand_off');
    const afterAction = acting?.ok ? { afterAction: true } : {};
    if (handOff) {
      const summary = call ? { summary: stringArgument(call.function.arguments, 'summary') } : taskComplete;
      return { text: null, taskComplete: summary, handoff: { reason: 'model', note: stringArgument(handOff.function.arguments, 'reason') }, passages: given };
    }
    const actionCalls = acting ? calls.filter((tool) => acting.offered.has(tool.function.name)) : [];
    if (actionCalls.length === 0) {
      if (!call) {
        const text = nonEmpty(first.content);
        // No reply and no tool call: nothing to send, so the chat is left for the team like any failure.
        if (text === null) throw new AgentEngineError(`${path}: the model answered with no text`);
        return { text, taskComplete, passages: given, ...afterAction };
      }
      const summary = stringArgument(call.function.arguments, 'summary');
      // The tool's result goes back, and the model writes the reply to the customer (no tool this time).
      const followUp = await complete({
        messages: [...conversation, { role: 'assistant', content: first.content, tool_calls: first.tool_calls }, ...toolResults(first.tool_calls, call.id)],
        tools,
        tool_choice: 'none',
      });
      return { text: nonEmpty(followUp.content) ?? nonEmpty(first.content), taskComplete: { summary }, passages: given, ...afterAction };
    }
    if (call) taskComplete = { summary: stringArgument(call.function.arguments, 'summary') };
    const results: ChatMessage[] = [];
    for (const tool of first.tool_calls) {
      const action = acting?.offered.get(tool.function.name);
      if (!acting || !action) {
        results.push({ role: 'tool', tool_call_id: tool.id, content: tool.id === call?.id ? 'The task is marked complete.' : 'Unknown tool.' });
        continue;
      }
      if (acting.runs >= ACTION_RUNS_PER_MESSAGE) {
        results.push({ role: 'tool', tool_call_id: tool.id, content: `Not called: at most ${ACTION_RUNS_PER_MESSAGE} action calls per customer message.` });
        continue;
      }
      const outcome = await callActionTool(acting.actions, acting.aiLang, action, tool.function.arguments);
      // A write: the server's own question is the reply; the customer's next message decides.
      if ('confirm' in outcome) return { ...outcome.confirm, taskComplete, passages: given };
      if (outcome.counted) acting.runs += 1;
      if (outcome.ok) acting.ok = true;
      results.push({ role: 'tool', tool_call_id: tool.id, content: outcome.result });
    }
    conversation = [...conversation, { role: 'assistant', content: first.content, tool_calls: first.tool_calls }, ...results];
  }
}

/** The results of a message's tool calls when only `complete_task` (id `completed`) did anything. */
function toolResults(calls: readonly ToolCall[], completed: string): ChatMessage[] {
  return calls.map((tool): ChatMessage => ({ role: 'tool', tool_call_id: tool.id, content: tool.id === completed ? 'The task is marked complete.' : 'Unknown tool.' }));
}

function nonEmpty(text: string | null | undefined): string | null {
  return text && text.trim().length > 0 ? text : null;
}

/** A tool call's string argument (`summary`, `reason`); null when missing, blank or not JSON. */
function stringArgument(args: string, name: string): string | null {
  try {
    const value = (JSON.parse(args) as Record<string, unknown> | null)?.[name];
    return typeof value === 'string' && value.trim() ? value : null;
  } catch {
    return null;
  }
}
