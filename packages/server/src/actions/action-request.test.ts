// The values of a run and the request built from them (action-request.ts): a value never changes the request's shape.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoredActionParameter } from '../db/schema.ts';
import type { ActionDefinition } from './action-definition.ts';
import { checkValues, prepareRequest, RequestShapeError, renderBody, renderUrl } from './action-request.ts';

const param = (fields: Partial<StoredActionParameter> & Pick<StoredActionParameter, 'name'>): StoredActionParameter => ({
  description: '',
  type: 'string',
  required: true,
  source: 'customer',
  ...fields,
});

function action(fields: Partial<ActionDefinition>): ActionDefinition {
  return {
    id: 'a',
    accountId: 'acc',
    name: 'x',
    description: '',
    kind: 'read',
    method: 'GET',
    url: 'https://shop.example/orders/{{n}}',
    headers: [],
    body: null,
    parameters: [param({ name: 'n' })],
    answer: '',
    errorAnswer: null,
    timeoutMs: 5000,
    enabled: true,
    createdAt: new Date(0),
    updatedAt: new Date(0),
    ...fields,
  };
}

test('checkValues: type, whole-value pattern, enum (case-insensitive, canonical), required, unknown names', () => {
  const parameters = [
    param({ name: 'n', pattern: '\\d{5}' }),
    param({ name: 'qty', type: 'number', required: false }),
    param({ name: 'size', type: 'enum', values: ['Small', 'Large'], required: false }),
  ];
  const chat = { kind: 'chat' as const, identity: null };
  assert.deepEqual(checkValues({ parameters }, { n: '10482', qty: '2', size: 'large' }, chat), { ok: true, values: { n: '10482', qty: 2, size: 'Large' } });
  assert.deepEqual(checkValues({ parameters }, { n: '104821' }, chat), { ok: false, reason: 'n: does not match the pattern \\d{5}' });
  assert.deepEqual(checkValues({ parameters }, { n: 'x10482' }, chat), { ok: false, reason: 'n: does not match the pattern \\d{5}' });
  assert.deepEqual(checkValues({ parameters }, {}, chat), { ok: false, reason: 'n: required' });
  assert.deepEqual(checkValues({ parameters }, { n: '10482', qty: '2e3' }, chat), { ok: false, reason: 'qty: must be a number' });
  assert.deepEqual(checkValues({ parameters }, { n: '10482', size: 'medium' }, chat), { ok: false, reason: 'size: must be one of Small, Large' });
  assert.deepEqual(checkValues({ parameters }, { n: '10482', admin: true }, chat), { ok: false, reason: 'admin: not a parameter of this action' });
});

test('checkValues: a verified parameter takes the identity in a chat and nothing given; a test call gives it', () => {
  const parameters = [param({ name: 'customer', source: 'verified' }), param({ name: 'n' })];
  assert.deepEqual(checkValues({ parameters }, { n: '1' }, { kind: 'chat', identity: 'cust-ada' }), { ok: true, values: { customer: 'cust-ada', n: '1' } });
  assert.deepEqual(checkValues({ parameters }, { n: '1', customer: 'cust-bob' }, { kind: 'chat', identity: 'cust-ada' }), {
    ok: false,
    reason: "customer: is the customer's verified identity and cannot be given",
  });
  assert.deepEqual(checkValues({ parameters }, { n: '1' }, { kind: 'chat', identity: null }), { ok: false, reason: 'customer: the chat has no verified identity' });
  assert.deepEqual(checkValues({ parameters }, { n: '1', customer: 'cust-bob' }, { kind: 'test' }), { ok: true, values: { customer: 'cust-bob', n: '1' } });
});

test('renderUrl: each value is one encoded piece of its segment or query value; dot segments and a changed origin are refused', () => {
  const template = 'https://shop.example/api/orders/{{q}}/items?tag={{q}}&x=1';
  for (const value of ['../admin', '?x=1&y=2', 'a/b#c', '{{q}}', 'line\r\nHost: evil', '@evil.example']) {
    const url = new URL(renderUrl(template, { q: value }));
    assert.equal(url.origin, 'https://shop.example', value);
    assert.equal(url.pathname, `/api/orders/${encodeURIComponent(value)}/items`, value);
    assert.deepEqual([...url.searchParams.entries()], [['tag', value], ['x', '1']], value);
    assert.equal(url.hash, '', value);
  }
  assert.throws(() => renderUrl(template, { q: '..' }), RequestShapeError);
  assert.throws(() => renderUrl(template, { q: '.' }), RequestShapeError);
  // Inside a longer segment, dots are just characters.
  assert.equal(renderUrl('https://shop.example/v{{q}}', { q: '..' }), 'https://shop.example/v..');
  // An optional value not given leaves its query item out.
  assert.equal(renderUrl('https://shop.example/o?a={{a}}&b={{b}}', { b: 2 }), 'https://shop.example/o?b=2');
  assert.equal(renderUrl('https://shop.example/o?a={{a}}', {}), 'https://shop.example/o');
});

test('renderBody: a string that is one placeholder takes the typed value, others are text; no value adds a field', () => {
  const template = { order: '{{n}}', qty: '{{qty}}', note: 'from chat: {{n}}', nested: [{ q: '{{n}}' }], absent: '{{none}}' };
  const body = renderBody(template, { n: '"}, "admin": true, "x": {"', qty: 3 });
  assert.deepEqual(body, { order: '"}, "admin": true, "x": {"', qty: 3, note: 'from chat: "}, "admin": true, "x": {"', nested: [{ q: '"}, "admin": true, "x": {"' }] });
  assert.deepEqual(Object.keys(JSON.parse(JSON.stringify(body)) as object), ['order', 'qty', 'note', 'nested']);
});

test('prepareRequest: secret header values are sent, and shown masked', () => {
  const prepared = prepareRequest(
    action({
      method: 'POST',
      headers: [
        { name: 'Authorization', value: 'Bearer s3cr3t-token', secret: true },
        { name: 'X-Shop', value: 'main', secret: false },
      ],
      body: { n: '{{n}}' },
    }),
    { n: '10482' },
  );
  assert.deepEqual(prepared.headers, { Authorization: 'Bearer s3cr3t-token', 'X-Shop': 'main' });
  assert.deepEqual(prepared.shown, { method: 'POST', url: 'https://shop.example/orders/10482', headers: { Authorization: '••••', 'X-Shop': 'main' }, body: { n: '10482' } });
  assert.equal(prepared.body, '{"n":"10482"}');
});
