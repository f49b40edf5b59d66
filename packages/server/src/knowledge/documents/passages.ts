// A document's blocks split along its headings into passages of bounded size, each with the path of headings above
// it (outermost first) as its context: what retrieval ranks and the model is given (docs/decisions.md, "Documents").
import { DocumentError } from './document-error.ts';
import type { Block } from './document-text.ts';

export interface Passage {
  headingPath: string[];
  text: string;
}

/** A passage's headings as one line (its document's name without one): the question it answers, as far as it says. */
export function headingLine(source: { document: string; headingPath: readonly string[] }): string {
  return source.headingPath.length > 0 ? source.headingPath.join(' › ') : source.document.replace(/\.[^.]+$/, '');
}

/** A passage holds at most this many characters: a few paragraphs, a screenful for the model. */
export const PASSAGE_MAX_CHARS = 1_200;
/** More passages than this (about 2 MB of text) is more than one document should be: the owner splits it. */
export const MAX_PASSAGES = 2_000;
/** Headings are context, not text: each at most this long, at most this deep. */
const HEADING_MAX_CHARS = 200;
const HEADING_DEPTH = 6;

/** Pieces of a paragraph longer than `max`: at sentence ends, else at spaces, else anywhere. */
function pieces(text: string, max: number): string[] {
  if (text.length <= max) return [text];
  const out: string[] = [];
  let current = '';
  const push = (piece: string) => {
    if (current && current.length + 1 + piece.length > max) {
      out.push(current);
      current = '';
    }
    current = current ? `${current} ${piece}` : piece;
  };
  for (const sentence of text.split(/(?<=[.!?。])\s+/)) {
    if (sentence.length <= max) {
      push(sentence);
      continue;
    }
    for (const word of sentence.split(/\s+/)) {
      for (let at = 0; at < word.length; at += max) push(word.slice(at, at + max));
    }
  }
  if (current) out.push(current);
  return out;
}

export function splitPassages(blocks: readonly Block[], max = PASSAGE_MAX_CHARS): Passage[] {
  const passages: Passage[] = [];
  const headings: { level: number; text: string }[] = [];
  let parts: string[] = [];
  let size = 0;
  const flush = () => {
    if (parts.length === 0) return;
    if (passages.length === MAX_PASSAGES) {
      throw new DocumentError(`The document is too long: it makes more than ${MAX_PASSAGES.toLocaleString('en')} passages; split it into smaller files.`, { limit: true });
    }
    passages.push({ headingPath: headings.map((heading) => heading.text), text: parts.join('\n\n') });
    parts = [];
    size = 0;
  };
  for (const block of blocks) {
    if (block.type === 'heading') {
      flush();
      while (headings.length > 0 && (headings.at(-1)?.level ?? 0) >= block.level) headings.pop();
      if (headings.length < HEADING_DEPTH) headings.push({ level: block.level, text: block.text.slice(0, HEADING_MAX_CHARS) });
      continue;
    }
    for (const piece of pieces(block.text, max)) {
      if (size > 0 && size + 2 + piece.length > max) flush();
      parts.push(piece);
      size += (size > 0 ? 2 : 0) + piece.length;
    }
  }
  flush();
  if (passages.length === 0) throw new DocumentError('The document has no text to read: it is empty, or holds only headings.');
  return passages;
}
