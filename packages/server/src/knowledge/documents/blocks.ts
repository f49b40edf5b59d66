// A document's text as blocks, what every reader of a kind makes (document-text.ts, docx-text.ts), and the limits
// the readers share.
import { DocumentError } from './document-error.ts';

export type Block = { type: 'heading'; level: number; text: string } | { type: 'paragraph'; text: string };

/** Whitespace runs to one space, the ends trimmed. */
export function clean(text: string): string {
  return text.replace(/[\s\u00a0]+/g, ' ').trim();
}

/** The most text kept from one document, in characters: twice what its 2,000 passages can hold. */
export const MAX_DOCUMENT_CHARS = 5_000_000;

/** The document's text passed MAX_DOCUMENT_CHARS. */
export function tooLong(): DocumentError {
  return new DocumentError(`The document is too long: its text passes ${MAX_DOCUMENT_CHARS.toLocaleString('en')} characters, the limit; split it into smaller files.`, { limit: true });
}

/**
 * Elements open at once past which a page or a Word document's XML fails: htmlparser2 keeps the open elements in an
 * array it shifts at each new one, so its time grows with the square of the depth (2 MB of nested `<div>`: a
 * minute), and no real document nests this deep (browsers stop nesting at 512).
 */
export const MAX_MARKUP_DEPTH = 1_000;

/**
 * Counts the elements open in htmlparser2's Parser from its handlers (it reports every open and close, implied ones
 * included); `open()` throws `what … nests more than 1,000 levels deep` past MAX_MARKUP_DEPTH.
 */
export function markupDepth(what: string) {
  let depth = 0;
  return {
    open(): void {
      depth += 1;
      if (depth > MAX_MARKUP_DEPTH) {
        throw new DocumentError(`${what} nests more than ${MAX_MARKUP_DEPTH.toLocaleString('en')} levels deep, the limit; it may be damaged.`, { limit: true });
      }
    },
    close(): void {
      depth = Math.max(0, depth - 1);
    },
  };
}
