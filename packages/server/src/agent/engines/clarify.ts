// Clarifying choices of the knowledge-base engine (docs/architecture.md, Clarifying choices): when no entry is sure
// enough to answer but the best candidate is plausible, the engine offers the best distinct answers as numbered
// options and the customer's next message picks one. The options are kept with the agent reply that offered them
// (messages.choices), so the next message is recognised as a pick from the chat's history alone.
import type { RetrievedEntry, RetrievedPassage } from '../../knowledge/retrieval.ts';
import { questionKey } from '../../knowledge/normalize.ts';
import type { StoredChoice, StoredChoices } from '../../db/schema.ts';

/**
 * The lowest relevance (retrieval.ts `RetrievedEntry.relevance`) of the best candidate (an entry or a passage) at
 * which the engine asks instead of falling back, with the encoder and by words alone: the second bar, under the
 * answer rule, fitted with `npm run eval:kb` (docs/decisions.md, "Clarifying choices").
 */
export const CLARIFY_THRESHOLD = 6.75;
export const LEXICAL_CLARIFY_THRESHOLD = 1;

/** A picked passage is sent as its heading and text cut to this many characters, then its document's name. */
export const PASSAGE_REPLY_MAX = 700;

/** A candidate answer: an entry's or a passage's. */
export interface Candidate {
  label: string;
  reply: string;
  entryId: string | null;
  relevance: number;
}

/** The text cut at a word boundary to at most `max` characters (a single longer word is cut where it must). */
export function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max + 1);
  const space = cut.search(/\s\S*$/u);
  return (space > 0 ? cut.slice(0, space) : text.slice(0, max)).trimEnd();
}

function passageHeading(passage: RetrievedPassage): string {
  return passage.headingPath.at(-1)?.trim() || cutAtWord(passage.text.trim().split('\n')[0] ?? '', 80);
}

/** What a pick of the passage sends: its heading and text, at most PASSAGE_REPLY_MAX characters, then ` (<document>)`. */
export function passageReply(passage: RetrievedPassage): string {
  const heading = passage.headingPath.at(-1)?.trim();
  const body = heading && !passage.text.trimStart().startsWith(heading) ? `${heading}\n${passage.text.trim()}` : passage.text.trim();
  return `${cutAtWord(body, PASSAGE_REPLY_MAX)} (${passage.document})`;
}

/** The entries and passages as candidates, best first by relevance. */
export function candidatesOf(entries: readonly RetrievedEntry[], passages: readonly RetrievedPassage[]): Candidate[] {
  const fromEntries = entries.map((entry) => ({ label: entry.question, reply: entry.answer, entryId: entry.id, relevance: entry.relevance }));
  const fromPassages = passages.map((passage) => ({
    label: `${passageHeading(passage)} (${passage.document})`,
    reply: passageReply(passage),
    entryId: null,
    relevance: passage.relevance,
  }));
  return [...fromEntries, ...fromPassages].sort((a, b) => b.relevance - a.relevance);
}

/** At most `max` options with distinct answers (and distinct labels), best first. */
export function optionsOf(candidates: readonly Candidate[], max: number): StoredChoice[] {
  const options: StoredChoice[] = [];
  const answers = new Set<string>();
  const labels = new Set<string>();
  for (const candidate of candidates) {
    if (options.length >= max) break;
    const answer = candidate.reply.trim();
    const label = questionKey(candidate.label);
    if (answers.has(answer) || labels.has(label) || label.length === 0) continue;
    answers.add(answer);
    labels.add(label);
    options.push({ label: candidate.label.trim(), reply: candidate.reply, entryId: candidate.entryId });
  }
  return options;
}

/** The clarification's text: the prompt, `<n>. <label>` per option, then `0. <something else>`. */
export function clarificationText(prompt: string, choices: StoredChoices): string {
  const lines = choices.options.map((option, i) => `${i + 1}. ${option.label}`);
  return [prompt, ...lines, `0. ${choices.other}`].join('\n');
}

/**
 * What the customer's message picks of the offered choices: an option (its number, alone with spaces or punctuation,
 * or its label, case-insensitive), `other` (0 or the last line's text), or undefined (a new question).
 */
export function pickOf(choices: StoredChoices, text: string): StoredChoice | 'other' | undefined {
  const digits = /^[\s\p{P}]*(\d+)[\s\p{P}]*$/u.exec(text);
  if (digits) {
    const n = Number(digits[1]);
    if (n === 0) return 'other';
    return choices.options[n - 1];
  }
  const key = questionKey(text);
  if (key.length === 0) return undefined;
  const matches = (label: string, n: number) => key === questionKey(label) || key === questionKey(`${n}. ${label}`);
  if (matches(choices.other, 0)) return 'other';
  return choices.options.find((option, i) => matches(option.label, i + 1));
}
