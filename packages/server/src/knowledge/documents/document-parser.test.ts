// The document parser's bounds: a parse past its time, a worker past its heap or a file swelling the process past
// the memory limit ends with a sentence (the worker is ended, the next parse gets a new one), a worker is reused
// for the next file, and the limits follow the machine's memory.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pdfBomb } from '../../../test/support/documents.ts';
import { createDocumentParser, parserBudget } from './document-parser.ts';

const MARKDOWN = Buffer.from('# Returns\n\nWithin 30 days.');
const PASSAGES = { passages: [{ headingPath: ['Returns'], text: 'Within 30 days.' }] };

test('a parse past its time fails with a sentence, and the next one gets a fresh worker', async () => {
  // 1 ms: no worker even starts in that time.
  const parser = createDocumentParser({ timeoutMs: 1 });
  try {
    for (let i = 0; i < 2; i++) {
      assert.deepEqual(await parser.parse(MARKDOWN, 'markdown'), {
        error: 'Reading the file took longer than 1 ms, the limit; it may be damaged or too complex.',
      });
    }
  } finally {
    await parser.close();
  }
});

test('a worker past its heap limit fails the document with a sentence', async () => {
  // 2 MB: less than loading the parsers takes.
  const parser = createDocumentParser({ maxMemoryMb: 2 });
  try {
    assert.deepEqual(await parser.parse(MARKDOWN, 'markdown'), {
      error: 'Reading the file needed more than 2 MB of memory, the limit; it may be damaged or too complex.',
    });
  } finally {
    await parser.close();
  }
});

test('files are parsed one per worker at a time, the workers kept for the next ones', async () => {
  const parser = createDocumentParser({ concurrency: 1 });
  try {
    const results = await Promise.all([parser.parse(MARKDOWN, 'markdown'), parser.parse(Buffer.from('not a pdf'), 'pdf'), parser.parse(MARKDOWN, 'markdown')]);
    assert.deepEqual(results, [PASSAGES, { error: 'The file is named as a PDF, but its content is text.' }, PASSAGES]);
    // Warm: the same worker answers at once (a new one loads the parsers for seconds).
    const started = Date.now();
    assert.deepEqual(await parser.parse(MARKDOWN, 'markdown'), PASSAGES);
    assert.ok(Date.now() - started < 5_000, `${Date.now() - started} ms`);
  } finally {
    await parser.close();
  }
});

test('a file that swells past the memory limit where no reader can count it ends its worker and fails with a sentence', async () => {
  // Encrypted (with an empty user password, so it opens): its 1 GB stream cannot be inflated before PDF.js
  // decrypts it, so only the parser's watch on the process's memory (or the worker's heap cap) can stop it.
  const bomb = pdfBomb(1024 * 1024 * 1024, { encrypted: true });
  const parser = createDocumentParser({ maxMemoryMb: 256 });
  let peak = 0;
  const before = process.memoryUsage.rss();
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  try {
    assert.deepEqual(await parser.parse(bomb, 'pdf'), {
      error: 'Reading the file needed more than 256 MB of memory, the limit; it may be damaged or too complex.',
    });
    // The limit, a worker's loading (outside it) and one sampling interval of growth.
    assert.ok(peak - before < 512 * 1024 * 1024, `grew ${Math.round((peak - before) / 1024 / 1024)} MB`);
    // The next file gets a worker of its own.
    assert.deepEqual(await parser.parse(MARKDOWN, 'markdown'), PASSAGES);
  } finally {
    clearInterval(sampler);
    await parser.close();
  }
});

test("the parser's budget follows the machine: an eighth of its memory, 128 to 512 MB, one worker below 2 GB", () => {
  const GB = 1024 * 1024 * 1024;
  assert.deepEqual(parserBudget(0.5 * GB), { maxMemoryMb: 128, concurrency: 1 });
  // A "1 GB" server reports a little less.
  assert.deepEqual(parserBudget(0.96 * GB), { maxMemoryMb: 128, concurrency: 1 });
  assert.deepEqual(parserBudget(1.5 * GB), { maxMemoryMb: 192, concurrency: 1 });
  assert.deepEqual(parserBudget(2 * GB), { maxMemoryMb: 256, concurrency: 2 });
  assert.deepEqual(parserBudget(4 * GB), { maxMemoryMb: 512, concurrency: 2 });
  assert.deepEqual(parserBudget(64 * GB), { maxMemoryMb: 512, concurrency: 2 });
});
