import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findUnstorableText, jsonNestedDeeperThan, MAX_BODY_DEPTH } from './validation.ts';

const nested = (levels: number) => `${'{"a":['.repeat(levels / 2)}1${']}'.repeat(levels / 2)}`;

test('jsonNestedDeeperThan counts brackets outside strings only', () => {
  assert.equal(jsonNestedDeeperThan(nested(64), 64), false);
  assert.equal(jsonNestedDeeperThan(nested(66), 64), true);
  assert.equal(jsonNestedDeeperThan(`{"a":"${'['.repeat(100)}"}`, 2), false);
  assert.equal(jsonNestedDeeperThan(`{"a":"\\"${'{'.repeat(100)}\\\\"}`, 2), false);
  assert.equal(jsonNestedDeeperThan(`{"a\\\\":[[[1]]]}`, 3), true);
});

test('findUnstorableText: the limit, document order, JSON pointers', () => {
  assert.equal(findUnstorableText(JSON.parse(nested(MAX_BODY_DEPTH))), undefined);
  assert.equal(findUnstorableText(JSON.parse(nested(MAX_BODY_DEPTH + 2)))?.message, 'Body nested deeper than 64 levels');
  const found = findUnstorableText({ a: [{ 'b/~': 'ok' }, 'x\u0000'], c: '\ud800' });
  assert.equal(found?.instancePath, '/a/1');
  assert.match(found?.message ?? '', /NUL/);
  assert.equal(findUnstorableText({ a: { 'b/~': '\ud800' } })?.instancePath, '/a/b~1~0');
  assert.deepEqual(findUnstorableText({ a: { 'k\u0000': 1 } })?.instancePath, '/a');
});
