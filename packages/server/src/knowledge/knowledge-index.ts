// A knowledge base held in memory for retrieval: each entry's terms per field (question with synonyms, answer),
// the base's statistics (entries, document frequencies, mean length) and vocabulary, and the entries' sentence
// vectors. Built from the stored rows when the base's `entries_version` changes (every entry write bumps it), so
// a question costs no statistics query and no database scan (retrieval.ts). The passages of the base's documents
// are indexed the same way beside the entries (their heading path as the question, their text as the answer),
// with statistics of their own: documents never change how entries rank.
import { analyzerFor, type Analyzer } from './lexicon/analyzer.ts';
import { headingLine } from './documents/passages.ts';
import { questionKey } from './normalize.ts';
import { questionKinds, type QuestionKind } from './question-kinds.ts';
import type { PassageRow } from './documents/passages-store.ts';

export interface IndexRow {
  id: string;
  source?: IndexedEntry['source'];
  question: string;
  synonyms: string[];
  answer: string;
  keys: string[];
  /** The keys of the synonyms the team kept from customers' picks (learned phrasings), absent: none. */
  keptKeys?: string[];
  updatedAt: Date;
  /** Vectors of the question and each synonym, in that order, one after the other (null until computed). */
  questionVectors: number[] | null;
  answerVector: number[] | null;
  /** What computed the vectors (the built-in encoder or a provider's model). */
  vectorsModel?: string | null;
}

export interface IndexedEntry {
  id: string;
  question: string;
  answer: string;
  /** term → occurrences in the question and synonyms */
  asked: Map<string, number>;
  /** term → occurrences in the answer */
  answered: Map<string, number>;
  length: number;
  /** Keys of the synonyms kept from customers' picks: answered directly only while unambiguous (retrieval.ts). */
  keptKeys: ReadonlySet<string>;
  /** What the entry's question and synonyms ask for (a price, a time…: question-kinds.ts); empty for passages. */
  kinds: ReadonlySet<QuestionKind>;
  questionVectors: Float32Array[];
  answerVector: Float32Array | null;
  /**
   * The whole entry's vector: the mean of its question's (and synonyms') vectors plus its answer's, normalized.
   * Built from the stored vectors, not embedded: it ranks paraphrases better than any one of them, about as well
   * as embedding the question and answer as one text (docs/decisions.md, "Knowledge-base retrieval").
   */
  wholeVector: Float32Array | null;
  /** A document passage's source: the document's name and the headings above the passage. */
  source?: { document: string; headingPath: string[] };
}

export interface KnowledgeIndex {
  analyzer: Analyzer;
  /** Entries that answer: of entries asking the same question only the most recently changed (a correction wins). */
  entries: IndexedEntry[];
  /**
   * Normalized question or synonym → the answering entries that have it, the most recently changed first (the exact
   * match; several: a choice between them); an entry asking the same question as a newer one only where no answering
   * entry has the key.
   */
  byKey: Map<string, IndexedEntry[]>;
  /** term → number of answering entries that have it */
  documentFrequency: Map<string, number>;
  meanLength: number;
  /** Words of the base as written → their term: what a misspelled query word is corrected to. */
  vocabulary: Map<string, string>;
  /** Length of the vectors, 0 when no entry has any. */
  dimensions: number;
}

function countTerms(analyzer: Analyzer, text: string, into: Map<string, number>, vocabulary: Map<string, string>): number {
  const words = analyzer.words(text);
  for (const word of words) {
    const term = analyzer.term(word);
    into.set(term, (into.get(term) ?? 0) + 1);
    vocabulary.set(word, term);
  }
  return words.length;
}

function vectors(flat: number[] | null, dimensions: number): Float32Array[] {
  if (!flat || dimensions === 0) return [];
  const result: Float32Array[] = [];
  for (let at = 0; at + dimensions <= flat.length; at += dimensions) result.push(normalized(flat.slice(at, at + dimensions)));
  return result;
}

/** The vector scaled to length 1 (a dot product is then the cosine). */
export function normalized(vector: ArrayLike<number>): Float32Array {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += (vector[i] ?? 0) ** 2;
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  const result = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i++) result[i] = (vector[i] ?? 0) * scale;
  return result;
}

function wholeVector(questionVectors: readonly Float32Array[], answerVector: Float32Array | null): Float32Array | null {
  if (!answerVector || questionVectors.length === 0) return null;
  const sum = Float32Array.from(answerVector);
  for (const vector of questionVectors) for (let i = 0; i < sum.length; i++) sum[i] = (sum[i] ?? 0) + (vector[i] ?? 0) / questionVectors.length;
  return normalized(sum);
}

/** A document passage as a row of the index (`buildIndex(…, { passages: true })`). */
export function passageIndexRow(row: PassageRow): IndexRow {
  const source = { document: row.documentName, headingPath: row.headingPath };
  return {
    id: row.id,
    source,
    question: headingLine(source),
    synonyms: [],
    answer: row.text,
    keys: [],
    updatedAt: new Date(0),
    questionVectors: row.headingVector,
    answerVector: row.textVector,
    vectorsModel: row.vectorsModel,
  };
}

/**
 * The index of a base's rows. With `model`, only vectors that model computed are kept (the base's provider changed
 * and its entries are being embedded again): vectors of different models are never compared. With `passages`, the
 * rows are document passages: no exact match, and passages under the same headings are all kept.
 */
export function buildIndex(language: string, rows: readonly IndexRow[], model?: string, options: { passages?: boolean } = {}): KnowledgeIndex {
  const analyzer = analyzerFor(language);
  const newest = (a: IndexRow, b: IndexRow) => b.updatedAt.getTime() - a.updatedAt.getTime() || (a.id < b.id ? 1 : -1);
  const current = (row: IndexRow): IndexRow =>
    model === undefined || row.vectorsModel === model ? row : { ...row, questionVectors: null, answerVector: null };
  const ordered = rows.map(current).sort(newest);
  const dimensions = ordered.find((row) => row.answerVector)?.answerVector?.length ?? 0;
  const vocabulary = new Map<string, string>();
  const byKey = new Map<string, IndexedEntry[]>();
  const superseded: { keys: readonly string[]; entry: IndexedEntry }[] = [];
  const questionsSeen = new Set<string>();
  const entries: IndexedEntry[] = [];
  const documentFrequency = new Map<string, number>();
  let totalLength = 0;
  for (const row of ordered) {
    const asked = new Map<string, number>();
    const answered = new Map<string, number>();
    let length = countTerms(analyzer, [row.question, ...row.synonyms].join('\n'), asked, vocabulary);
    length += countTerms(analyzer, row.answer, answered, vocabulary);
    const questionVectors = vectors(row.questionVectors, dimensions);
    const answerVector = row.answerVector && row.answerVector.length === dimensions ? normalized(row.answerVector) : null;
    const entry: IndexedEntry = {
      ...(row.source ? { source: row.source } : {}),
      id: row.id,
      question: row.question,
      answer: row.answer,
      asked,
      answered,
      length,
      keptKeys: new Set(row.keptKeys ?? []),
      kinds: options.passages ? new Set() : questionKinds([row.question, ...row.synonyms].join('\n'), analyzer.english),
      questionVectors,
      answerVector,
      wholeVector: wholeVector(questionVectors, answerVector),
    };
    if (!options.passages) {
      const question = row.keys[0] ?? questionKey(row.question);
      if (questionsSeen.has(question)) {
        superseded.push({ keys: row.keys, entry });
        continue;
      }
      questionsSeen.add(question);
      for (const key of row.keys) byKey.set(key, [...(byKey.get(key) ?? []), entry]);
    }
    entries.push(entry);
    totalLength += length;
    for (const term of new Set([...asked.keys(), ...answered.keys()])) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  }
  for (const { keys, entry } of superseded) for (const key of keys) if (!byKey.has(key)) byKey.set(key, [entry]);
  return { analyzer, entries, byKey, documentFrequency, meanLength: entries.length ? totalLength / entries.length : 0, vocabulary, dimensions };
}
