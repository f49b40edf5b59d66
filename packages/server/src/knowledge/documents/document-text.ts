// A document's text as blocks (headings with their level, paragraphs), from the bytes of each accepted kind. The
// bytes decide what a file is: one whose content is not what its name says fails with a sentence saying what it
// is. Runs in the parser's worker thread (document-parser.ts), never on the server's event loop.
//   PDF: pdfjs-dist's text layer, once its streams were found to inflate within their limits (pdf-limits.ts); headings are lines set larger than the body text (PDFs rarely say which are).
//   DOCX: its XML streamed (docx-text.ts), every inflated byte counted; Word's Heading styles are headings.
//   Markdown: markdown-it's tokens (ATX and setext headings, lists, tables, code, quotes), read in one loop: quotes
//   and lists nested past MAX_MARKDOWN_DEPTH fail the document.
//   HTML: htmlparser2's events (h1–h6; script, style and the like skipped); nested past MAX_MARKUP_DEPTH, it fails.
// Nothing here recurses on the document's nesting: a file nested 100,000 deep fails with a sentence in milliseconds.
//   Plain text: paragraphs at blank lines; a short line standing alone without closing punctuation is a heading.
import type { DocumentKind } from '@parley/contracts';
import { fileTypeFromBuffer } from 'file-type';
import { Parser } from 'htmlparser2';
import MarkdownIt, { type Token } from 'markdown-it';
import { clean, markupDepth, MAX_DOCUMENT_CHARS, tooLong, type Block } from './blocks.ts';
import { DocumentError } from './document-error.ts';
import { docxBlocks } from './docx-text.ts';
import { checkPdfLimits, MAX_PDF_PAGES } from './pdf-limits.ts';

export { clean, type Block };

/** The document cannot be used; `message` is the sentence shown to its owner. */
export { DocumentError };

const KIND_NAMES: Record<DocumentKind, string> = {
  pdf: 'a PDF',
  docx: 'a Word document (DOCX)',
  markdown: 'a Markdown file',
  text: 'a text file',
  html: 'an HTML page',
};

/** What file-type found, in words. */
function describe(ext: string, mime: string): string {
  if (ext === 'pdf') return 'a PDF';
  if (ext === 'docx') return 'a Word document (DOCX)';
  if (ext === 'doc' || ext === 'cfb') return 'an older Office document (DOC or XLS), which is not accepted';
  if (mime.startsWith('image/')) return `an image (${ext.toUpperCase()})`;
  if (mime.startsWith('audio/')) return `audio (${ext.toUpperCase()})`;
  if (mime.startsWith('video/')) return `a video (${ext.toUpperCase()})`;
  if (ext === 'zip') return 'a ZIP archive';
  return `a ${ext.toUpperCase()} file`;
}

/** The blocks of a file claimed to be `kind`; DocumentError when it is not that, or cannot be read. */
export async function documentBlocks(bytes: Uint8Array, kind: DocumentKind): Promise<Block[]> {
  if (bytes.length === 0) throw new DocumentError('The file is empty.');
  // Text in UTF-16 with its byte order mark: file-type would take the mark for an MPEG audio frame.
  const utf16 = utf16Encoding(bytes);
  let found: { ext: string; mime: string } | undefined;
  try {
    found = utf16 ? undefined : await fileTypeFromBuffer(bytes);
  } catch {
    found = undefined;
  }
  const claimed = KIND_NAMES[kind];
  if (kind === 'pdf' || kind === 'docx') {
    if (found?.ext !== kind) {
      const what = found ? describe(found.ext, found.mime) : utf16 || looksLikeText(bytes) ? 'text' : 'not a format Parley reads';
      throw new DocumentError(`The file is named as ${claimed}, but its content is ${what}.`);
    }
    return kind === 'pdf' ? pdfBlocks(bytes) : docxBlocks(bytes);
  }
  // Markdown, text and HTML are text: a file with a binary signature, or not UTF-8, is not one of them.
  if (found && !['xml', 'html'].includes(found.ext)) {
    throw new DocumentError(`The file is named as ${claimed}, but its content is ${describe(found.ext, found.mime)}.`);
  }
  const text = decodeText(bytes, claimed, utf16);
  // A page's markup is not its text (its text is counted as it is read); Markdown's and plain text's nearly all is.
  if (kind !== 'html' && text.length > MAX_DOCUMENT_CHARS) throw tooLong();
  if (kind === 'markdown') return markdownBlocks(text);
  if (kind === 'html') return htmlBlocks(text);
  return textBlocks(text);
}

function looksLikeText(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, 4096));
    return true;
  } catch {
    return false;
  }
}

/** UTF-16 when the bytes start with its byte order mark (FF FE little-endian, FE FF big-endian). */
function utf16Encoding(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return undefined;
}

/**
 * UTF-8, or UTF-16 that starts with its byte order mark (the mark is dropped), without NUL or other control
 * characters but tab, line ends and form feed.
 */
function decodeText(bytes: Uint8Array, claimed: string, utf16: 'utf-16le' | 'utf-16be' | undefined): string {
  let text: string;
  try {
    text = new TextDecoder(utf16 ?? 'utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    if (utf16) throw new DocumentError(`The file is named as ${claimed}, but its content is not valid UTF-16 text; save it as UTF-8 and upload it again.`);
    throw new DocumentError(`The file is named as ${claimed}, but its content is not UTF-8 text; save it as UTF-8 and upload it again.`);
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b\u000e-\u001f\u007f]/.test(text)) {
    throw new DocumentError(`The file is named as ${claimed}, but its content is binary data, not text.`);
  }
  return text;
}

// --- PDF -----------------------------------------------------------------------------------------------------

interface PdfLine {
  text: string;
  size: number;
  /** Baseline, from the page's bottom. */
  y: number;
  page: number;
}

/** A line this much larger than the body text is a heading; so is one in bold-face size steps above it. */
const HEADING_SCALE = 1.15;
const HEADING_MAX_CHARS = 150;

async function pdfBlocks(bytes: Uint8Array): Promise<Block[]> {
  await checkPdfLimits(bytes);
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  // Copied: pdf.js takes over (detaches) the buffer it is given.
  const task = getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, disableFontFace: true, verbosity: 0 });
  let pdf;
  try {
    pdf = await task.promise;
  } catch (error) {
    const name = (error as Error | undefined)?.name;
    if (name === 'PasswordException') {
      throw new DocumentError('The PDF is encrypted (it needs a password to open); upload a copy saved without a password.');
    }
    if (name === 'InvalidPDFException') throw new DocumentError('The PDF is damaged: its structure cannot be read.');
    throw new DocumentError(`The PDF cannot be read (${clean((error as Error | undefined)?.message ?? String(error)).slice(0, 200)}).`);
  }
  try {
    if (pdf.numPages > MAX_PDF_PAGES) {
      throw new DocumentError(`The PDF has more than ${MAX_PDF_PAGES.toLocaleString('en')} pages, the limit; split it into smaller files.`, { limit: true });
    }
    const lines: PdfLine[] = [];
    for (let number = 1; number <= pdf.numPages; number++) {
      const page = await pdf.getPage(number);
      const content = await page.getTextContent();
      let current: PdfLine | undefined;
      for (const item of content.items) {
        if (!('str' in item)) continue;
        const [a = 0, b = 0, , , , y = 0] = item.transform as number[];
        const size = Math.round(Math.hypot(a, b) * 10) / 10;
        // A new line where the baseline moves, or after an end of line.
        if (current && (Math.abs(current.y - y) > Math.max(size, current.size) * 0.5 || current.text.length === 0)) {
          if (current.text.trim()) lines.push(current);
          current = undefined;
        }
        if (item.str) {
          if (!current) current = { text: item.str, size, y, page: number };
          else {
            current.text += item.str;
            current.size = Math.max(current.size, size);
          }
        }
        if (item.hasEOL && current) {
          if (current.text.trim()) lines.push(current);
          current = undefined;
        }
      }
      if (current?.text.trim()) lines.push(current);
      page.cleanup();
    }
    if (lines.length === 0) {
      throw new DocumentError('The PDF has no text to read: it is empty, or its pages are scanned images without a text layer.');
    }
    return pdfLinesToBlocks(lines);
  } finally {
    await pdf.destroy();
  }
}

/** The body size is the one most characters are set in; larger short lines are headings, a level per size. */
function pdfLinesToBlocks(lines: PdfLine[]): Block[] {
  const characters = new Map<number, number>();
  for (const line of lines) characters.set(line.size, (characters.get(line.size) ?? 0) + line.text.length);
  const body = [...characters].sort((x, y) => y[1] - x[1] || x[0] - y[0])[0]?.[0] ?? 0;
  const isHeading = (line: PdfLine) => line.size >= body * HEADING_SCALE && clean(line.text).length <= HEADING_MAX_CHARS;
  const headingSizes = [...new Set(lines.filter(isHeading).map((line) => line.size))].sort((x, y) => y - x);
  const levelOf = (size: number) => Math.min(headingSizes.indexOf(size) + 1, 6);
  const blocks: Block[] = [];
  let paragraph: string[] = [];
  let previous: PdfLine | undefined;
  const flush = () => {
    const text = clean(paragraph.join(' '));
    if (text) blocks.push({ type: 'paragraph', text });
    paragraph = [];
  };
  for (const line of lines) {
    if (isHeading(line)) {
      flush();
      const last = blocks.at(-1);
      // A heading wrapped onto two lines: one heading.
      if (last?.type === 'heading' && previous && isHeading(previous) && previous.size === line.size && previous.page === line.page) {
        last.text = clean(`${last.text} ${line.text}`);
      } else {
        blocks.push({ type: 'heading', level: levelOf(line.size), text: clean(line.text) });
      }
    } else {
      // A gap wider than a blank line between two lines of the body ends a paragraph.
      if (previous && !isHeading(previous) && (previous.page !== line.page || previous.y - line.y > line.size * 1.9)) flush();
      paragraph.push(line.text);
    }
    previous = line;
  }
  flush();
  return blocks;
}

// --- HTML ----------------------------------------------------------------------------------------------------

/** Elements whose content is no text of the page (a site's navigation included). */
const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'head', 'title', 'iframe', 'object', 'select', 'button', 'nav']);
/** Elements that end a paragraph where they open and close. */
const BREAKS = new Set([
  'p', 'div', 'li', 'ul', 'ol', 'dl', 'dt', 'dd', 'tr', 'table', 'section', 'article', 'main', 'aside', 'header', 'footer', 'nav',
  'blockquote', 'pre', 'figure', 'figcaption', 'details', 'summary', 'form', 'fieldset', 'hr', 'br', 'address', 'caption', 'body', 'html',
]);
const CELLS = new Set(['td', 'th']);

/** `what`: how the sentence of a page nested too deep names it. */
export function htmlBlocks(html: string, what = 'The HTML page'): Block[] {
  const blocks: Block[] = [];
  const depth = markupDepth(what);
  let text = '';
  let characters = 0;
  let heading: number | undefined;
  let skipping = 0;
  const flush = () => {
    const value = clean(text);
    text = '';
    if (!value) return;
    if (heading !== undefined) blocks.push({ type: 'heading', level: heading, text: value });
    else blocks.push({ type: 'paragraph', text: value });
  };
  const parser = new Parser(
    {
      onopentag(name) {
        depth.open();
        if (SKIPPED.has(name)) skipping += 1;
        if (skipping > 0) return;
        const level = /^h([1-6])$/.exec(name)?.[1];
        if (level) {
          flush();
          heading = Number(level);
        } else if (BREAKS.has(name)) {
          // A heading never spans a block: what follows it is body text.
          if (heading === undefined) flush();
        } else if (CELLS.has(name)) {
          text += ' | ';
        }
      },
      ontext(data) {
        if (skipping > 0) return;
        characters += data.length;
        if (characters > MAX_DOCUMENT_CHARS) throw tooLong();
        text += data;
      },
      onclosetag(name) {
        depth.close();
        if (SKIPPED.has(name)) {
          skipping = Math.max(0, skipping - 1);
          return;
        }
        if (skipping > 0) return;
        if (/^h[1-6]$/.test(name)) {
          flush();
          heading = undefined;
        } else if (BREAKS.has(name) && heading === undefined) {
          flush();
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.end(html);
  flush();
  return blocks;
}

// --- Markdown ------------------------------------------------------------------------------------------------

/**
 * Quotes and list items inside one another past this fail the document: markdown-it stops nesting at 100 levels of
 * its own (a list item is two) and drops what is deeper, so a deeper file is refused rather than read in part.
 */
export const MAX_MARKDOWN_DEPTH = 32;

// CommonMark with GFM tables and strikethrough; raw HTML kept as tokens (read as HTML), no typography, no linkify.
const markdown = new MarkdownIt('default', { html: true });

/** The plain text of an inline token's children: emphasis, links and code keep their words; images their alt text. */
function inlineText(children: readonly Token[] | null): string {
  let text = '';
  for (const token of children ?? []) {
    if (token.type === 'text' || token.type === 'code_inline') text += token.content;
    else if (token.type === 'softbreak' || token.type === 'hardbreak') text += ' ';
    // An image's alt text is its children (text, code), one level: no recursion.
    else if (token.type === 'image') text += (token.children ?? []).map((child) => (child.type === 'text' || child.type === 'code_inline' ? child.content : '')).join('');
    // Inline HTML tokens are single tags: no text, but a line break parts words.
    else if (token.type === 'html_inline' && /^<br\b/i.test(token.content)) text += ' ';
  }
  return text;
}

/**
 * markdown-it's tokens are a flat list (opening and closing tokens around what they hold), read here in one loop:
 * headings and paragraphs are blocks; a list, nested lists in it, is one paragraph with a line per item; a table one
 * paragraph with a line per row, its cells joined with ` | `; code a paragraph as written; a quote's blocks are
 * blocks; raw HTML is read as a page.
 */
export function markdownBlocks(source: string): Block[] {
  const blocks: Block[] = [];
  let depth = 0;
  /** Inside a list: the outermost list's items, each the texts it holds so far. */
  let items: string[][] | undefined;
  let lists = 0;
  let heading: number | undefined;
  let rows: string[] | undefined;
  let cells: string[] = [];
  let inCell = false;
  const add = (block: Block) => {
    if (items) items.at(-1)?.push(block.text);
    else blocks.push(block);
  };
  const nest = () => {
    depth += 1;
    if (depth > MAX_MARKDOWN_DEPTH) {
      throw new DocumentError(`The Markdown file nests quotes or lists more than ${MAX_MARKDOWN_DEPTH} levels deep, the limit; it may be damaged.`, { limit: true });
    }
  };
  for (const token of markdown.parse(source, {})) {
    switch (token.type) {
      case 'blockquote_open':
        nest();
        break;
      case 'blockquote_close':
      case 'list_item_close':
        depth -= 1;
        break;
      case 'bullet_list_open':
      case 'ordered_list_open':
        lists += 1;
        if (lists === 1) items = [];
        break;
      case 'list_item_open':
        nest();
        // A nested list's items go on its outermost item's line, each after a dash.
        if (lists === 1) items?.push([]);
        else items?.at(-1)?.push('-');
        break;
      case 'bullet_list_close':
      case 'ordered_list_close':
        lists -= 1;
        if (lists === 0 && items) {
          const text = items.map((parts) => `- ${clean(parts.join(' '))}`).join('\n');
          items = undefined;
          add({ type: 'paragraph', text });
        }
        break;
      case 'heading_open':
        heading = Number(token.tag.slice(1));
        break;
      case 'heading_close':
        heading = undefined;
        break;
      case 'table_open':
        rows = [];
        break;
      case 'tr_open':
        cells = [];
        break;
      case 'th_open':
      case 'td_open':
        inCell = true;
        break;
      case 'th_close':
      case 'td_close':
        inCell = false;
        break;
      case 'tr_close':
        rows?.push(cells.join(' | '));
        break;
      case 'table_close':
        if (rows) add({ type: 'paragraph', text: rows.join('\n') });
        rows = undefined;
        break;
      case 'inline': {
        const text = clean(inlineText(token.children));
        if (inCell) cells.push(text);
        else if (heading !== undefined) add({ type: 'heading', level: heading, text });
        else if (text) add({ type: 'paragraph', text });
        break;
      }
      case 'code_block':
      case 'fence': {
        const text = token.content.trim();
        if (text) add({ type: 'paragraph', text });
        break;
      }
      case 'html_block':
        for (const block of htmlBlocks(token.content, 'The HTML in the Markdown file')) add(block);
        break;
      default:
        break; // paragraphs' and tables' other tokens, rules: no text of their own
    }
  }
  return blocks;
}

// --- Plain text ----------------------------------------------------------------------------------------------

/** A short line, alone between blank lines, without closing punctuation, followed by more text: a heading. */
const TITLE_MAX_CHARS = 80;

export function textBlocks(text: string): Block[] {
  const paragraphs = text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t\f]*\n/)
    .map((part) => part.trim())
    .filter(Boolean);
  return paragraphs.map((part, i): Block => {
    const single = !part.includes('\n') && part.length <= TITLE_MAX_CHARS && !/[.!?,;:)\]"”']$/.test(part);
    return single && i + 1 < paragraphs.length ? { type: 'heading', level: 1, text: clean(part) } : { type: 'paragraph', text: part.split('\n').map(clean).join('\n') };
  });
}
