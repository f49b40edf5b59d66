// A Word document's (DOCX) text as blocks, streamed: the main part's XML is inflated 64 kB at a time (zip-reader.ts,
// every inflated byte counted) into an XML parser whose events build the paragraphs, so memory follows the text
// kept, never the size of the markup (mammoth, used before, held the whole XML as a string and a tree: about 28
// bytes of memory for each byte of XML, and a 1 GB part inflated from a 1 MB upload took the process past 2 GB).
//   Headings: paragraphs in a style named "heading 1" to "heading 6" (Word's built-in Heading styles), found by
//   name in styles.xml or by the id Word gives them (Heading1…).
//   Tables: a row is one paragraph, its cells joined with " | ". Text boxes are read once (their fallback copy is
//   skipped), deleted text and field codes are not read. Footnotes, comments and headers are not read.
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { Parser } from 'htmlparser2';
import { clean, markupDepth, MAX_DOCUMENT_CHARS, tooLong, type Block } from './blocks.ts';
import { DocumentError } from './document-error.ts';
import { readEntry, zipEntries, type InflateBudget, type ZipEntry } from './zip-reader.ts';

/** All the parts read from one DOCX inflate to at most this much together. */
export const MAX_DOCX_INFLATED_BYTES = 64 * 1024 * 1024;
/** A part past 1 MB inflated may not inflate more than this many times its compressed size. */
export const MAX_DOCX_INFLATION_RATIO = 100;
export { MAX_DOCUMENT_CHARS };

/** Elements whose content is not read: the fallback copy of a text box, deleted text, field codes. */
const SKIPPED = new Set(['Fallback', 'delText', 'instrText']);

const localName = (name: string) => name.slice(name.indexOf(':') + 1);

/** An attribute by its local name (`w:val` and `val` alike). */
function attribute(attributes: Record<string, string>, name: string): string | undefined {
  for (const [key, value] of Object.entries(attributes)) if (localName(key) === name) return value;
  return undefined;
}

type Handlers = NonNullable<ConstructorParameters<typeof Parser>[0]>;

/** Streams an entry's XML to the parser's handlers; the text is UTF-8, as Word writes it. Nested past MAX_MARKUP_DEPTH, it fails. */
async function parseEntry(bytes: Uint8Array, entry: ZipEntry, budget: InflateBudget, handlers: Handlers): Promise<void> {
  const depth = markupDepth("The Word document's XML");
  const counted: Handlers = {
    ...handlers,
    onopentag(name, attributes, implied) {
      depth.open();
      handlers.onopentag?.(name, attributes, implied);
    },
    onclosetag(name, implied) {
      depth.close();
      handlers.onclosetag?.(name, implied);
    },
  };
  const parser = new Parser(counted, { xmlMode: true, decodeEntities: true });
  const decoder = new StringDecoder('utf8');
  await readEntry(bytes, entry, budget, (chunk) => parser.write(decoder.write(chunk)));
  parser.end(decoder.end());
}

/** The main part's name, from the package's relationships (word/document.xml when they do not say). */
async function mainPart(bytes: Uint8Array, entries: Map<string, ZipEntry>, budget: InflateBudget): Promise<ZipEntry> {
  let target: string | undefined;
  const rels = entries.get('_rels/.rels');
  if (rels) {
    await parseEntry(bytes, rels, budget, {
      onopentag(name, attributes) {
        if (localName(name) === 'Relationship' && attribute(attributes, 'Type')?.endsWith('/officeDocument')) target ??= attribute(attributes, 'Target');
      },
    });
  }
  const main = entries.get((target ?? 'word/document.xml').replace(/^\//, ''));
  if (!main) throw new DocumentError('The Word document is damaged: its text (word/document.xml) is missing.');
  return main;
}

/** Style ids to the heading level their name gives (Word's "heading 1" … "heading 6"). */
async function headingStyles(bytes: Uint8Array, entry: ZipEntry | undefined, budget: InflateBudget): Promise<Map<string, number>> {
  const levels = new Map<string, number>();
  if (!entry) return levels;
  let style: string | undefined;
  await parseEntry(bytes, entry, budget, {
    onopentag(name, attributes) {
      const local = localName(name);
      if (local === 'style') style = attribute(attributes, 'styleId');
      else if (local === 'name' && style) {
        const level = /^heading ?([1-6])$/i.exec(attribute(attributes, 'val') ?? '')?.[1];
        if (level) levels.set(style, Number(level));
      }
    },
    onclosetag(name) {
      if (localName(name) === 'style') style = undefined;
    },
  });
  return levels;
}

export async function docxBlocks(bytes: Uint8Array): Promise<Block[]> {
  const entries = zipEntries(bytes);
  const budget: InflateBudget = { maxBytes: MAX_DOCX_INFLATED_BYTES, maxRatio: MAX_DOCX_INFLATION_RATIO, ratioFloorBytes: 1024 * 1024, used: 0 };
  const main = await mainPart(bytes, entries, budget);
  const levels = await headingStyles(bytes, entries.get(path.posix.join(path.posix.dirname(main.name), 'styles.xml')), budget);
  const levelOf = (style: string | undefined) => (style === undefined ? undefined : (levels.get(style) ?? Number(/^Heading([1-6])$/.exec(style)?.[1] ?? 0)) || undefined);

  const blocks: Block[] = [];
  let characters = 0;
  /** Open paragraphs, innermost last (a text box's paragraphs sit inside one). */
  const paragraphs: { text: string; style?: string }[] = [];
  let tables = 0;
  let row: string[] = [];
  let cell: string[] = [];
  let inText = false;
  let skipping = 0;
  const add = (text: string) => {
    const paragraph = paragraphs.at(-1);
    if (!paragraph) return;
    characters += text.length;
    if (characters > MAX_DOCUMENT_CHARS) throw tooLong();
    paragraph.text += text;
  };
  await parseEntry(bytes, main, budget, {
    onopentag(name, attributes) {
      const local = localName(name);
      if (SKIPPED.has(local) || skipping > 0) {
        if (SKIPPED.has(local)) skipping += 1;
        return;
      }
      if (local === 'p') paragraphs.push({ text: '' });
      else if (local === 'pStyle') {
        const paragraph = paragraphs.at(-1);
        if (paragraph) paragraph.style = attribute(attributes, 'val');
      } else if (local === 't') inText = true;
      else if (local === 'tab') add(' ');
      else if (local === 'br' || local === 'cr') add('\n');
      else if (local === 'tbl') tables += 1;
      else if (local === 'tr' && tables === 1) row = [];
      else if (local === 'tc' && tables === 1) cell = [];
    },
    ontext(text) {
      if (inText && skipping === 0) add(text);
    },
    onclosetag(name) {
      const local = localName(name);
      if (skipping > 0) {
        if (SKIPPED.has(local)) skipping -= 1;
        return;
      }
      if (local === 't') inText = false;
      else if (local === 'p') {
        const paragraph = paragraphs.pop();
        const text = clean(paragraph?.text ?? '');
        if (!text) return;
        if (tables > 0) cell.push(text);
        else {
          const level = levelOf(paragraph?.style);
          blocks.push(level ? { type: 'heading', level, text } : { type: 'paragraph', text });
        }
      } else if (local === 'tc' && tables === 1) row.push(cell.join(' '));
      else if (local === 'tr' && tables === 1) {
        const text = row.filter(Boolean).join(' | ');
        if (text) blocks.push({ type: 'paragraph', text });
      } else if (local === 'tbl') tables -= 1;
    },
  });
  return blocks;
}
