// The built-in sentence encoder's thread: started by the first request, ended after an idle period so its model's
// memory (about 150 MB) is given back, and started again by the next request.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSentenceEncoder } from '../src/knowledge/encoder/sentence-encoder.ts';
import { eventually } from './support/events.ts';

test('the encoder is loaded on first use, released after idleMs without a request, and loaded again', { timeout: 120_000 }, async () => {
  const encoder = createSentenceEncoder({ idleMs: 200 });
  try {
    assert.equal(encoder.loaded(), false);
    const [first] = await encoder.embed(['Where is my order?']);
    assert.equal(first?.length, 512);
    await eventually(async () => !encoder.loaded(), 10_000);
    const [again] = await encoder.embed(['Where is my order?']);
    assert.deepEqual(again, first);
    assert.equal(encoder.loaded(), true);
  } finally {
    await encoder.close();
  }
  assert.equal(encoder.loaded(), false);
});
