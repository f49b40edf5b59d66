// Splitting a document's blocks into passages: along headings, within PASSAGE_MAX_CHARS, nothing lost.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DocumentError, type Block } from './document-text.ts';
import { MAX_PASSAGES, PASSAGE_MAX_CHARS, splitPassages } from './passages.ts';

test('heading paths follow the levels: a heading closes the deeper ones and its own level', () => {
  const blocks: Block[] = [
    { type: 'heading', level: 1, text: 'Policy' },
    { type: 'paragraph', text: 'Intro.' },
    { type: 'heading', level: 2, text: 'Returns' },
    { type: 'heading', level: 3, text: 'Shoes' },
    { type: 'paragraph', text: 'Unworn only.' },
    { type: 'heading', level: 2, text: 'Refunds' },
    { type: 'paragraph', text: 'Five days.' },
    { type: 'heading', level: 1, text: 'Shipping' },
    { type: 'paragraph', text: 'Two days.' },
  ];
  assert.deepEqual(splitPassages(blocks), [
    { headingPath: ['Policy'], text: 'Intro.' },
    { headingPath: ['Policy', 'Returns', 'Shoes'], text: 'Unworn only.' },
    { headingPath: ['Policy', 'Refunds'], text: 'Five days.' },
    { headingPath: ['Shipping'], text: 'Two days.' },
  ]);
});

test('a long section is split into passages of at most PASSAGE_MAX_CHARS, at sentence ends, nothing lost', () => {
  const sentences = Array.from({ length: 120 }, (_, i) => `Sentence number ${i} says something about returns.`);
  const blocks: Block[] = [
    { type: 'heading', level: 1, text: 'Long' },
    { type: 'paragraph', text: sentences.slice(0, 100).join(' ') },
    { type: 'paragraph', text: sentences.slice(100).join(' ') },
    { type: 'paragraph', text: 'x'.repeat(3000) },
  ];
  const passages = splitPassages(blocks);
  assert.ok(passages.length > 4);
  for (const passage of passages) {
    assert.ok(passage.text.length <= PASSAGE_MAX_CHARS, `${passage.text.length}`);
    assert.deepEqual(passage.headingPath, ['Long']);
  }
  const joined = passages.map((p) => p.text).join(' ').replace(/\s+/g, ' ');
  for (const sentence of sentences) assert.ok(joined.includes(sentence), sentence);
  assert.equal((joined.match(/x/g) ?? []).length, 3000);
  // Whole sentences: none is cut in two.
  for (const passage of passages.filter((p) => !p.text.startsWith('x'))) assert.match(passage.text, /^Sentence[\s\S]*\.$/);
});

test('more than MAX_PASSAGES passages (a limit: its worker is not kept), or no text at all, is a DocumentError', () => {
  const many: Block[] = Array.from({ length: MAX_PASSAGES + 1 }, (_, i) => ({ type: 'heading', level: 1, text: `H${i}` }) as Block).flatMap((heading) => [
    heading,
    { type: 'paragraph', text: 'text' } as Block,
  ]);
  assert.throws(() => splitPassages(many), new DocumentError('The document is too long: it makes more than 2,000 passages; split it into smaller files.', { limit: true }));
  assert.throws(() => splitPassages([{ type: 'heading', level: 1, text: 'Only' }]), DocumentError);
});
