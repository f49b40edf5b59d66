// The default engine: embedded, deterministic, no model (docs/architecture.md, Agent engines). The answer of the best
// matching knowledge-base entry; when nothing matches well enough, the greeting on a chat's first message,
// otherwise a fallback sentence in the channel's language, unless it would be the channel's
// `handoffAfterFallbacks`-th fallback in a row: then the chat is handed to the team (docs/architecture.md, Handoff to the team).
import type { Retriever } from '../../knowledge/retrieval.ts';
import { fallbackText } from '../agent-texts.ts';
import type { AgentAnswer, AgentEngine, AgentMessage, AgentTurn } from '../engine.ts';

/**
 * The lowest confidence (retrieval.ts) that counts as an answer, when the encoder's similarity is part of it
 * (English bases) and when the words alone decide. Precision first: a wrong answer is worse than the fallback
 * (which leaves the chat to the team), so the semantic rule is fitted so that 0.5 keeps precision ≥ 0.95 and
 * answers ≤ 15 % of the no-answer questions on each of `npm run eval:kb`'s fixtures (≥ 0.90 cross-validated,
 * docs/decisions.md). A channel may set its own (`agentEngine.answerThreshold`).
 */
export const ANSWER_THRESHOLD = 0.5;
export const LEXICAL_ANSWER_THRESHOLD = 0.5;

export interface KnowledgeBaseEngineDeps {
  retriever: Pick<Retriever, 'retrieve'>;
  /** The language of the account's knowledge base; undefined when it is gone. */
  baseLanguage: (accountId: string, knowledgeBaseId: string) => Promise<string | undefined>;
}

/** The agent's fallbacks at the end of the history, since its last other reply (an answer or a greeting resets it). */
export function fallbacksInARow(history: readonly AgentMessage[]): number {
  let count = 0;
  for (let i = history.length - 1; i >= 0; i -= 1) {
    const reply = history[i]?.agentReply;
    if (reply === undefined) continue;
    if (reply !== 'fallback') break;
    count += 1;
  }
  return count;
}

export function createKnowledgeBaseEngine({ retriever, baseLanguage }: KnowledgeBaseEngineDeps): AgentEngine {
  /** The best entry's answer for the text, when it is an exact match or its confidence reaches the threshold. */
  async function lookUp(knowledgeBaseId: string, language: string, text: string, threshold: number | undefined): Promise<string | undefined> {
    const [best] = await retriever.retrieve(knowledgeBaseId, language, text, 1);
    if (!best) return undefined;
    const needed = threshold ?? (best.semantic ? ANSWER_THRESHOLD : LEXICAL_ANSWER_THRESHOLD);
    return best.exact || best.score >= needed ? best.answer : undefined;
  }

  return {
    async answer({ accountId, channel, history, pending, firstMessage }: AgentTurn): Promise<AgentAnswer> {
      const texts = pending.map((message) => message.text.trim()).filter((text) => text.length > 0);
      let answer: string | undefined;
      const threshold = channel.engine.kind === 'knowledge-base' ? channel.engine.answerThreshold : undefined;
      const language = channel.knowledgeBaseId ? await baseLanguage(accountId, channel.knowledgeBaseId) : undefined;
      if (channel.knowledgeBaseId && language !== undefined && texts.length > 0) {
        // A burst is looked up whole; when that finds nothing, its last message alone (the newest question).
        answer = await lookUp(channel.knowledgeBaseId, language, texts.join('\n'), threshold);
        const last = texts.at(-1);
        if (answer === undefined && texts.length > 1 && last) answer = await lookUp(channel.knowledgeBaseId, language, last, threshold);
      }
      const greeting = channel.settings.greeting.trim();
      if (answer !== undefined) return { text: answer, taskComplete: null };
      if (firstMessage && greeting) return { text: greeting, taskComplete: null };
      const limit = channel.handoffAfterFallbacks;
      if (limit > 0 && fallbacksInARow(history) + 1 >= limit) return { text: null, taskComplete: null, handoff: { reason: 'fallbacks' } };
      return { text: fallbackText(channel.settings.aiLang), taskComplete: null, fallback: true };
    },
  };
}
