import assert from 'node:assert/strict';
import { test } from 'node:test';
import { storableJson, storableText } from './storable-text.ts';

test('lone surrogates and NUL become U+FFFD; pairs and other text are kept', () => {
  assert.equal(storableText('a\ud800b\u0000c\udfff'), 'a\ufffdb\ufffdc\ufffd');
  assert.equal(storableText('😀 \ud83d\ude00 ok'), '😀 😀 ok');
});

test('every string of a parsed body, property names included; __proto__ stays an own property', () => {
  const parsed = JSON.parse('{"a":["x\\ud800",{"k\\u0000":"v"}],"__proto__":"p\\u0000","n":1,"ok":"fine"}') as unknown;
  const { value, replaced } = storableJson(parsed);
  assert.equal(replaced, true);
  assert.deepEqual(JSON.parse(JSON.stringify(value)), { a: ['x\ufffd', { 'k\ufffd': 'v' }], ['__proto__']: 'p\ufffd', n: 1, ok: 'fine' });
  assert.equal(Object.getPrototypeOf(value), Object.prototype);
  assert.deepEqual(storableJson(JSON.parse('{"a":[1,"b",null]}')), { value: { a: [1, 'b', null] }, replaced: false });
  assert.deepEqual(storableJson('\ud800'), { value: '\ufffd', replaced: true });
});

test('a body nested deeper than the call stack allows', () => {
  const deep = JSON.parse(`${'{"a":['.repeat(100_000)}"\\ud800"${']}'.repeat(100_000)}`) as unknown;
  assert.equal(storableJson(deep).replaced, true);
});
