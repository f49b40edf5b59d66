// What the readers make of Markdown and HTML, and the nesting limits: a file nested past them fails with a sentence
// naming the limit (before, Markdown's parser recursed into a 100,000-deep quote until the stack overflowed, and
// HTML's parser took minutes over 400,000 nested elements).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeDocx } from '../../../test/support/documents.ts';
import { MAX_DOCUMENT_CHARS, MAX_MARKUP_DEPTH } from './blocks.ts';
import { DocumentError } from './document-error.ts';
import { documentBlocks, htmlBlocks, MAX_MARKDOWN_DEPTH, markdownBlocks } from './document-text.ts';

/** The DocumentError `run` throws: its sentence, and whether it is a limit's. */
function refusal(run: () => unknown): { message: string; limit: boolean } {
  try {
    run();
  } catch (error) {
    if (error instanceof DocumentError) return { message: error.message, limit: error.limit };
    throw error;
  }
  assert.fail('no DocumentError');
}

test('Markdown: headings, paragraphs, a list (nested lists on its items) as one paragraph, a table, code, quotes, HTML, entities', () => {
  const markdown = [
    '# Returns',
    '',
    'Items within *30 days*, see [the page](https://shop.example/returns) ![a parcel](p.png).',
    '',
    '- unworn',
    '  - with tags',
    '  - in the box',
    '- 2. gift cards `final`',
    '',
    '| Item | Days |',
    '|---|---|',
    '| Shoes | 30 |',
    '',
    '```',
    'RETURN-CODE',
    '```',
    '',
    '> Quoted *words*',
    '> > and deeper',
    '',
    '<div><h2>From HTML</h2><p>Its text</p></div>',
    '',
    'Setext heading',
    '--------------',
    '',
    'Fish &amp; chips<br>soft',
    'break',
  ].join('\n');
  assert.deepEqual(markdownBlocks(markdown), [
    { type: 'heading', level: 1, text: 'Returns' },
    { type: 'paragraph', text: 'Items within 30 days, see the page a parcel.' },
    { type: 'paragraph', text: '- unworn - with tags - in the box\n- - gift cards final' },
    { type: 'paragraph', text: 'Item | Days\nShoes | 30' },
    { type: 'paragraph', text: 'RETURN-CODE' },
    { type: 'paragraph', text: 'Quoted words' },
    { type: 'paragraph', text: 'and deeper' },
    { type: 'heading', level: 2, text: 'From HTML' },
    { type: 'paragraph', text: 'Its text' },
    { type: 'heading', level: 2, text: 'Setext heading' },
    { type: 'paragraph', text: 'Fish & chips soft break' },
  ]);
});

test('Markdown nested past the limit fails with a sentence naming it, whether quotes, lists on one line or indented lists', () => {
  const sentence = `The Markdown file nests quotes or lists more than ${MAX_MARKDOWN_DEPTH} levels deep, the limit; it may be damaged.`;
  const deep = [
    `${'>'.repeat(100_000)} deep`,
    `${'- '.repeat(100_000)}deep`,
    Array.from({ length: 1_000 }, (_, i) => `${' '.repeat(2 * i)}- level ${i}`).join('\n'),
    `${'> - '.repeat(MAX_MARKDOWN_DEPTH)}deep`,
  ];
  for (const markdown of deep) assert.deepEqual(refusal(() => markdownBlocks(markdown)), { message: sentence, limit: true }, markdown.slice(0, 20));
  // At the limit, it is read.
  assert.deepEqual(markdownBlocks(`${'>'.repeat(MAX_MARKDOWN_DEPTH)} deep`), [{ type: 'paragraph', text: 'deep' }]);
});

test('Markdown that only looks deep is text: 100,000 brackets, emphasis marks, unclosed links', () => {
  // Compared as one string each: a failed comparison of 100,000 characters would take minutes to print.
  const text = (markdown: string) => markdownBlocks(markdown).map((block) => `${block.type}: ${block.text}`).join('\n');
  assert.ok(text('['.repeat(100_000)) === `paragraph: ${'['.repeat(100_000)}`);
  assert.ok(text(`${'*'.repeat(100_000)}a${'*'.repeat(100_000)}`).startsWith('paragraph: '));
  assert.ok(text('[a]('.repeat(100_000)) === `paragraph: ${'[a]('.repeat(100_000)}`);
});

test('HTML nested past the limit fails with a sentence naming it; closed elements do not add up', () => {
  const sentence = (what: string) => `${what} nests more than ${MAX_MARKUP_DEPTH.toLocaleString('en')} levels deep, the limit; it may be damaged.`;
  assert.deepEqual(refusal(() => htmlBlocks(`${'<div>'.repeat(100_000)}deep`)), { message: sentence('The HTML page'), limit: true });
  assert.deepEqual(refusal(() => htmlBlocks(`<p>${'<b><i>'.repeat(MAX_MARKUP_DEPTH)}deep</p>`)), { message: sentence('The HTML page'), limit: true });
  assert.deepEqual(refusal(() => markdownBlocks(`# Deep\n\n${'<div>'.repeat(100_000)}x`)), { message: sentence('The HTML in the Markdown file'), limit: true });
  // 100,000 elements one after another, and as deep as the limit allows, are read.
  const flat = htmlBlocks(`<div>${'<span>a</span>'.repeat(100_000)}</div>`);
  assert.ok(flat.length === 1 && flat[0]?.text === 'a'.repeat(100_000), 'one paragraph of 100,000 letters');
  assert.deepEqual(htmlBlocks(`${'<div>'.repeat(MAX_MARKUP_DEPTH - 2)}deep`), [{ type: 'paragraph', text: 'deep' }]);
});

test("a Word document's XML nested past the limit fails with a sentence naming it", async () => {
  const docx = makeDocx([{ xml: `${'<w:sdt><w:sdtContent>'.repeat(100_000)}<w:p><w:r><w:t>Deep</w:t></w:r></w:p>` }]);
  await assert.rejects(documentBlocks(docx, 'docx'), {
    name: 'DocumentError',
    message: "The Word document's XML nests more than 1,000 levels deep, the limit; it may be damaged.",
    limit: true,
  });
});

test('text past 5,000,000 characters fails before it is parsed; a page counts its text, not its markup', async () => {
  const sentence = 'The document is too long: its text passes 5,000,000 characters, the limit; split it into smaller files.';
  for (const kind of ['markdown', 'text'] as const) {
    await assert.rejects(documentBlocks(Buffer.alloc(MAX_DOCUMENT_CHARS + 1, 'a'), kind), { message: sentence, limit: true });
  }
  await assert.rejects(documentBlocks(Buffer.from(`<p>${'a'.repeat(MAX_DOCUMENT_CHARS + 1)}</p>`), 'html'), { message: sentence, limit: true });
  const markup = Buffer.from(`<p class="${'x'.repeat(MAX_DOCUMENT_CHARS)}">Short text</p>`);
  assert.deepEqual(await documentBlocks(markup, 'html'), [{ type: 'paragraph', text: 'Short text' }]);
});
