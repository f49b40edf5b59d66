// OpenAPI 3.0 documents generated from the contracts, and the interactive reference at /docs.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { detectFile } from '../src/files/file-kinds.ts';
import * as samples from './fixtures/files/samples.ts';
import { ADMIN_TOKEN, startTestApp, type TestApp } from './support/harness.ts';

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
  'GET /events', // beyond the spec: the event feed (issue #18)
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
    '/accounts/{accountId}/members',
    '/accounts/{accountId}/subscription',
    '/api-keys/{keyId}/deactivate',
    '/backup',
    '/members/{memberId}',
    '/password-resets',
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
    'GET /chat/customer/{chatId}/',
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

interface Operation {
  security?: unknown[];
  parameters: { name: string; in: string; required: boolean; schema: Record<string, unknown> }[];
  requestBody?: { required: boolean; content: Record<string, { schema: { properties: Record<string, Record<string, unknown>> }; encoding?: Record<string, { contentType: string }> }> };
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema: unknown }> }>;
}
type Paths = Record<string, Record<string, Operation>>;

async function documentOf(url: string): Promise<{ paths: Paths; security: unknown[] }> {
  const res = await t.request<{ paths: Paths; security: unknown[] }>('GET', url);
  assert.equal(res.status, 200);
  return res.body;
}

const operations = (paths: Paths) =>
  Object.entries(paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, method, op })));

test('/api/v1: every response declares the rate-limit headers it carries, a 429 also Retry-After', async () => {
  const { paths } = await documentOf('/api/v1/openapi.json');
  for (const { name, op } of operations(paths)) {
    for (const [status, response] of Object.entries(op.responses)) {
      const headers = Object.keys(response.headers ?? {});
      const expected = ['RateLimit-Policy', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', ...(status === '429' ? ['Retry-After'] : [])];
      assert.deepEqual(headers, expected, `${name} ${status}`);
    }
  }
  // The headers a real response carries are the ones declared.
  const { key } = await t.createAccount();
  const res = await t.api(key, '/chats/chat');
  assert.equal(res.status, 200);
  const sent = [...res.headers.keys()].filter((h) => h.startsWith('ratelimit-')).sort();
  assert.deepEqual(sent, ['ratelimit-limit', 'ratelimit-policy', 'ratelimit-remaining', 'ratelimit-reset']);
});

test('the demo document declares Deprecation and Sunset on every response of GET /pets/{petId}', async () => {
  const { paths } = await documentOf('/demo/v1/openapi.json');
  const getPet = paths['/pets/{petId}']?.get;
  assert.ok(getPet);
  for (const [status, response] of Object.entries(getPet.responses)) {
    const names = Object.keys(response.headers ?? {});
    assert.deepEqual(names.filter((name) => name === 'Deprecation' || name === 'Sunset'), ['Deprecation', 'Sunset'], status);
  }
  assert.equal(paths['/pets']?.get?.responses['200']?.headers?.Deprecation, undefined, 'only the deprecated operation says so');
});

test('415 is documented on every operation that reads a body, with the surface error shape, and is what is sent', async () => {
  for (const url of ['/api/v1/openapi.json', '/console/v1/openapi.json', '/admin/v1/openapi.json', '/demo/v1/openapi.json']) {
    const { paths } = await documentOf(url);
    for (const { name, method, op } of operations(paths)) {
      assert.equal('415' in op.responses, ['post', 'put', 'delete'].includes(method), `${url} ${name}`);
    }
  }
  const user = await t.createConsoleUser();
  const xml = { 'content-type': 'application/xml' };
  const sent = [
    await t.request('POST', '/api/v1/chats/chat/dislike', { headers: { ...xml, authorization: user.key }, body: '<x/>' }),
    await t.request('POST', '/console/v1/knowledge-bases', { headers: { ...xml, authorization: `Bearer ${user.token}` }, body: '<x/>' }),
    await t.request('POST', '/demo/v1/pets', { headers: { 'content-type': 'text/plain', authorization: `Bearer ${user.key}` }, body: 'x' }),
  ];
  assert.deepEqual(
    sent.map((r) => [r.status, r.body]),
    [
      [415, { message: 'Unsupported Media Type', statusCode: 415 }],
      [415, { message: 'Unsupported Media Type', statusCode: 415 }],
      [415, { code: 'unsupported_media_type', message: 'Unsupported Media Type', status: 415 }],
    ],
  );
});

test('console: login, accepting an invitation and the session state need no token, every operation declares UserLang', async () => {
  const body = await documentOf('/console/v1/openapi.json');
  assert.deepEqual(body.security, [{ bearer: [] }]);
  for (const { name, op } of operations(body.paths)) {
    const anonymous = ['POST /auth/login', 'POST /auth/login/2fa', 'POST /auth/accept-invite', 'GET /auth/session/state', 'POST /auth/forgot-password', 'POST /auth/reset-password', 'GET /server/',
      // Single sign-on (issue #45, item 2): the login page's button, the redirect to the provider and its answer.
      'GET /auth/sso/discover', 'GET /auth/sso/start', 'GET /auth/sso/callback'];
    assert.equal(op.security === undefined, !anonymous.includes(name), name);
    const lang = op.parameters.find((p) => p.name === 'UserLang');
    assert.equal(lang?.in, 'header', name);
    assert.equal(lang?.required, false, name);
  }
  assert.deepEqual(body.paths['/auth/login']?.post?.security, []);
  assert.deepEqual(body.paths['/auth/session/state']?.get?.security, []);
});

test('operator: the create-key body is optional, as the server takes none', async () => {
  const { paths } = await documentOf('/admin/v1/openapi.json');
  assert.equal(paths['/accounts/{accountId}/api-keys']?.post?.requestBody?.required, false);
  assert.equal(paths['/accounts']?.post?.requestBody?.required, true);
  const account = await t.admin<{ id: string }>('POST', '/accounts', { email: `nobody-${Date.now()}@example.com`, password: 'a long password' });
  const res = await fetch(`${t.url}/admin/v1/accounts/${account.body.id}/api-keys`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(res.status, 201);
});

test('send-message-universal: the default sender and the accepted file types are in the schema', async () => {
  const { paths } = await documentOf('/api/v1/openapi.json');
  const content = paths['/chats/chat/send-message-universal']?.post?.requestBody?.content;
  assert.equal(content?.['application/json']?.schema.properties.senderName?.default, 'Unknown visitor');
  const multipart = content?.['multipart/form-data'];
  assert.equal(multipart?.schema.properties.files?.maxItems, 10);
  const published = (multipart?.encoding?.files?.contentType ?? '').split(', ').sort();
  // Exactly what the server detects and accepts, sample by sample.
  const detected = await Promise.all(
    [samples.jpeg(), samples.png(), samples.gif(), samples.webp(), samples.mp3WithId3(), samples.wav(), samples.pdf(), samples.cyrillicText(),
      samples.doc(), samples.docx(), samples.xls(), samples.xlsx(), samples.mp4(), samples.avi()].map(async (bytes) => (await detectFile(bytes, 'x'))?.contentType),
  );
  assert.deepEqual([...new Set(detected)].sort(), published);
});

test('the console and the demo catalog declare their rate limit: headers on every response, 429 with Retry-After', async () => {
  const { consoleApiDocument, demoApiDocument } = await import('../src/http/docs.ts');
  for (const doc of [consoleApiDocument(), demoApiDocument()] as unknown as Array<{
    paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>;
  }>) {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const label = `${method.toUpperCase()} ${path}`;
        assert.ok(operation.responses['429'], `${label} documents 429`);
        assert.ok(operation.responses['429']?.headers?.['Retry-After'], `${label} 429 has Retry-After`);
        for (const [status, response] of Object.entries(operation.responses)) {
          assert.ok(response.headers?.['RateLimit-Remaining'], `${label} ${status} has RateLimit-Remaining`);
        }
      }
    }
  }
});
