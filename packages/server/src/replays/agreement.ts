// Whether the agent's replayed answer says what the team's answer said (issue #37, the verdict `agrees` vs
// `differs`), by the engine's own similarity (docs/decisions.md, "Replay verdicts"):
//   - the same text once case, punctuation and spacing are set aside (questionKey), for either engine;
//   - the knowledge-base engine: the team's answer, looked up in the base as if a customer had written it, finds
//     first the entry the agent answered with, at least as plausibly as a clarifying menu would need (its menu
//     bar), or the two texts share most of their words (Dice ≥ WORDS_BAR over the base analyzer's stemmed terms);
//   - the openai-compatible engine (free text): the two texts share enough of their stemmed terms (Dice ≥ MODEL_WORDS_BAR).
import { analyzerFor } from '../knowledge/lexicon/analyzer.ts';
import { questionKey } from '../knowledge/normalize.ts';
import { CLARIFY_BARS, type Retriever } from '../knowledge/retrieval.ts';

/** Share of stemmed words (Dice) from which an entry's answer and the team's answer say the same. */
export const WORDS_BAR = 0.5;
/** The same for a model's free-text reply, which rephrases more. */
export const MODEL_WORDS_BAR = 0.4;

/** The text's stemmed content words (stop words aside), as the base's analyzer makes them. */
export function termsOf(language: string, text: string): Set<string> {
  const analyzer = analyzerFor(language);
  return new Set(analyzer.words(text.slice(0, 4_000)).map((word) => analyzer.term(word)));
}

/** Dice coefficient of two term sets, 0–1 (0 when either is empty). */
export function dice(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const term of a) if (b.has(term)) shared += 1;
  return (2 * shared) / (a.size + b.size);
}

export interface AgreementDeps {
  retriever: Pick<Retriever, 'retrieve'>;
}

export function createAgreement({ retriever }: AgreementDeps) {
  return {
    /** Whether `agentReply` says what `teamAnswer` says, for a channel of that engine and knowledge base. */
    async agrees(input: { engine: 'knowledge-base' | 'openai-compatible'; knowledgeBaseId: string | null; language: string; agentReply: string; teamAnswer: string }): Promise<boolean> {
      const { engine, knowledgeBaseId, language, agentReply, teamAnswer } = input;
      if (questionKey(agentReply) === questionKey(teamAnswer)) return true;
      const words = dice(termsOf(language, agentReply), termsOf(language, teamAnswer));
      if (engine === 'openai-compatible' || knowledgeBaseId === null) return words >= MODEL_WORDS_BAR;
      if (words >= WORDS_BAR) return true;
      const [top] = await retriever.retrieve(knowledgeBaseId, language, teamAnswer, 1);
      if (!top || top.answer.trim() !== agentReply.trim()) return false;
      return top.exact || top.relevance >= (top.semantic ? CLARIFY_BARS.semantic : CLARIFY_BARS.lexical).menu;
    },
  };
}

export type Agreement = ReturnType<typeof createAgreement>;
