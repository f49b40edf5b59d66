// A reply drafted by a channel's model for a member of the team (issue #44, the Inbox's suggestions): the chat's
// recent messages and the knowledge retrieved for the last customer message go to the channel's openai-compatible
// server (Chat Completions, no tools) once, with no retry: the member is waiting, and a failure only leaves the
// retrieved suggestions. The handoff's summary (handoff/model-summary.ts) asks the same way (`complete`). Never called
// inside a database transaction.
import type { UrlGuard } from '../../kernel/url-guard.ts';
import { redactSecrets } from '../../lib/redact.ts';
import type { AgentChannel } from '../engine.ts';
import { AgentEngineError } from '../engine.ts';
import { createModelServerClient } from './model-server.ts';
import { completionMessage, DEFAULT_TIMEOUT_SECONDS, passageSource } from './openai-engine.ts';

/** The chat's messages the model reads for a draft, the last ones. */
export const DRAFT_HISTORY_MESSAGES = 20;

export interface DraftInput {
  channel: Pick<AgentChannel, 'engine' | 'apiKey' | 'settings'>;
  /** The chat's recent messages, oldest first; the last customer message is what the draft answers. */
  messages: { role: 'user' | 'assistant'; text: string }[];
  knowledge: { question: string; answer: string }[];
  passages: { document: string; headingPath: string[]; text: string }[];
}

export function draftPrompt({ channel, knowledge, passages }: Pick<DraftInput, 'channel' | 'knowledge' | 'passages'>): string {
  const { settings } = channel;
  const lines = [
    settings.role.trim() ? `You are ${settings.role.trim()}.` : 'You are a customer support agent.',
    "Write the reply a person of the team could send to the customer's last message: only the reply's text, short, " +
      'from the knowledge given here; when it does not cover the question, a short reply asking for what is needed. Never guess facts about the business.',
    `Write in this language: ${settings.aiLang}.`,
  ];
  if (knowledge.length > 0) {
    lines.push('Knowledge base entries:');
    for (const entry of knowledge) lines.push(`Q: ${entry.question}\nA: ${entry.answer}`);
  }
  if (passages.length > 0) {
    lines.push("Passages from the team's documents:");
    passages.forEach((passage, i) => lines.push(`[${i + 1}] ${passageSource(passage)}\n${passage.text}`));
  }
  return lines.join('\n');
}

/** A request of the team's tools to a channel's model: its engine, key and what it is asked, once. */
export interface OneCompletion {
  channel: Pick<AgentChannel, 'engine' | 'apiKey'>;
  messages: { role: 'system' | 'user' | 'assistant'; content: string }[];
  /** At most this long (the engine's own timeout when shorter). */
  maxTimeoutMs?: number;
}

export function createModelDrafter({ guard }: { guard: UrlGuard }) {
  const server = createModelServerClient({ guard, backoffMs: [] });

  /**
   * The model's text for these messages, one request with no retry; null when it wrote nothing or the engine is not
   * a model. An AgentEngineError when the server failed (its key redacted).
   */
  async function complete({ channel, messages, maxTimeoutMs }: OneCompletion): Promise<string | null> {
    const { engine, apiKey } = channel;
    if (engine.kind !== 'openai-compatible') return null;
    const url = server.endpoint(engine.baseUrl, '/chat/completions');
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) };
    const timeoutMs = Math.min((engine.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000, maxTimeoutMs ?? Infinity);
    try {
      const answer = await server.send(url, JSON.stringify({ model: engine.model, messages }), headers, timeoutMs);
      const text = completionMessage(answer, url.pathname).content?.trim() ?? '';
      return text.length > 0 ? text : null;
    } catch (error) {
      if (error instanceof AgentEngineError) throw new AgentEngineError(redactSecrets(error.message, [apiKey]));
      throw error;
    }
  }

  return {
    close: () => server.close(),
    destroy: () => server.destroy(),
    complete,
    /** The model's draft; null when it wrote nothing. An AgentEngineError when the server failed (its key redacted). */
    draft(input: DraftInput): Promise<string | null> {
      return complete({
        channel: input.channel,
        messages: [
          { role: 'system', content: draftPrompt(input) },
          ...input.messages.slice(-DRAFT_HISTORY_MESSAGES).map((message) => ({ role: message.role, content: message.text })),
        ],
      });
    },
  };
}

export type ModelDrafter = ReturnType<typeof createModelDrafter>;
