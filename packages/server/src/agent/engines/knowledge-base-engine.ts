// The default engine: embedded, deterministic, no model (docs/architecture.md, Agent engines). The answer of the best
// matching knowledge-base entry; when nothing matches well enough but the best candidates are plausible, it asks the
// customer to choose among them (clarify.ts: Clarifying choices); otherwise the greeting on a chat's first message,
// else a fallback sentence in the channel's language, unless it would be the channel's `handoffAfterFallbacks`-th
// fallback in a row: then the chat is handed to the team (docs/architecture.md, Handoff to the team).
import type { Retriever } from '../../knowledge/retrieval.ts';
import type { StoredChoices } from '../../db/schema.ts';
import { clarifyPromptText, fallbackText, somethingElseText } from '../agent-texts.ts';
import type { AgentAnswer, AgentChannel, AgentEngine, AgentMessage, AgentTurn } from '../engine.ts';
import { CLARIFY_THRESHOLD, LEXICAL_CLARIFY_THRESHOLD, candidatesOf, clarificationText, optionsOf, pickOf, type Candidate } from './clarify.ts';

/**
 * The lowest confidence (retrieval.ts) that counts as an answer, when the encoder's similarity is part of it
 * (English bases) and when the words alone decide. Precision first: a wrong answer is worse than the fallback
 * (which leaves the chat to the team), so the semantic rule is fitted so that 0.5 keeps precision ≥ 0.95 and
 * answers ≤ 15 % of the no-answer questions on each of `npm run eval:kb`'s fixtures (≥ 0.90 cross-validated,
 * docs/decisions.md). A channel may set its own (`agentEngine.answerThreshold`).
 */
export const ANSWER_THRESHOLD = 0.5;
export const LEXICAL_ANSWER_THRESHOLD = 0.5;

/** Entries and passages looked at for a clarification's options (the best distinct answers among them). */
const CANDIDATES = 10;

export interface KnowledgeBaseEngineDeps {
  retriever: Pick<Retriever, 'retrieveWithPassages'>;
  /** The language of the account's knowledge base; undefined when it is gone. */
  baseLanguage: (accountId: string, knowledgeBaseId: string) => Promise<string | undefined>;
  /** The clarifying bar for both rules instead of the shipped ones (`npm run eval:kb` sweeps it). */
  clarifyBar?: number;
}

/**
 * The agent's fallbacks at the end of the history, since its last other reply (an answer or a greeting resets it;
 * a clarification neither counts nor breaks the run).
 */
export function fallbacksInARow(history: readonly AgentMessage[]): number {
  let count = 0;
  for (let i = history.length - 1; i >= 0; i -= 1) {
    const reply = history[i]?.agentReply;
    if (reply === undefined || reply === 'clarified') continue;
    if (reply !== 'fallback') break;
    count += 1;
  }
  return count;
}

/** The options the chat's last reply (of the agent or the team) offered, when it was a clarification. */
export function offeredChoices(history: readonly AgentMessage[]): StoredChoices | undefined {
  for (let i = history.length - 1; i >= 0; i -= 1) {
    const message = history[i];
    if (message?.role === 'assistant') return message.choices;
  }
  return undefined;
}

/** What a lookup found for a text: the answer when sure enough, else the candidates to choose from when plausible. */
export interface LookUp {
  answer?: string;
  candidates: Candidate[];
}

/** Whether the best candidate is plausible enough to ask about (the second bar), given how its score was made. */
export function worthAsking(candidates: readonly Candidate[], semantic: boolean, bar?: number): boolean {
  const best = candidates[0];
  if (!best) return false;
  return best.relevance >= (bar ?? (semantic ? CLARIFY_THRESHOLD : LEXICAL_CLARIFY_THRESHOLD));
}

export function createKnowledgeBaseEngine({ retriever, baseLanguage, clarifyBar }: KnowledgeBaseEngineDeps): AgentEngine {
  async function lookUp(knowledgeBaseId: string, text: string, channel: AgentChannel): Promise<LookUp> {
    const threshold = channel.engine.kind === 'knowledge-base' ? channel.engine.answerThreshold : undefined;
    const asking = channel.clarifyChoices > 0;
    const { entries, passages } = await retriever.retrieveWithPassages(knowledgeBaseId, text, {
      entries: asking ? CANDIDATES : 1,
      passages: asking ? CANDIDATES : 0,
    });
    const best = entries[0];
    if (best) {
      const needed = threshold ?? (best.semantic ? ANSWER_THRESHOLD : LEXICAL_ANSWER_THRESHOLD);
      if (best.exact || best.score >= needed) return { answer: best.answer, candidates: [] };
    }
    if (!asking) return { candidates: [] };
    const candidates = candidatesOf(entries, passages);
    const semantic = best?.semantic ?? passages[0]?.semantic ?? false;
    return { candidates: worthAsking(candidates, semantic, clarifyBar) ? candidates : [] };
  }

  function clarification(channel: AgentChannel, question: string, candidates: Candidate[]): AgentAnswer | undefined {
    const options = optionsOf(candidates, channel.clarifyChoices);
    if (options.length === 0) return undefined;
    const aiLang = channel.settings.aiLang;
    const choices: StoredChoices = { question, options, other: somethingElseText(aiLang) };
    return { text: clarificationText(channel.clarifyPrompt ?? clarifyPromptText(aiLang), choices), taskComplete: null, choices };
  }

  return {
    async answer({ accountId, channel, history, pending, firstMessage }: AgentTurn): Promise<AgentAnswer> {
      const texts = pending.map((message) => message.text.trim()).filter((text) => text.length > 0);
      const last = texts.at(-1);
      // The customer's answer to a clarification: a pick, `0` (to the team), or else a new question.
      const offered = offeredChoices(history);
      const picked = offered && last !== undefined ? pickOf(offered, last) : undefined;
      if (picked === 'other') return { text: null, taskComplete: null, handoff: { reason: 'fallbacks' } };
      if (offered && picked) return { text: picked.reply, taskComplete: null, picked: { entryId: picked.entryId, question: offered.question } };

      let found: LookUp = { candidates: [] };
      let asked = '';
      const language = channel.knowledgeBaseId ? await baseLanguage(accountId, channel.knowledgeBaseId) : undefined;
      if (channel.knowledgeBaseId && language !== undefined && last !== undefined) {
        // A burst is looked up whole; when that finds nothing, its last message alone (the newest question).
        asked = texts.join('\n');
        found = await lookUp(channel.knowledgeBaseId, asked, channel);
        if (found.answer === undefined && texts.length > 1) {
          const alone = await lookUp(channel.knowledgeBaseId, last, channel);
          if (alone.answer !== undefined || found.candidates.length === 0) [found, asked] = [alone, last];
        }
      }
      if (found.answer !== undefined) return { text: found.answer, taskComplete: null };
      const clarify = clarification(channel, asked, found.candidates);
      if (clarify) return clarify;
      const greeting = channel.settings.greeting.trim();
      if (firstMessage && greeting) return { text: greeting, taskComplete: null, greeting: true };
      const limit = channel.handoffAfterFallbacks;
      if (limit > 0 && fallbacksInARow(history) + 1 >= limit) return { text: null, taskComplete: null, handoff: { reason: 'fallbacks' } };
      return { text: fallbackText(channel.settings.aiLang), taskComplete: null, fallback: true };
    },
  };
}
