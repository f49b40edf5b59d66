// OpenAPI 3.0 documents generated from the contracts, and the interactive reference at /docs.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from './support/harness.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

interface Document {
  openapi: string;
  info: { version: string };
  servers: { url: string }[];
  paths: Record<string, Record<string, { parameters: { name: string; in: string; required: boolean }[]; requestBody?: { content: Record<string, unknown> }; responses: Record<string, unknown> }>>;
}

// Every endpoint of the spec's area A (Endpoints → Chats, Tags, Messages, Answer feedback).
const SPEC_PUBLIC_ENDPOINTS = [
  'GET /chats/chat',
  'GET /chats/chat/read',
  'GET /chats/chat/unread',
  'GET /chats/chat/done',
  'GET /chats/chat/undone',
  'GET /chats/chat/ban',
  'GET /chats/chat/unban',
  'GET /chats/chat/tags',
  'GET /chats/chat/tags/create',
  'GET /chats/chat/tags/tag-chat',
  'DELETE /chats/chat/tags/remove-from-chat',
  'DELETE /chats/chat/tags/remove',
  'POST /chats/chat/send-message-universal',
  'GET /chats/chat/like',
  'POST /chats/chat/dislike',
];

test('the public document is OpenAPI 3.0 and holds every endpoint of the spec', async () => {
  const res = await t.request<Document>('GET', '/api/v1/openapi.json');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.match(res.body.openapi, /^3\.0\.\d$/);
  assert.deepEqual(res.body.servers, [{ url: '/api/v1' }]);
  const documented = Object.entries(res.body.paths).flatMap(([path, ops]) =>
    Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
  );
  for (const endpoint of SPEC_PUBLIC_ENDPOINTS) assert.ok(documented.includes(endpoint), `missing ${endpoint}`);
  assert.equal(documented.length, SPEC_PUBLIC_ENDPOINTS.length);
});

test('parameters, bodies and responses come from the contracts', async () => {
  const { body } = await t.request<Document>('GET', '/api/v1/openapi.json');
  const list = body.paths['/chats/chat']?.get;
  assert.deepEqual(
    list?.parameters.map((p) => [p.name, p.in, p.required]),
    [
      ['limit', 'query', false],
      ['offset', 'query', false],
      ['channelName', 'query', false],
      ['channelId', 'query', false],
      ['tag', 'query', false],
      ['complitedTask', 'query', false],
    ],
  );
  assert.deepEqual(Object.keys(list?.responses ?? {}).sort(), ['200', '400', '401', '402', '403', '404', '429']);
  const send = body.paths['/chats/chat/send-message-universal']?.post;
  assert.deepEqual(Object.keys(send?.requestBody?.content ?? {}), ['application/json', 'multipart/form-data']);
  const chat = JSON.stringify(list?.responses['200']);
  assert.ok(chat.includes('"nullable":true'), 'nullable fields in OpenAPI 3.0 form');
  assert.ok(!chat.includes('"type":"null"'));
  assert.ok(!chat.includes('additionalProperties'), 'responses are open: new fields may appear');
  const sendBody = JSON.stringify(send?.requestBody);
  assert.ok(sendBody.includes('"additionalProperties":false'), 'requests stay closed');
});

test('the operator document describes /admin/v1', async () => {
  const res = await t.request<Document>('GET', '/admin/v1/openapi.json');
  assert.equal(res.status, 200);
  assert.deepEqual(Object.keys(res.body.paths).sort(), [
    '/accounts',
    '/accounts/{accountId}/api-keys',
    '/accounts/{accountId}/subscription',
    '/api-keys/{keyId}/deactivate',
  ]);
});

test('/docs renders the reference from assets served locally', async () => {
  const page = await t.request('GET', '/docs/');
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  assert.ok(!/https?:\/\/(?!127\.0\.0\.1)[^"']*\.(js|css)/.test(page.text), 'no asset from another origin');
  const init = await t.request('GET', '/docs/static/swagger-initializer.js');
  assert.equal(init.status, 200);
  assert.ok(init.text.includes('/api/v1/openapi.json'));
  const bundle = await t.request('GET', '/docs/static/swagger-ui-bundle.js');
  assert.equal(bundle.status, 200);
  assert.ok(bundle.text.length > 100_000);
});

test('the console document describes /console/v1, one connect and update path per channel kind', async () => {
  const res = await t.request<Document>('GET', '/console/v1/openapi.json');
  assert.equal(res.status, 200);
  assert.match(res.body.openapi, /^3\.0\.\d$/);
  const documented = Object.entries(res.body.paths).flatMap(([path, ops]) =>
    Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
  );
  const expected = [
    'POST /auth/login',
    'GET /channels/all/',
    'GET /channel/{type}/{id}/',
    'DELETE /channel/{type}/{id}/',
    'POST /webhooks/{type}/{id}/test',
    'POST /knowledge-bases',
    'GET /knowledge-bases',
    'PUT /knowledge-bases/{id}',
    'DELETE /knowledge-bases/{id}',
    'GET /knowledge-bases/{id}/entries',
    'POST /knowledge-bases/{id}/entries',
    'PUT /knowledge-bases/{id}/entries/{entryId}',
    'DELETE /knowledge-bases/{id}/entries/{entryId}',
    ...['widget', 'custom', 'telegram', 'whatsapp', 'facebook', 'instagram', 'viber'].flatMap((kind) => [
      `POST /channel/${kind}/connect/`,
      `PUT /channel/${kind}/{id}/`,
    ]),
  ];
  for (const endpoint of expected) assert.ok(documented.includes(endpoint), `missing ${endpoint}`);
  const telegram = res.body.paths['/channel/telegram/connect/']?.post;
  const schema = JSON.stringify(telegram?.requestBody?.content['application/json']);
  assert.ok(schema.includes('botToken'), 'kind-specific credentials are documented');
});
