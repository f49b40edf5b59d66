// Retrieval from a knowledge base for the agents: an exact (normalized) question match always wins; otherwise
// full-text candidates are scored with BM25F (question and synonyms weigh more than the answer).
import type { KnowledgeStore } from './knowledge-store.ts';
import { questionKey } from './normalize.ts';
import { textSearchConfig } from './text-search.ts';

export interface RetrievedEntry {
  id: string;
  question: string;
  answer: string;
  /** 1 for an exact match; otherwise the weighted share of the customer's words the entry covers, 0–1. */
  score: number;
  exact: boolean;
}

/**
 * BM25F: a word's occurrences count `QUESTION_WEIGHT` times in the question and synonyms and once in the answer,
 * saturated by K1 and normalized by the entry's length against the base's mean (B). Tuned with `npm run eval:kb`.
 */
export const QUESTION_WEIGHT = 2;
const K1 = 0.8;
const B = 0.5;
/** A word no entry has still counts a little: a text about something else should not match on one shared word. */
const UNKNOWN_WORD_WEIGHT = 0.3;
const CANDIDATES = 50;

type Search = Awaited<ReturnType<KnowledgeStore['searchCandidates']>>;

/**
 * Orders the candidates by BM25F score (ties: the full-text rank, then the store's order). The score is divided by
 * what an entry containing every word of the text in its question would get, so it is between 0 and 1.
 */
export function scoreCandidates({ words, entries, meanLength, frequencies, candidates }: Search): RetrievedEntry[] {
  const idf = (word: string): number => {
    const df = frequencies[word] ?? 0;
    // log(1 + N/df): unlike BM25's own idf it stays positive when every entry has the word (a small base).
    const weight = Math.log(1 + Math.max(entries, 1) / Math.max(df, 1));
    return df === 0 ? weight * UNKNOWN_WORD_WEIGHT : weight;
  };
  const weights = new Map(words.map((word) => [word, idf(word)]));
  const saturate = (tf: number, length: number) => {
    const norm = K1 * (1 - B + (B * length) / Math.max(meanLength, 1));
    return (tf * (K1 + 1)) / (tf + norm);
  };
  const best = [...weights.values()].reduce((sum, weight) => sum + weight * saturate(QUESTION_WEIGHT, meanLength), 0);
  if (best === 0) return [];
  // Of entries asking the same question, only the most recently changed one answers (a correction wins).
  const newest = new Map<string, string>();
  for (const { key, updatedAt } of candidates) {
    if (key !== null && (newest.get(key) ?? '') < updatedAt) newest.set(key, updatedAt);
  }
  return candidates
    .filter(({ key, updatedAt }) => key === null || newest.get(key) === updatedAt)
    .map((candidate, order) => {
      let score = 0;
      for (const [word, weight] of weights) {
        const [inQuestion, inAnswer] = candidate.counts?.[word] ?? [0, 0];
        const tf = QUESTION_WEIGHT * inQuestion + inAnswer;
        if (tf > 0) score += weight * saturate(tf, candidate.length);
      }
      return { candidate, order, score: Math.min(score / best, 1) };
    })
    .sort((a, b) => b.score - a.score || b.candidate.rank - a.candidate.rank || a.order - b.order)
    .map(({ candidate, score }) => ({
      id: candidate.id,
      question: candidate.question,
      answer: candidate.answer,
      score: Math.round(score * 1000) / 1000,
      exact: false,
    }));
}

export function createRetriever(store: Pick<KnowledgeStore, 'findByQuestionKey' | 'searchCandidates'>) {
  return {
    /** The base's entries for a text, best first (at most `limit`); the exact match alone when there is one. */
    async retrieve(knowledgeBaseId: string, language: string, text: string, limit = 5): Promise<RetrievedEntry[]> {
      const key = questionKey(text);
      if (key.length > 0) {
        const exact = await store.findByQuestionKey(knowledgeBaseId, key);
        if (exact) return [{ id: exact.id, question: exact.question, answer: exact.answer, score: 1, exact: true }];
      }
      const search = await store.searchCandidates(knowledgeBaseId, textSearchConfig(language), text, CANDIDATES);
      return scoreCandidates(search).slice(0, limit);
    },
  };
}

export type Retriever = ReturnType<typeof createRetriever>;
