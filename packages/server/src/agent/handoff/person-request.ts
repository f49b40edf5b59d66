// Does a customer message ask for a person? (docs/architecture.md, Handoff to the team: both engines, in the channel's
// language; this wins over every other rule.) The phrase lists are data (person-request-phrases.ts); text and
// phrases are normalised like the knowledge base's questions (knowledge/normalize.ts: case, punctuation, spacing)
// and accents are folded, so "Opérateur !" and "operateur" are the same word.
import { questionKey } from '../../knowledge/normalize.ts';
import { MAX_GAP, PERSON_REQUEST_PHRASES, type PersonRequestLanguage } from './person-request-phrases.ts';

/** Longer messages are read up to here: a request for a person is said early and briefly. */
const MAX_WORDS = 400;

/** The words of a text as the phrases are compared with them. */
export function requestWords(text: string): string[] {
  const key = questionKey(text).normalize('NFD').replace(/\p{M}+/gu, '');
  return key.length === 0 ? [] : key.split(' ').slice(0, MAX_WORDS);
}

interface CompiledRule {
  slots: string[][][];
  unlessFollowedBy: Set<string>;
}
interface CompiledLanguage {
  fillers: Set<string>;
  rules: CompiledRule[];
}

function compile(language: PersonRequestLanguage): CompiledLanguage {
  const words = (phrase: string) => requestWords(phrase);
  return {
    fillers: new Set(language.fillers.flatMap(words)),
    rules: language.rules.map((rule) => ({
      slots: rule.slots.map((slot) => slot.map(words).filter((phrase) => phrase.length > 0)),
      unlessFollowedBy: new Set((rule.unlessFollowedBy ?? []).flatMap(words)),
    })),
  };
}

const COMPILED = new Map(Object.entries(PERSON_REQUEST_PHRASES).map(([lang, language]) => [lang, compile(language)]));

function startsAt(words: readonly string[], at: number, phrase: readonly string[]): boolean {
  return phrase.every((word, i) => words[at + i] === word);
}

/** Whether slots `slot…` of the rule match from `at` on (the first of them exactly at `at`). */
function matchFrom(words: readonly string[], at: number, rule: CompiledRule, slot: number, fillers: Set<string>): boolean {
  for (const phrase of rule.slots[slot] ?? []) {
    if (!startsAt(words, at, phrase)) continue;
    const next = at + phrase.length;
    if (slot === rule.slots.length - 1) {
      const following = words[next];
      if (following === undefined || !rule.unlessFollowedBy.has(following)) return true;
      continue;
    }
    for (let gap = 0; gap <= MAX_GAP && next + gap <= words.length; gap += 1) {
      if (gap > 0 && !fillers.has(words[next + gap - 1] ?? '')) break;
      if (matchFrom(words, next + gap, rule, slot + 1, fillers)) return true;
    }
  }
  return false;
}

function matches(words: readonly string[], language: CompiledLanguage): boolean {
  return language.rules.some((rule) => words.some((_, at) => matchFrom(words, at, rule, 0, language.fillers)));
}

/** The languages whose phrases are checked for a channel: its `aiLang` and English (many customers write English). */
export function requestLanguages(aiLang: string): string[] {
  const primary = aiLang.toLowerCase().split('-')[0] ?? 'en';
  return [...new Set([primary, 'en'])].filter((lang) => COMPILED.has(lang));
}

/** True when the text asks for a person in the channel's language (or English). */
export function asksForPerson(text: string, aiLang: string): boolean {
  const words = requestWords(text);
  if (words.length === 0) return false;
  return requestLanguages(aiLang).some((lang) => matches(words, COMPILED.get(lang) as CompiledLanguage));
}
