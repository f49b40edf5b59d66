// A document passage as a customer reads it (clarify.ts: a passage's label, what a pick of it sends): its text with
// no Markdown or HTML left in it, its sentences (Intl.Segmenter's, with abbreviations such as "e.g." and "No. 5"
// kept inside one), and cuts that never end mid-word: at a sentence's end, else at a clause's, else at a word's.
import { createRequire } from 'node:module';
import type * as Entities from 'entities';

/** The HTML entity decoder, loaded on the first document passage shown (not at start: ~0.6 MB of tables). */
let entities: typeof Entities | undefined;
const decodeHTML = (text: string): string => {
  entities ??= createRequire(import.meta.url)('entities') as typeof Entities;
  return entities.decodeHTML(text);
};

const SENTENCES = new Intl.Segmenter('en', { granularity: 'sentence' });
const WORDS = new Intl.Segmenter('en', { granularity: 'word' });

/** Abbreviations (lower case, without their dot) that a sentence goes on after whatever follows them. */
const ABBREVIATIONS = new Set([
  'mr', 'mrs', 'ms', 'dr', 'prof', 'st', 'vs', 'cf', 'incl', 'excl', 'dept', 'approx', 'resp', 'mme', 'mlle', 'hr', 'bzw', 'sr', 'sra', 'srta',
  'ул', 'пр', 'проф', 'г', 'им', 'тел',
]);
/** Abbreviations that a number follows ("No. 5", "art. 12", "Jan. 3"): the sentence goes on only before a digit. */
const BEFORE_NUMBERS = new Set([
  'no', 'nos', 'nr', 'art', 'fig', 'vol', 'ch', 'sec', 'p', 'pp', 'tel', 'ext', 'apt', 'min', 'max', 'ca', 'env', 'núm', 'pág',
  'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec', 'стр', 'д', 'рис', 'п',
]);

/** Does the sentence Intl.Segmenter ended here go on in `next` (it ended at an abbreviation or an initial)? */
function goesOn(sentence: string, next: string): boolean {
  if (/\n\s*$/u.test(sentence)) return false;
  // A numbered list item's number ("1. Pack the item.").
  if (/(?:^|\n)\s*\d{1,3}\.\s*$/u.test(sentence)) return true;
  const word = /(?:^|[\s([{"'«“‘])([\p{L}.]+)\.\s*$/u.exec(sentence)?.[1];
  if (!word) return false;
  // Dotted ("e.g.", "i.e.", "z.B.", "т.е."), or one capital letter: an initial ("J. Smith").
  if (word.includes('.') || /^\p{Lu}$/u.test(word)) return true;
  const lower = word.toLowerCase();
  return ABBREVIATIONS.has(lower) || (BEFORE_NUMBERS.has(lower) && /^\s*[\d#№]/u.test(next));
}

/** The text's sentences, each with the spaces after it (they join back into the text); a line's end ends one. */
export function sentencesOf(text: string): string[] {
  const out: string[] = [];
  for (const { segment } of SENTENCES.segment(text)) {
    const last = out.at(-1);
    if (last !== undefined && goesOn(last, segment)) out[out.length - 1] = last + segment;
    else out.push(segment);
  }
  return out;
}

/** Scripts written without spaces between words: a cut may fall between any two of their words. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

/** Punctuation that would dangle at the end of a cut: a comma, an opening bracket or quote, a dash. */
const DANGLING = /[\s,;:、，；：([{"'«“‘\-–—/]+$/u;

/**
 * The text cut at a word's end to at most `max` characters (a space, or between two words of a script written
 * without spaces; a URL is one word), without punctuation left dangling; a single longer word is cut where it must.
 */
export function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = 0;
  for (const { index } of WORDS.segment(text)) {
    if (index > max) break;
    const before = text[index - 1] ?? '';
    const after = text[index] ?? '';
    if (index > 0 && (/\s/u.test(before) || /\s/u.test(after) || UNSPACED.test(before) || UNSPACED.test(after))) cut = index;
  }
  const kept = text.slice(0, cut).replace(DANGLING, '');
  return kept.length > 0 ? kept : text.slice(0, max);
}

/** Where a clause ends: a comma, semicolon or colon before a space (not "1,000" or "10:00"), a dash, CJK's own. */
const CLAUSE_END = /[,;:](?=\s)|\s[-–—](?=\s)|—|[、，；：]/gu;

/**
 * The text as it is when it fits in `max` characters, else cut at the last clause's end that keeps at least a
 * quarter of it, else at a word's end, and an ellipsis (within `max`).
 */
export function shortText(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = max - 1;
  let clause = -1;
  for (const match of text.matchAll(CLAUSE_END)) {
    if (match.index > room) break;
    if (match.index >= max / 4) clause = match.index;
  }
  const kept = clause > 0 ? text.slice(0, clause).replace(DANGLING, '') : cutAtWord(text, room);
  return `${kept}…`;
}

/**
 * Whole sentences of the text within `max` characters; when the first is longer, it is cut as `shortText` cuts
 * (at a clause, else a word, with an ellipsis).
 */
export function cutAtSentence(text: string, max: number): string {
  if (text.length <= max) return text;
  let kept = '';
  for (const sentence of sentencesOf(text)) {
    if ((kept + sentence).trimEnd().length > max) break;
    kept += sentence;
  }
  if (kept.trim().length > 0) return kept.trimEnd();
  return shortText(oneLine(sentencesOf(text)[0] ?? text), max);
}

/** The text on one line: line ends and runs of spaces to one space. */
export function oneLine(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}

const BULLET = /^[-*+•·▪◦●‣⁃]\s+/u;
const NUMBERED = /^(\d{1,3})[.)]\s+/u;
/** A list item's or a table row's line: kept on its own line. */
const isItem = (line: string) => /^(- |\d{1,3}\. )/u.test(line) || line.includes(' | ');

/** One line's Markdown without its marks: links as their text (and address), emphasis and code as their text. */
function inlineText(line: string): string {
  return (
    line
      // Images: their alt text. Links: their text, then an address a customer can open.
      .replace(/!\[([^\]]*)\]\([^)]*\)/gu, '$1')
      .replace(/\[([^\]]+)\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/gu, (_, label: string, url: string) => {
        const address = url.replace(/^mailto:/iu, '');
        if (!/^(https?:\/\/|mailto:|tel:)/iu.test(url) || label === address || label === url) return label;
        return `${label} (${address})`;
      })
      .replace(/`+([^`]+?)`+/gu, '$1')
      .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/gu, '$2')
      .replace(/~~(?=\S)(.+?)(?<=\S)~~/gu, '$1')
      // Single marks only around words: "5 * 3" and snake_case stay.
      .replace(/(^|[^\p{L}\p{N}*])\*(?=\S)([^*]+?)(?<=\S)\*(?![\p{L}\p{N}*])/gu, '$1$2')
      .replace(/(^|[^\p{L}\p{N}_])_(?=\S)([^_]+?)(?<=\S)_(?![\p{L}\p{N}_])/gu, '$1$2')
  );
}

/** Markdown's escapes (`\*`) as private-use characters while marks are read, so an escaped mark is text. */
const ESCAPED = /\\([\\`*_{}[\]()#+\-.!|>~])/gu;
const hide = (line: string) => line.replace(ESCAPED, (_, char: string) => String.fromCharCode(0xe000 + char.charCodeAt(0)));
const reveal = (line: string) => line.replace(/[\ue000-\ue07f]/gu, (char) => String.fromCharCode(char.charCodeAt(0) - 0xe000));

/**
 * The text as a customer reads it in a chat: HTML tags and Markdown marks gone (headings' `#`, quotes' `>`, rules,
 * fences, emphasis, links as their text and address), entities decoded, bullets as `- ` on their own lines, a line
 * wrapped mid-sentence joined back, runs of spaces to one, at most one blank line between paragraphs.
 */
export function readableText(text: string): string {
  const unmarked = decodeHTML(
    text
      .replace(/\r\n?/gu, '\n')
      .replace(/<!--[\s\S]*?-->/gu, '')
      .replace(/<((?:https?|mailto):[^<>\s]+)>/giu, '$1')
      .replace(/<li\b[^<>]*>/giu, '\n- ')
      .replace(/<(?:br|\/?(?:p|div|ul|ol|li|h[1-6]|tr|table|section|article|blockquote|pre))\b[^<>]*>/giu, '\n')
      .replace(/<\/?[a-z][a-z0-9-]*(?:\s[^<>]*)?\/?>/giu, ''),
  )
    // Bullets a PDF's lines were joined around ("we take: • cards • cash"): one item a line.
    .replace(/[^\S\n]+[•▪◦●‣](?=[^\S\n])/gu, '\n-');
  const lines: string[] = [];
  for (const raw of unmarked.split('\n')) {
    if (/^\s*(```|~~~)/u.test(raw) || /^\s*([-*_=])(\s*\1){2,}\s*$/u.test(raw) || /^\s*\|?(\s*:?-{3,}:?\s*\|)+\s*(:?-{3,}:?)?\s*\|?\s*$/u.test(raw)) continue;
    let line = hide(raw)
      .replace(/[\u200b-\u200d\ufeff]/gu, '')
      .replace(/[^\S\n]+/gu, ' ')
      .trim()
      .replace(/^(>\s?)+/u, '')
      .replace(/^#{1,6}\s+(.*?)(\s+#+)?$/u, '$1');
    line = line.replace(BULLET, '- ').replace(NUMBERED, '$1. ');
    if (line.startsWith('|') && line.endsWith('|') && line.length > 1) line = line.slice(1, -1).trim();
    line = reveal(inlineText(line)).replace(/ {2,}/gu, ' ').trim();
    const previous = lines.at(-1);
    // A line that goes on in lower case continues the sentence before it (text wrapped at a fixed width).
    if (previous && line && /^\p{Ll}/u.test(line) && !isItem(previous) && !/[.!?:。！？]$/u.test(previous)) {
      lines[lines.length - 1] = `${previous} ${line}`;
      continue;
    }
    // A blank line between two list items is no paragraph break.
    if (line === '' && (previous === undefined || previous === '')) continue;
    if (line !== '' && previous === '' && isItem(line) && isItem(lines.at(-2) ?? '')) lines.pop();
    lines.push(line);
  }
  while (lines.at(-1) === '') lines.pop();
  return lines.join('\n');
}
