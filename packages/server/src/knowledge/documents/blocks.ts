// A document's text as blocks, what every reader of a kind makes (document-text.ts, docx-text.ts).
export type Block = { type: 'heading'; level: number; text: string } | { type: 'paragraph'; text: string };

/** Whitespace runs to one space, the ends trimmed. */
export function clean(text: string): string {
  return text.replace(/[\s\u00a0]+/g, ' ').trim();
}
