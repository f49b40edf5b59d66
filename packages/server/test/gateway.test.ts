// The public API gateway: the spec's authentication table, scopes, error bodies and strict parameters.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { publicRoutes, SCOPES, type RouteContract } from '@parley/contracts';
import { startTestApp, type TestApp } from './support/harness.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

describe('authentication (spec, Authentication → authentication errors)', () => {
  test('missing Authorization header: 401 Unauthorized', async () => {
    const res = await t.api(undefined, '/chats/chat');
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, { message: 'Unauthorized', code: 401 });
  });

  test('empty Authorization header: 401 Unauthorized', async () => {
    const res = await t.api('', '/chats/chat');
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, { message: 'Unauthorized', code: 401 });
  });

  test('wrong key: 404 Key not found', async () => {
    const res = await t.api('prl_this-key-does-not-exist', '/chats/chat');
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { message: 'Key not found', code: 404 });
  });

  test('a valid key sent with a Bearer prefix is a wrong key: 404 Key not found', async () => {
    const { key } = await t.createAccount();
    const res = await t.api(`Bearer ${key}`, '/chats/chat');
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { message: 'Key not found', code: 404 });
  });

  test('valid key: 200 with the chat list', async () => {
    const { key } = await t.createAccount();
    const res = await t.api(key, '/chats/chat');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { chats: [], count: 0 });
  });

  test('deactivated key: 403 Key not active, at once', async () => {
    const { key, keyId } = await t.createAccount();
    assert.equal((await t.api(key, '/chats/chat')).status, 200); // now cached
    const off = await t.admin('POST', `/api-keys/${keyId}/deactivate`);
    assert.equal(off.status, 200);
    assert.deepEqual(off.body, { id: keyId, active: false });
    const res = await t.api(key, '/chats/chat');
    assert.equal(res.status, 403);
    assert.deepEqual(res.body, { message: 'Key not active', code: 403 });
  });

  test('stopped subscription: 402 Payment Required; restarted: 200 again', async () => {
    const { key, accountId } = await t.createAccount();
    assert.equal((await t.api(key, '/chats/chat')).status, 200);
    assert.equal((await t.admin('PUT', `/accounts/${accountId}/subscription`, { active: false })).status, 200);
    const res = await t.api(key, '/chats/chat');
    assert.equal(res.status, 402);
    assert.deepEqual(res.body, { message: 'Payment Required', code: 402 });
    assert.equal((await t.admin('PUT', `/accounts/${accountId}/subscription`, { active: true })).status, 200);
    assert.equal((await t.api(key, '/chats/chat')).status, 200);
  });

  test('a deactivated key of a stopped account reports the key first', async () => {
    const { key, keyId, accountId } = await t.createAccount();
    await t.admin('PUT', `/accounts/${accountId}/subscription`, { active: false });
    await t.admin('POST', `/api-keys/${keyId}/deactivate`);
    assert.deepEqual((await t.api(key, '/chats/chat')).body, { message: 'Key not active', code: 403 });
  });
});

describe('scopes (docs/architecture.md, Operator API)', () => {
  const registered = () =>
    Object.values(publicRoutes as Record<string, RouteContract>).filter((route) =>
      t.app.hasRoute({ method: route.method, url: `/api/v1${route.url}` }),
    );

  test('the scope of every public route is the one docs/architecture.md names', () => {
    const expected: Record<string, string> = {
      'GET /chats/chat': 'chats:read',
      'GET /chats/chat/read': 'chats:write',
      'GET /chats/chat/unread': 'chats:write',
      'GET /chats/chat/done': 'chats:write',
      'GET /chats/chat/undone': 'chats:write',
      'GET /chats/chat/ban': 'chats:write',
      'GET /chats/chat/unban': 'chats:write',
      'GET /chats/chat/tags': 'tags',
      'GET /chats/chat/tags/create': 'tags',
      'GET /chats/chat/tags/tag-chat': 'tags',
      'DELETE /chats/chat/tags/remove-from-chat': 'tags',
      'DELETE /chats/chat/tags/remove': 'tags',
      'POST /chats/chat/send-message-universal': 'messages',
      'GET /chats/chat/like': 'feedback',
      'POST /chats/chat/dislike': 'feedback',
      'GET /events': 'events:read',
    };
    const actual = Object.fromEntries(
      Object.values(publicRoutes as Record<string, RouteContract>).map((r) => [`${r.method} ${r.url}`, r.scope]),
    );
    assert.deepEqual(actual, expected);
  });

  test('a key without the route scope gets 403 Forbidden scoupe/recources; with it, passes', async () => {
    const routes = registered();
    assert.ok(routes.length > 0);
    for (const route of routes) {
      const scope = route.scope as string;
      const without = await t.createAccount({ scopes: SCOPES.filter((s) => s !== scope) });
      const res = await t.request(route.method, `/api/v1${route.url}`, { headers: { authorization: without.key } });
      assert.equal(res.status, 403, `${route.method} ${route.url}`);
      assert.deepEqual(res.body, { message: 'Forbidden scoupe/recources', code: 403 });

      const only = await t.createAccount({ scopes: [scope] });
      const ok = await t.request(route.method, `/api/v1${route.url}`, { headers: { authorization: only.key } });
      assert.notEqual(ok.status, 403, `${route.method} ${route.url} with scope ${scope}`);
      assert.notEqual(ok.status, 401);
    }
  });
});

// A valid body for each POST route, so that only the unknown parameter is wrong.
const VALID_BODIES: Record<string, Record<string, unknown>> = {
  '/chats/chat/send-message-universal': { channel: 'custom', channelId: 'cc:none', externalChatId: 'e', role: 'user', text: 'hi' },
  '/chats/chat/dislike': { messageId: 'm', textEdit: 'better answer' },
};

describe('strict parameters', () => {
  test('an unknown body parameter is 400 on every POST route', async () => {
    const { key } = await t.createAccount();
    const posts = Object.values(publicRoutes as Record<string, RouteContract>).filter((r) => r.method === 'POST');
    assert.deepEqual(posts.map((r) => r.url).sort(), Object.keys(VALID_BODIES).sort());
    for (const route of posts) {
      const res = await t.request('POST', `/api/v1${route.url}`, {
        headers: { authorization: key },
        body: { ...VALID_BODIES[route.url], definitelyUnknown: 1 },
      });
      assert.equal(res.status, 400, route.url);
      assert.deepEqual(res.body, { message: ['property definitelyUnknown should not exist'], statusCode: 400 });
    }
  });

  test('an unknown query parameter is 400 on every public route', async () => {
    const { key } = await t.createAccount();
    const routes = Object.values(publicRoutes as Record<string, RouteContract>).filter((route) =>
      t.app.hasRoute({ method: route.method, url: `/api/v1${route.url}` }),
    );
    assert.ok(routes.length > 0);
    for (const route of routes) {
      const res = await t.request(route.method, `/api/v1${route.url}`, {
        headers: { authorization: key },
        query: { definitelyUnknown: '1' },
        ...(route.method === 'POST' ? { body: VALID_BODIES[route.url] } : {}),
      });
      assert.equal(res.status, 400, `${route.method} ${route.url}`);
      const body = res.body as { message: string[]; statusCode: number };
      assert.equal(body.statusCode, 400);
      assert.ok(body.message.includes('property definitelyUnknown should not exist'), JSON.stringify(body));
    }
  });

  test('invalid values are 400 with every problem listed', async () => {
    const { key } = await t.createAccount();
    const res = await t.api(key, '/chats/chat', { limit: '0', offset: '-1', complitedTask: 'maybe', channelName: 'fax' });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, {
      message: [
        'limit must be >= 1',
        'offset must be >= 0',
        'channelName must be one of: widget, custom, telegram, whatsapp, facebook, instagram, viber',
        'complitedTask must be boolean',
      ],
      statusCode: 400,
    });
  });

  test('limit above 1000 is 400; a repeated parameter is 400', async () => {
    const { key } = await t.createAccount();
    assert.deepEqual((await t.api(key, '/chats/chat', { limit: '1001' })).body, {
      message: ['limit must be <= 1000'],
      statusCode: 400,
    });
    const res = await t.request('GET', '/api/v1/chats/chat?limit=1&limit=2', { headers: { authorization: key } });
    assert.equal(res.status, 400);
  });

  test('authentication comes before validation: a bad parameter without a key is 401', async () => {
    const res = await t.api(undefined, '/chats/chat', { nope: '1' });
    assert.equal(res.status, 401);
  });

  test('an unknown route under /api/v1 is 404 with the error body', async () => {
    const { key } = await t.createAccount();
    const res = await t.api(key, '/chats/nothing-here');
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { message: 'Route GET /api/v1/chats/nothing-here not found', statusCode: 404 });
  });
});

describe('logging', () => {
  test('keys, passwords and the admin token never reach the log', async () => {
    const { key } = await t.createAccount();
    await t.api(key, '/chats/chat');
    await t.api(`Bearer ${key}`, '/chats/chat');
    await t.admin('POST', '/accounts', { email: 'logged@example.com', password: 'a-secret-password' });
    const log = t.logs.join('\n');
    assert.ok(t.logs.length > 0);
    assert.ok(!log.includes(key), 'API key in log');
    assert.ok(!log.includes('a-secret-password'), 'password in log');
    assert.ok(!log.includes('test-admin-token'), 'admin token in log');
    assert.ok(t.logs.some((line) => (JSON.parse(line) as { reqId?: string }).reqId), 'request id in log lines');
  });

  test('responses carry the request id; a sane caller id is kept', async () => {
    const res = await t.request('GET', '/healthz', { headers: { 'x-request-id': 'trace-42' } });
    assert.equal(res.headers.get('x-request-id'), 'trace-42');
    const other = await t.request('GET', '/healthz', { headers: { 'x-request-id': 'bad id with spaces' } });
    assert.match(other.headers.get('x-request-id') ?? '', /^[0-9a-f]{12}-[0-9a-z]+$/);
    const next = await t.request('GET', '/healthz');
    assert.notEqual(next.headers.get('x-request-id'), other.headers.get('x-request-id'), 'a new id per request');
  });
});

test('/healthz answers 200 {"status":"ok"} once the database answers', async () => {
  const res = await t.request('GET', '/healthz');
  assert.equal(res.status, 200);
  assert.equal(res.text, '{"status":"ok"}');
});
