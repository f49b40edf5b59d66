// Clarifying choices of the knowledge-base engine (docs/architecture.md, Clarifying choices): when no entry is sure
// enough to answer but the best candidate is plausible, the engine offers the best distinct plausible answers as
// numbered options and the customer's next message picks one. The options are kept with the agent reply that offered
// them (messages.choices), so the next message is recognised as a pick from the chat's history alone.
import type { ClarifyBars, RetrievedEntry, RetrievedPassage } from '../../knowledge/retrieval.ts';
import { questionKey } from '../../knowledge/normalize.ts';
import type { StoredChoice, StoredChoices } from '../../db/schema.ts';
import { cutAtSentence, oneLine, readableText, sentencesOf, shortText } from './passage-text.ts';

/** A picked passage is sent as its heading and text cut to this many characters, then its document's name. */
export const PASSAGE_REPLY_MAX = 700;
/** A passage's label (its heading or first sentence) holds at most this many characters before its document's name. */
export const PASSAGE_LABEL_MAX = 80;

/** A candidate answer: an entry's or a passage's. */
export interface Candidate {
  label: string;
  reply: string;
  entryId: string | null;
  relevance: number;
}

type PassageText = Pick<RetrievedPassage, 'document' | 'headingPath' | 'text'>;

const ITEM = /^(- |\d{1,3}\. )/u;
const CLOSING = /[\s.:;,。]+$/u;

/** The passage's last heading, readable on one line ("" when it has none). */
function headingOf(passage: PassageText): string {
  return oneLine(readableText(passage.headingPath.at(-1) ?? '')).replace(CLOSING, '');
}

/**
 * The passage's text as a title: its first sentence; a list's short items (those that are no sentences) joined with
 * commas, after the sentence that introduces them with a colon; without list markers and closing punctuation.
 */
function firstSentence(text: string): string {
  const readable = readableText(text);
  const lines = readable.split('\n');
  const first = oneLine(sentencesOf(readable)[0] ?? '');
  const intro = ITEM.test(first) ? '' : first.endsWith(':') ? first : undefined;
  if (intro === undefined) return first.replace(CLOSING, '');
  const items: string[] = [];
  for (const line of lines.slice(intro ? 1 : 0)) {
    if (!ITEM.test(line)) break;
    const item = line.replace(ITEM, '');
    // An item that is a sentence of its own ends the list's title (the first item, alone, is the title).
    if (/[.!?。！？]$/u.test(item)) {
      if (items.length === 0 && !intro) items.push(item);
      break;
    }
    items.push(item);
  }
  return `${intro} ${items.map((item) => item.replace(CLOSING, '')).join(', ')}`.trim().replace(CLOSING, '');
}

/**
 * A passage as an option: its heading, else its first sentence (firstSentence), else its document's name without
 * the extension; cut at a clause or a word (shortText) to PASSAGE_LABEL_MAX; then ` (<document>)`.
 */
export function passageLabel(passage: PassageText): string {
  const title = headingOf(passage) || firstSentence(passage.text) || passage.document.replace(/\.[^.]+$/u, '');
  return `${shortText(title, PASSAGE_LABEL_MAX)} (${passage.document})`;
}

/**
 * What a pick of the passage sends: its heading and its text as readable text (readableText), cut at a sentence's
 * end to at most PASSAGE_REPLY_MAX characters, then ` — from <document>`.
 */
export function passageReply(passage: PassageText): string {
  const heading = headingOf(passage);
  const text = readableText(passage.text);
  const titled = heading.length > 0 && text !== heading && !text.startsWith(`${heading}\n`);
  const body = !titled ? cutAtSentence(text, PASSAGE_REPLY_MAX) : text ? `${heading}\n${cutAtSentence(text, PASSAGE_REPLY_MAX - heading.length - 1)}` : heading;
  return `${body} — from ${passage.document}`;
}

/** The entries and passages as candidates, best first by relevance. */
export function candidatesOf(entries: readonly RetrievedEntry[], passages: readonly RetrievedPassage[]): Candidate[] {
  const fromEntries = entries.map((entry) => ({ label: entry.question, reply: entry.answer, entryId: entry.id, relevance: entry.relevance }));
  const fromPassages = passages.map((passage) => ({
    label: passageLabel(passage),
    reply: passageReply(passage),
    entryId: null,
    relevance: passage.relevance,
  }));
  return [...fromEntries, ...fromPassages].sort((a, b) => b.relevance - a.relevance);
}

/**
 * The candidates plausible for the question (retrieval.ts CLARIFY_BARS, the second bar under the answer rule): none
 * unless the best reaches the menu bar, then those that reach the option bar, best first.
 */
export function plausibleCandidates(candidates: readonly Candidate[], bars: ClarifyBars): Candidate[] {
  const best = candidates[0];
  if (!best || best.relevance < bars.menu) return [];
  return candidates.filter((candidate) => candidate.relevance >= bars.option);
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
