// Retrieval from a knowledge base for the agents (docs/decisions.md, "Knowledge-base retrieval"): an exact
// (normalized) question or synonym match wins (of several entries: all of them, a choice; of a phrasing the team kept
// from customers' picks: ranked like any text, marked, answered only while unambiguous); otherwise every entry gets
//   - BM25F over question and synonyms (×2) and answer (×1), the customer's words stemmed after lemmatization,
//     misspelled words corrected to the base's own vocabulary, WordNet relatives of the words at half weight;
//   - the sentence encoder's cosine similarity of the text to the entry's question (or a synonym), to its answer
//     and to the whole entry;
// each signal is z-scored over the base's entries for this text and the weighted z-scores are summed (fusion).
// Whether an entry is good enough to answer is its confidence (`score`, 0–1), precision first: with the encoder,
// a rule over its fused margin to the best entry of another topic, whether the customer's question asks for the
// same kind of thing (a price, a time…), the share of the text's words the base does not know, and whether the
// words alone and the encoder alone both put it clearly above every other topic (a strong agreement), its constants
// fitted for precision over the eval's three businesses together (docs/decisions.md, "Precision first", with its
// cross-validated figures); by words alone, a logistic rule over its lexical score and margin; against a threshold
// (0.5 unless the channel sets its own).
// An entry written moments ago is ranked with its vectors too: the index computes those its job has not stored yet
// (`withVectors`), so an entry's answers never depend on when the encoder finishes.
// The passages of the base's documents are ranked the same way among themselves (the same query vector, their own
// statistics) for the openai-compatible engine, and with the same answer rule's confidence for the knowledge-base
// engine's clarifying choices (which offers passages, never answers with one directly).
import type { PassageRow } from './documents/documents-store.ts';
import type { EntryVectorSet } from './entry-vectors.ts';
import { normalized, buildIndex, passageIndexRow, type IndexedEntry, type IndexRow, type KnowledgeIndex } from './knowledge-index.ts';
import { analyzerFor, MAX_WORD_LENGTH } from './lexicon/analyzer.ts';
import type { KnowledgeStore } from './knowledge-store.ts';
import { BUILT_IN_MODEL } from './encoder/sentence-encoder.ts';
import { providerModel, type EmbeddingsProviderConfig } from './embeddings-client.ts';
import { questionKey } from './normalize.ts';
import { kindsAgreement, questionKinds, type QuestionKind } from './question-kinds.ts';

export interface RetrievedEntry {
  id: string;
  question: string;
  answer: string;
  /** 1 for an exact match; otherwise the confidence that the entry answers the text, 0–1 (see `confidence`). */
  score: number;
  exact: boolean;
  /** The encoder's similarity went into `score` (fused); false when the words alone decided. */
  semantic: boolean;
  /**
   * How far the entry stands out for the text among the base's entries, unbounded: its fused score (the weighted
   * z-scores; the lexical z-score alone by words) less UNKNOWN_PENALTY per share of the text's words the base does
   * not know. Clarifying choices ask when the best candidate's reaches their bars (CLARIFY_BARS); EXACT_RELEVANCE for
   * an exact match.
   */
  relevance: number;
  /**
   * The text is worded exactly as a phrasing the team kept for this entry (a learned question moved into its
   * synonyms): answered directly only while the answer rule is sure of it, else clarified (not `exact`).
   */
  kept?: boolean;
}

/** What the relevance loses when every word of the text is unknown to the base (fitted with the clarifying bar). */
export const UNKNOWN_PENALTY = 3;
export const EXACT_RELEVANCE = 1_000;

/**
 * When candidates are plausible enough to offer as clarifying choices, on their relevance: a menu only when the
 * best reaches `menu`, and of it only the options that reach `option` (the others are unrelated to the question).
 */
export interface ClarifyBars {
  menu: number;
  option: number;
}

/**
 * Fitted with `npm run eval:kb` (docs/decisions.md, "Menus only when they help"): with the encoder, and by words
 * alone (a base in another language without an embeddings provider).
 */
export const CLARIFY_BARS: { semantic: ClarifyBars; lexical: ClarifyBars } = {
  semantic: { menu: 10.25, option: 4 },
  lexical: { menu: 2.75, option: -0.5 },
};

function relevanceOf(signals: EntrySignals, ranking: Ranking): number {
  return Math.round((signals.fused - UNKNOWN_PENALTY * ranking.unknownShare) * 1000) / 1000;
}

/** Which evidence ranks the entries: words only, the encoder only, or both fused (the default). */
export type RetrievalMode = 'lexical' | 'encoder' | 'fused';

/** BM25F: a word counts QUESTION_WEIGHT times in the question and synonyms, once in the answer. */
export const QUESTION_WEIGHT = 2;
const K1 = 0.8;
const B = 0.5;
/** A word no entry has still counts a little: a text about something else should not match on one shared word. */
const UNKNOWN_WORD_WEIGHT = 0.3;
/** A WordNet relative of a customer's word weighs half the word itself. */
export const EXPANSION_WEIGHT = 0.5;
/**
 * What of a customer's text is looked at (docs/decisions.md, "Knowledge-base retrieval"), so that one message's
 * work is bounded whatever its length: its first MAX_QUERY_CHARS characters (words and the encoder alike; a longer
 * text is never an exact match), of them the first MAX_QUERY_WORDS words (stop words aside), and of those at most
 * MAX_CORRECTED_WORDS compared with the base's vocabulary for a misspelling (each scans the whole vocabulary).
 */
export const MAX_QUERY_CHARS = 2_000;
export const MAX_QUERY_WORDS = 64;
export const MAX_CORRECTED_WORDS = 8;

/** The part of a customer's text that retrieval looks at: its first MAX_QUERY_CHARS characters, no pair split. */
export function queryText(text: string): string {
  if (text.length <= MAX_QUERY_CHARS) return text;
  const last = text.charCodeAt(MAX_QUERY_CHARS - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? MAX_QUERY_CHARS - 1 : MAX_QUERY_CHARS);
}

/** Weights of the z-scored signals in the fused ranking. */
export interface FusionWeights {
  lexical: number;
  question: number;
  answer: number;
  whole: number;
}
/**
 * From `npm run eval:kb -- --calibrate`'s grid over both fixtures (two businesses, 116 entries, 348 paraphrases):
 * of its plateau of equally good rankings, the one whose fitted answer rule answers the most right.
 */
export const FUSION: FusionWeights = { lexical: 1, question: 2, answer: 1.5, whole: 0.75 };

/** What the fusion and the answer rule know of one entry for one text. */
export interface EntrySignals {
  entry: IndexedEntry;
  /** BM25F divided by what an entry with every word of the text in its question would get, capped at 1. */
  lexical: number;
  /** Cosine of the text to the entry's question or nearest synonym; null without vectors. */
  question: number | null;
  /** Cosine of the text to the entry's answer; null without vectors. */
  answer: number | null;
  /** Cosine of the text to the whole entry (question, synonyms and answer); null without vectors. */
  whole: number | null;
  fused: number;
  /** The encoder's part of `fused` (its three weighted z-scores); 0 without vectors. */
  semantic: number;
}

export interface Ranking {
  ranked: EntrySignals[];
  /** Share of the text's words that no entry has (after typo correction). */
  unknownShare: number;
  /** What the text asks for (a price, a time…: question-kinds.ts). */
  kinds: ReadonlySet<QuestionKind>;
}

/** Optimal string alignment distance, or `limit + 1` as soon as it must exceed `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, (before[j - 2] ?? 0) + 1);
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length] ?? limit + 1;
}

/** The word's code units as a set of 32 bits (hashed); how many of one set's bits the other lacks bounds the distance. */
function letterBits(word: string): number {
  let bits = 0;
  for (let i = 0; i < word.length; i++) bits |= 1 << (word.charCodeAt(i) & 31);
  return bits;
}

function bitCount(bits: number): number {
  let count = 0;
  for (let rest = bits; rest !== 0; rest &= rest - 1) count += 1;
  return count;
}

/**
 * Each edit adds at most one letter the other word has and removes at most one it lacks: words whose letters differ
 * by more than `limit` are further apart than that, which skips most of a vocabulary without aligning them.
 */
function lettersWithin(bits: number, candidate: string, limit: number): boolean {
  const other = letterBits(candidate);
  return bitCount(bits & ~other) <= limit && bitCount(other & ~bits) <= limit;
}

const corrections = new WeakMap<KnowledgeIndex, Map<string, string | null>>();
/**
 * The base's word closest to a misspelled one: 1 edit for words up to 7 letters, 2 above; the commoner on a tie.
 * Tokens longer than MAX_WORD_LENGTH are no words and are not corrected.
 */
export function correctSpelling(index: KnowledgeIndex, word: string): string | undefined {
  if (word.length < 3 || word.length > MAX_WORD_LENGTH || /\p{N}/u.test(word)) return undefined;
  let cache = corrections.get(index);
  if (!cache) corrections.set(index, (cache = new Map()));
  const known = cache.get(word);
  if (known !== undefined) return known ?? undefined;
  const limit = word.length <= 7 ? 1 : 2;
  const bits = letterBits(word);
  let best: { word: string; distance: number; frequency: number } | undefined;
  for (const [candidate, term] of index.vocabulary) {
    if (Math.abs(word.length - candidate.length) > limit || !lettersWithin(bits, candidate, limit)) continue;
    const distance = editDistance(word, candidate, limit);
    if (distance > limit) continue;
    const frequency = index.documentFrequency.get(term) ?? 0;
    if (!best || distance < best.distance || (distance === best.distance && frequency > best.frequency)) best = { word: candidate, distance, frequency };
  }
  if (cache.size > 10_000) cache.clear();
  cache.set(word, best?.word ?? null);
  return best?.word;
}

/**
 * The customer's words as term groups: each word's own term (weight 1) and its WordNet relatives present in the
 * base (EXPANSION_WEIGHT). A group counts once per entry, by its best term: a word and its synonyms are one word.
 * Only the first MAX_QUERY_WORDS words of the text's first MAX_QUERY_CHARS characters count, and of them only the
 * first MAX_CORRECTED_WORDS that neither the base nor the dictionary knows are corrected.
 */
export function queryTerms(index: KnowledgeIndex, text: string): { groups: Map<string, [string, number][]>; unknownShare: number } {
  const { analyzer, documentFrequency } = index;
  const groups = new Map<string, [string, number][]>();
  let unknown = 0;
  let count = 0;
  let corrected = 0;
  for (const written of analyzer.words(queryText(text)).slice(0, MAX_QUERY_WORDS)) {
    let word = written;
    if (corrected < MAX_CORRECTED_WORDS && !documentFrequency.has(analyzer.term(word)) && !analyzer.isDictionaryWord(word)) {
      corrected += 1;
      word = correctSpelling(index, word) ?? word;
    }
    const term = analyzer.term(word);
    count += 1;
    if (!documentFrequency.has(term)) unknown += 1;
    if (groups.has(term)) continue;
    const group: [string, number][] = [[term, 1]];
    for (const relative of analyzer.related(word)) {
      if (analyzer.words(relative).length === 0) continue;
      const related = analyzer.term(relative);
      if (documentFrequency.has(related) && !group.some(([t]) => t === related)) group.push([related, EXPANSION_WEIGHT]);
    }
    groups.set(term, group);
  }
  return { groups, unknownShare: count ? unknown / count : 1 };
}

/**
 * Typical mean and spread of each signal over a base's entries for one question (measured with `npm run eval:kb`):
 * the z-scores lean on them as PRIOR_ENTRIES imaginary entries, so a small base (where the spread of 5 entries
 * says little) is judged like a large one and the answer rule does not depend on the base's size.
 */
const PRIORS = {
  lexical: { mean: 0.07, deviation: 0.11 },
  question: { mean: 0.34, deviation: 0.11 },
  answer: { mean: 0.27, deviation: 0.09 },
  whole: { mean: 0.34, deviation: 0.1 },
};
const PRIOR_ENTRIES = 20;

function zScores(values: readonly (number | null)[], prior: { mean: number; deviation: number }): number[] {
  const present = values.filter((value): value is number => value !== null);
  if (present.length === 0) return values.map(() => 0);
  const weight = present.length + PRIOR_ENTRIES;
  const mean = (present.reduce((sum, value) => sum + value, 0) + PRIOR_ENTRIES * prior.mean) / weight;
  const spread = present.reduce((sum, value) => sum + (value - mean) ** 2, 0) + PRIOR_ENTRIES * (prior.deviation ** 2 + (prior.mean - mean) ** 2);
  const deviation = Math.sqrt(spread / weight);
  // An entry without vectors sits at the mean: neither pushed up nor down by a signal it lacks.
  return values.map((value) => (value === null || deviation === 0 ? 0 : (value - mean) / deviation));
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] ?? 0) * (b[i] ?? 0);
  return sum;
}

/**
 * Every entry of the base with its signals for the text, best first by the mode's ranking. `assumed`: an entry
 * ranked as if the text were one of its synonyms (every word of it in its question, the encoder's cosine 1).
 */
export function rankEntries(
  index: KnowledgeIndex,
  text: string,
  queryVector: readonly number[] | undefined,
  mode: RetrievalMode,
  weights: FusionWeights = FUSION,
  assumed?: string,
): Ranking {
  const { entries, documentFrequency, meanLength } = index;
  const { groups, unknownShare } = queryTerms(index, text);
  const count = Math.max(entries.length, 1);
  const idf = (term: string) => {
    const df = documentFrequency.get(term) ?? 0;
    // log(1 + N/df): unlike BM25's own idf it stays positive when every entry has the word (a small base).
    const weight = Math.log(1 + count / Math.max(df, 1));
    return df === 0 ? weight * UNKNOWN_WORD_WEIGHT : weight;
  };
  const saturate = (tf: number, length: number) => (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / Math.max(meanLength, 1)));
  const best = [...groups.keys()].reduce((sum, term) => sum + idf(term) * saturate(QUESTION_WEIGHT, meanLength), 0);
  const vector = queryVector && index.dimensions === queryVector.length && mode !== 'lexical' ? normalized(queryVector) : undefined;
  const signals: EntrySignals[] = entries.map((entry) => {
    let score = 0;
    for (const [own, group] of groups) {
      let wordScore = 0;
      for (const [term, weight] of group) {
        const tf = QUESTION_WEIGHT * (entry.asked.get(term) ?? 0) + (entry.answered.get(term) ?? 0);
        if (tf > 0) wordScore = Math.max(wordScore, weight * idf(term) * saturate(tf, entry.length));
      }
      // A relative never counts more than the word itself would in the question.
      score += Math.min(wordScore, idf(own) * saturate(QUESTION_WEIGHT * 2, entry.length));
    }
    const question = vector && entry.questionVectors.length ? Math.max(...entry.questionVectors.map((v) => dot(vector, v))) : null;
    const answer = vector && entry.answerVector ? dot(vector, entry.answerVector) : null;
    const whole = vector && entry.wholeVector ? dot(vector, entry.wholeVector) : null;
    if (entry.id === assumed) return { entry, lexical: best > 0 ? 1 : 0, question: question === null ? null : 1, answer, whole, fused: 0, semantic: 0 };
    return { entry, lexical: best > 0 ? Math.min(score / best, 1) : 0, question, answer, whole, fused: 0, semantic: 0 };
  });
  const lexical = mode === 'encoder' ? signals.map(() => 0) : zScores(signals.map((s) => s.lexical), PRIORS.lexical);
  const question = zScores(signals.map((s) => s.question), PRIORS.question);
  const answer = zScores(signals.map((s) => s.answer), PRIORS.answer);
  const whole = zScores(signals.map((s) => s.whole), PRIORS.whole);
  signals.forEach((s, i) => {
    s.semantic = weights.question * (question[i] ?? 0) + weights.answer * (answer[i] ?? 0) + weights.whole * (whole[i] ?? 0);
    s.fused = weights.lexical * (lexical[i] ?? 0) + s.semantic;
  });
  const key = mode === 'lexical' || !vector ? (s: EntrySignals) => s.lexical : (s: EntrySignals) => s.fused;
  signals.sort((a, b) => key(b) - key(a) || b.lexical - a.lexical);
  return {
    ranked: signals,
    unknownShare,
    kinds: questionKinds(queryText(text), index.analyzer.english),
  };
}

/** How far an entry stands above the best entry of another topic, in the fused score and in each signal alone. */
export interface TopicMargins {
  fused: number;
  lexical: number;
  /** In the encoder's part of the fused score (`EntrySignals.semantic`). */
  encoder: number;
}

/**
 * The candidate's margins over the best entry of another topic: one with a different answer, since two entries
 * giving the same answer are no doubt between answers (0 is the other's score when there is none).
 */
export function topicMargins(candidate: EntrySignals, ranking: Ranking): TopicMargins {
  let fused = -Infinity;
  let lexical = 0;
  let encoder = -Infinity;
  const answer = candidate.entry.answer.trim();
  for (const other of ranking.ranked) {
    if (other === candidate || other.entry.answer.trim() === answer) continue;
    fused = Math.max(fused, other.fused);
    lexical = Math.max(lexical, other.lexical);
    encoder = Math.max(encoder, other.semantic);
  }
  return {
    fused: candidate.fused - (fused === -Infinity ? 0 : fused),
    lexical: candidate.lexical - lexical,
    encoder: candidate.semantic - (encoder === -Infinity ? 0 : encoder),
  };
}

/** When the words alone and the encoder alone both put an entry clearly above every other topic. */
export interface StrongAgreement {
  /** Its lexical score (0–1) at least this far above another topic's. */
  lexical: number;
  /** Its encoder part of the fused score at least this far above another topic's. */
  encoder: number;
  /** And at most this share of the text's words unknown to the base. */
  unknownShare: number;
}

/**
 * Fitted with the semantic rule (`npm run eval:kb -- --calibrate`): the two margins are a grid's. The unknown share
 * is set, not fitted: one shared word agreed on by both signals is no agreement when the rest of the text is
 * unknown ("do you sell bicycles?" against "Do you sell gift cards?"); fitted too, it overfits the fixtures
 * (docs/decisions.md, "Precision first").
 */
export const STRONG_AGREEMENT: StrongAgreement = { lexical: 0.3, encoder: 0.5, unknownShare: 1 / 3 };

export function strongAgreement(margins: TopicMargins, unknownShare: number, bars: StrongAgreement = STRONG_AGREEMENT): boolean {
  return margins.lexical >= bars.lexical && margins.encoder >= bars.encoder && unknownShare <= bars.unknownShare;
}

/**
 * What the answer rule weighs about an entry for a text. With the encoder (`semantic`, docs/decisions.md,
 * "Precision first"): how far its fused score stands above the best entry of another topic (`topicMargins`),
 * whether the text asks for the kind of thing its question does (1 the same, −1 another, 0 unknown:
 * question-kinds.ts), the share of the text's words no entry has, and whether the words alone and the encoder alone
 * agree on it strongly (1 or 0: `strongAgreement`). Words only: its lexical score and its lexical margin over the
 * runner-up, each discounted by the share of the text's words no entry has (one shared word of an off-topic
 * question stands out from the rest, but most of its words are unknown), and that share.
 */
export function ruleFeatures(candidate: EntrySignals, ranking: Ranking, semantic: boolean): number[] {
  if (semantic) {
    const margins = topicMargins(candidate, ranking);
    return [
      margins.fused,
      kindsAgreement(ranking.kinds, candidate.entry.kinds),
      ranking.unknownShare,
      strongAgreement(margins, ranking.unknownShare) ? 1 : 0,
    ];
  }
  let otherLexical = 0;
  for (const other of ranking.ranked) if (other !== candidate) otherLexical = Math.max(otherLexical, other.lexical);
  return [candidate.lexical * (1 - ranking.unknownShare), (candidate.lexical - otherLexical) * (1 - ranking.unknownShare), ranking.unknownShare];
}

/** A logistic rule over `ruleFeatures`: the confidence is sigmoid(intercept + Σ weight × feature). */
export interface AnswerRule {
  intercept: number;
  weights: readonly number[];
}

/**
 * Fitted with `npm run eval:kb -- --calibrate` (docs/decisions.md, "Precision first"). The semantic rule is a
 * score, margin to another topic + 1·question kinds agree − 6·unknown share + 4·strong agreement, answering from 6:
 * of a grid over those weights, the threshold and the agreement's margins, the one answering the most paraphrases
 * right over the three fixtures while their answers together keep precision ≥ 0.95, each fixture's ≥ 0.90, and
 * each answers ≤ 15 % of its no-answer questions. Other evidence was tried and earned nothing cross-validated: raw
 * cosines, word coverage, per-signal ranks, the number of close entries, a logistic regression over them. As a
 * logistic rule its intercept is −6, so 0.5 is the shipped threshold and a channel's answerThreshold still moves
 * it. The lexical rule: a logistic regression of "the entry ranked first is the right one", its intercept moved so
 * that 0.5 keeps at least 70 % of the no-answer questions and 90 % of the off-topic ones unanswered
 * (knowledge-base-engine.ts).
 */
export const ANSWER_RULES: { semantic: AnswerRule; lexical: AnswerRule } = {
  semantic: { intercept: -6, weights: [1, 1, -6, 4] },
  lexical: { intercept: -0.642, weights: [0.521, 6.563, -1.279] },
};

export function ruleConfidence(rule: AnswerRule, features: readonly number[]): number {
  const logit = features.reduce((sum, feature, i) => sum + feature * (rule.weights[i] ?? 0), rule.intercept);
  return 1 / (1 + Math.exp(-logit));
}

/**
 * The answer rule: how sure the entry answers the text, 0–1 (0.5 is the shipped threshold). With the encoder's
 * vectors the semantic rule, else the lexical one.
 */
export function confidence(candidate: EntrySignals, ranking: Ranking, mode: RetrievalMode): number {
  const semantic = mode !== 'lexical' && candidate.question !== null;
  const rule = semantic ? ANSWER_RULES.semantic : ANSWER_RULES.lexical;
  return Math.round(ruleConfidence(rule, ruleFeatures(candidate, ranking, semantic)) * 1000) / 1000;
}

/** A document passage retrieved for a text: its source and its rank among the base's passages. */
export interface RetrievedPassage {
  id: string;
  document: string;
  headingPath: string[];
  text: string;
  /** The answer rule's confidence for the passage among the base's passages, 0–1. */
  score: number;
  /** As an entry's (`RetrievedEntry.relevance`), among the base's passages: clarifying choices weigh it. */
  relevance: number;
  /** The encoder's similarity went into the scores. */
  semantic: boolean;
}

export interface RetrieverDeps {
  store: Pick<KnowledgeStore, 'findBaseVersion' | 'loadIndexRows'>;
  /** The passages of the base's ready documents (none: entries only). */
  loadPassages?: (knowledgeBaseId: string) => Promise<PassageRow[]>;
  /** Embeds a customer's text with the built-in encoder (English bases); absent: lexical only. */
  embed?: ((text: string) => Promise<number[]>) | undefined;
  /** Embeds a customer's text with a base's embeddings provider (any language); absent: lexical only. */
  embedWith?: ((provider: EmbeddingsProviderConfig, text: string) => Promise<number[]>) | undefined;
  /** Vectors of these models are in the base's entries (built-in encoder's name when no provider). */
  builtInModel?: string;
  /** The entries of the base that customers chose for a phrasing (its key), kept or not; absent: none. */
  entriesLearning?: (knowledgeBaseId: string, key: string) => Promise<string[]>;
  /** The base's provider failed on a question: it is answered by its words alone. */
  onEmbedError?: (knowledgeBaseId: string, error: unknown) => void;
  /**
   * An entry's vectors with its base's model (entry-vectors.ts `vectorsOf`): the index computes those its
   * `knowledge.embed` job has not stored yet, so an entry ranks the same before as after. Absent: they are waited for.
   */
  entryVectors?: (
    base: { language: string; embeddings: EmbeddingsProviderConfig | null },
    entry: { question: string; synonyms: readonly string[]; answer: string },
  ) => Promise<EntryVectorSet | undefined>;
  /** An entry's vectors could not be computed for the index: it is ranked by its words until its job stores them. */
  onEntryVectorsError?: (knowledgeBaseId: string, error: unknown) => void;
  mode?: RetrievalMode;
}

/** Entries ranked near a phrasing listed as competing with it at most (the options a clarification has beside it). */
const MAX_COMPETING = 4;
/** The answer rules' threshold as shipped (knowledge-base-engine.ts; a channel may set its own): `competing` uses it. */
const SHIPPED_THRESHOLD = 0.5;

/**
 * How many entries a process keeps in memory at once, over all bases (the least recently asked bases are dropped
 * first): an English entry with vectors takes about 5 KB, so about 100 MB at most.
 */
const CACHED_ENTRIES = 20_000;

/**
 * Entries without their vectors a rebuild embeds itself when there are at most this many (an entry just saved, a few
 * corrections: a first question pays about 100 ms each); more at once (a provider change, an upgrade, a bulk
 * import) are a bulk change: ranked by their words until their jobs store the vectors.
 */
export const INDEX_EMBEDS_ENTRIES = 8;
/** Vectors the index computed itself, kept for the rebuilds until the entry's job stores them (by entry and text version). */
const INDEX_VECTORS_KEPT = 2_000;

/** A base in memory: its entries' index and its passages' index. */
interface BaseIndex {
  entries: KnowledgeIndex;
  passages: KnowledgeIndex;
}

export function createRetriever({
  store,
  loadPassages,
  embed,
  embedWith,
  builtInModel = BUILT_IN_MODEL,
  entriesLearning,
  onEmbedError,
  entryVectors,
  onEntryVectorsError,
  mode = 'fused',
}: RetrieverDeps) {
  const cache = new Map<string, { version: number; index: Promise<BaseIndex>; entries: number }>();
  const computed = new Map<string, Promise<EntryVectorSet | undefined>>();

  /**
   * The rows with the vectors their job has not stored yet, computed here (at most INDEX_EMBEDS_ENTRIES of them): an
   * entry's answers do not depend on when its job finishes. The same texts and model as the job, so the same vectors.
   */
  async function withVectors(
    knowledgeBaseId: string,
    base: { language: string; embeddings: EmbeddingsProviderConfig | null },
    model: string,
    rows: IndexRow[],
  ): Promise<IndexRow[]> {
    if (!entryVectors || mode === 'lexical' || (!base.embeddings && !analyzerFor(base.language).english)) return rows;
    const lacking = rows.filter((row) => row.vectorsModel !== model || !row.questionVectors || !row.answerVector);
    if (lacking.length === 0 || lacking.length > INDEX_EMBEDS_ENTRIES) return rows;
    const found = new Map<string, EntryVectorSet>();
    await Promise.all(
      lacking.map(async (row) => {
        const key = `${model}\n${row.id}\n${row.updatedAt.getTime()}`;
        let vectors = computed.get(key);
        if (!vectors) {
          vectors = entryVectors(base, row);
          computed.set(key, vectors);
          if (computed.size > INDEX_VECTORS_KEPT) computed.delete(computed.keys().next().value ?? '');
        }
        try {
          const set = await vectors;
          if (set?.model === model) found.set(row.id, set);
        } catch (error) {
          computed.delete(key);
          onEntryVectorsError?.(knowledgeBaseId, error);
        }
      }),
    );
    return rows.map((row) => {
      const set = found.get(row.id);
      return set ? { ...row, questionVectors: set.questionVectors, answerVector: set.answerVector, vectorsModel: set.model } : row;
    });
  }

  /** Drops the least recently asked bases while the cache holds more than CACHED_ENTRIES (the newest always stays). */
  function trim(): void {
    let total = 0;
    for (const cached of cache.values()) total += cached.entries;
    for (const [id, cached] of cache) {
      if (total <= CACHED_ENTRIES || cache.size <= 1) break;
      cache.delete(id);
      total -= cached.entries;
    }
  }

  /**
   * The base's in-memory index, rebuilt when an entry or the provider changed since (entries_version), with the
   * base's embeddings provider; undefined when gone.
   */
  async function indexOf(knowledgeBaseId: string): Promise<{ index: BaseIndex; provider: EmbeddingsProviderConfig | null } | undefined> {
    const base = await store.findBaseVersion(knowledgeBaseId);
    if (!base) {
      cache.delete(knowledgeBaseId);
      return undefined;
    }
    // A provider change bumps the version in the same statement (knowledge-store.ts): index and provider agree.
    const model = base.embeddings ? providerModel(base.embeddings) : builtInModel;
    let cached = cache.get(knowledgeBaseId);
    if (!cached || cached.version !== base.entriesVersion) {
      // The version was read before the rows: a write in between leaves a newer version, so a rebuild next time.
      const entry: { version: number; index: Promise<BaseIndex>; entries: number } = {
        version: base.entriesVersion,
        index: Promise.all([
          store.loadIndexRows(knowledgeBaseId).then((rows) => withVectors(knowledgeBaseId, base, model, rows)),
          loadPassages ? loadPassages(knowledgeBaseId) : [],
        ]).then(([rows, passages]) => ({
          entries: buildIndex(base.language, rows, model),
          passages: buildIndex(base.language, passages.map(passageIndexRow), model, { passages: true }),
        })),
        entries: 0,
      };
      entry.index.then(
        (index) => {
          entry.entries = index.entries.entries.length + index.passages.entries.length;
          trim();
        },
        () => {
          if (cache.get(knowledgeBaseId) === entry) cache.delete(knowledgeBaseId);
        },
      );
      cached = entry;
    }
    // Most recently asked last.
    cache.delete(knowledgeBaseId);
    cache.set(knowledgeBaseId, cached);
    return { index: await cached.index, provider: base.embeddings };
  }

  /** The text's vector for the base's model: undefined when words alone decide (no vectors, no encoder, a provider down). */
  async function queryVector(
    knowledgeBaseId: string,
    indices: KnowledgeIndex[],
    provider: EmbeddingsProviderConfig | null,
    query: string,
  ): Promise<number[] | undefined> {
    if (mode === 'lexical' || indices.every((index) => index.dimensions === 0)) return undefined;
    if (provider && embedWith) {
      // A provider down or failing: this question is answered by its words alone (never a failed reply).
      return embedWith(provider, query).catch((error: unknown) => {
        onEmbedError?.(knowledgeBaseId, error);
        return undefined;
      });
    }
    // The encoder failing (a broken install) leaves the words to decide, as with a non-English base.
    if (!provider && embed && indices[0]?.analyzer.english) return embed(query).catch(() => undefined);
    return undefined;
  }

  /**
   * The base's entries for the text, best first (at most `limit`), those with some evidence only; `kept`: the entry
   * the text is a kept phrasing of, marked and always among them.
   */
  function rankedEntries(index: KnowledgeIndex, query: string, vector: number[] | undefined, limit: number, kept?: IndexedEntry): RetrievedEntry[] {
    if (index.entries.length === 0 || limit === 0) return [];
    const ranking = rankEntries(index, query, vector, mode);
    // Entries with no evidence at all (no shared word, and no closer than usual in meaning) are not candidates.
    const candidates = ranking.ranked.filter((s) => s.lexical > 0 || (s.question !== null && s.fused > 0)).slice(0, limit);
    const own = kept && ranking.ranked.find((s) => s.entry === kept);
    if (own && !candidates.includes(own)) candidates.push(own);
    return candidates.map((signals) => ({
      id: signals.entry.id,
      question: signals.entry.question,
      answer: signals.entry.answer,
      score: confidence(signals, ranking, mode),
      exact: false,
      semantic: mode !== 'lexical' && signals.question !== null,
      relevance: relevanceOf(signals, ranking),
      ...(signals === own ? { kept: true } : {}),
    }));
  }

  /** Entries of distinct answers, the first of each (the most recently changed). */
  function distinctAnswers(entries: readonly IndexedEntry[]): IndexedEntry[] {
    const seen = new Set<string>();
    return entries.filter((entry) => {
      const answer = entry.answer.trim();
      return !seen.has(answer) && seen.add(answer);
    });
  }

  /**
   * The text worded exactly as an entry's question or synonym: the entries to answer from (`exact`: one answers,
   * several are a choice between them), or the entry it is a kept phrasing of when that must be ranked first (`kept`:
   * answered only while unambiguous). A kept phrasing that customers also chose another entry for is a choice between
   * them. Nothing when the text is no entry's.
   */
  async function exactMatch(knowledgeBaseId: string, index: KnowledgeIndex, text: string): Promise<{ exact: IndexedEntry[]; kept?: IndexedEntry }> {
    // Keys have at most 1,000 characters (QUESTION_MAX): a longer text is no question asked word for word.
    if (text.length > MAX_QUERY_CHARS) return { exact: [] };
    const key = questionKey(text);
    const holders = distinctAnswers(index.byKey.get(key) ?? []);
    const only = holders[0];
    if (!only || holders.length > 1 || !only.keptKeys.has(key)) return { exact: holders };
    const learning = new Set(entriesLearning ? await entriesLearning(knowledgeBaseId, key) : []);
    const others = distinctAnswers([only, ...index.entries.filter((entry) => entry !== only && learning.has(entry.id))]);
    return others.length > 1 ? { exact: others } : { exact: [], kept: only };
  }

  /** The base's passages for the text, best first (at most `limit`), those with some evidence only. */
  function rankedPassages(index: KnowledgeIndex, query: string, vector: number[] | undefined, limit: number): RetrievedPassage[] {
    if (index.entries.length === 0 || limit === 0) return [];
    const ranking = rankEntries(index, query, vector, mode);
    const candidates = ranking.ranked.filter((s) => s.lexical > 0 || (s.question !== null && s.fused > 0));
    return candidates.slice(0, limit).map((signals) => ({
      id: signals.entry.id,
      document: signals.entry.source?.document ?? '',
      headingPath: signals.entry.source?.headingPath ?? [],
      text: signals.entry.answer,
      score: confidence(signals, ranking, mode),
      relevance: relevanceOf(signals, ranking),
      semantic: mode !== 'lexical' && signals.question !== null,
    }));
  }

  /**
   * The base's best entries and, ranked apart, its best document passages for a text (one embedding of the text for
   * both). An exact question match is the one entry; passages are ranked all the same.
   */
  async function retrieveWithPassages(
    knowledgeBaseId: string,
    text: string,
    limits: { entries: number; passages: number },
  ): Promise<{ entries: RetrievedEntry[]; passages: RetrievedPassage[] }> {
    const found = await indexOf(knowledgeBaseId);
    if (!found) return { entries: [], passages: [] };
    const { index, provider } = found;
    const wanted = { entries: index.entries.entries.length > 0 && limits.entries > 0, passages: index.passages.entries.length > 0 && limits.passages > 0 };
    if (!wanted.entries && !wanted.passages) return { entries: [], passages: [] };
    const match = wanted.entries ? await exactMatch(knowledgeBaseId, index.entries, text) : { exact: [] };
    const exactEntries = match.exact.map((entry) => ({ id: entry.id, question: entry.question, answer: entry.answer, score: 1, exact: true, semantic: false, relevance: EXACT_RELEVANCE }));
    if (exactEntries.length > 0 && !wanted.passages) return { entries: exactEntries, passages: [] };
    // The encoder's time grows faster than its input's length (100 KB: over a minute of its thread).
    const query = queryText(text);
    const searched = [...(wanted.entries && exactEntries.length === 0 ? [index.entries] : []), ...(wanted.passages ? [index.passages] : [])];
    const vector = await queryVector(knowledgeBaseId, searched, provider, query);
    const entries = exactEntries.length > 0 ? exactEntries : wanted.entries ? rankedEntries(index.entries, query, vector, limits.entries, match.kept) : [];
    return { entries, passages: rankedPassages(index.passages, query, vector, limits.passages) };
  }

  /**
   * The other entries a phrasing customers chose for `entryId` is as close to (what `Keep` warns about): those it is
   * worded as (their question or a synonym), those customers chose for it too, and, when the answer rule would not
   * be sure of the entry with the phrasing as its synonym (ranked so: `rankEntries`' `assumed`), the other entries
   * plausible enough to be offered beside it (CLARIFY_BARS' option bar). Empty: kept, it would be answered directly.
   */
  async function competing(knowledgeBaseId: string, entryId: string, text: string): Promise<{ entryId: string; question: string }[]> {
    const found = await indexOf(knowledgeBaseId);
    const index = found?.index.entries;
    const own = index?.entries.find((entry) => entry.id === entryId);
    if (!found || !index || !own) return [];
    const answer = own.answer.trim();
    const others = new Map<string, IndexedEntry>();
    const add = (entry: IndexedEntry) => {
      if (entry !== own && entry.answer.trim() !== answer && !others.has(entry.id)) others.set(entry.id, entry);
    };
    const key = questionKey(text);
    for (const entry of index.byKey.get(key) ?? []) add(entry);
    const learning = new Set(entriesLearning ? await entriesLearning(knowledgeBaseId, key) : []);
    for (const entry of index.entries) if (learning.has(entry.id)) add(entry);
    const query = queryText(text);
    const vector = await queryVector(knowledgeBaseId, [index], found.provider, query);
    const ranking = rankEntries(index, query, vector, mode, FUSION, entryId);
    const assumed = ranking.ranked.find((signals) => signals.entry === own);
    const sure = assumed !== undefined && ranking.ranked[0] === assumed && confidence(assumed, ranking, mode) >= SHIPPED_THRESHOLD;
    if (!sure) {
      const bar = (mode !== 'lexical' && assumed !== undefined && assumed.question !== null ? CLARIFY_BARS.semantic : CLARIFY_BARS.lexical).option;
      const plausible = ranking.ranked.filter((signals) => signals !== assumed && relevanceOf(signals, ranking) >= bar);
      for (const signals of plausible.slice(0, MAX_COMPETING)) add(signals.entry);
    }
    return [...others.values()].map((entry) => ({ entryId: entry.id, question: entry.question }));
  }

  return {
    competing,
    /** The base's entries for a text, best first (at most `limit`); the exact matches alone when there are. */
    async retrieve(knowledgeBaseId: string, _language: string, text: string, limit = 5): Promise<RetrievedEntry[]> {
      return (await retrieveWithPassages(knowledgeBaseId, text, { entries: limit, passages: 0 })).entries;
    },
    retrieveWithPassages,
  };
}

export type Retriever = ReturnType<typeof createRetriever>;

/** A text of the account ranked like an entry (`rankTexts`): its confidence for the customer's text, 0–1. */
export interface RankedText {
  id: string;
  text: string;
  score: number;
}

/**
 * Short texts that are no knowledge entry (the account's saved replies) ranked for a customer's text the way entries
 * are by words (BM25F over the text as an answer, the base's analyzer, typo correction to their own vocabulary; the
 * lexical answer rule's confidence), those sharing a word only, best first, at most `limit`. No encoder: they have no
 * stored vectors.
 */
export function rankTexts(language: string, texts: readonly { id: string; text: string }[], text: string, limit: number): RankedText[] {
  if (texts.length === 0 || limit === 0 || text.trim() === '') return [];
  const rows: IndexRow[] = texts.map((item) => ({
    id: item.id,
    question: '',
    synonyms: [],
    answer: item.text,
    keys: [],
    updatedAt: new Date(0),
    questionVectors: null,
    answerVector: null,
  }));
  const index = buildIndex(language, rows, undefined, { passages: true });
  const ranking = rankEntries(index, queryText(text), undefined, 'lexical');
  return ranking.ranked
    .filter((signals) => signals.lexical > 0)
    .slice(0, limit)
    .map((signals) => ({ id: signals.entry.id, text: signals.entry.answer, score: confidence(signals, ranking, 'lexical') }));
}
