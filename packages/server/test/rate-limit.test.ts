// Rate limit (spec, Limits): 300 requests per 10 s per API key, headers on every response, exact 429 body.
// With REDIS_URL set the counters live in Redis (several API processes share them); otherwise in memory, and in
// memory too while Redis is unreachable (a Redis that only answers late is not). The console (per member) and
// the demo catalog (per key) use the same limiter; a credential's bucket does not depend on how it is spelt.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { request as httpRequest } from 'node:http';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import type * as IORedis from 'ioredis';
import { eventually } from './support/events.ts';
import { PASSWORD, PUBLIC_URL, startTestApp, type TestApp, type TestResponse } from './support/harness.ts';

const redisUrl = process.env.REDIS_URL;
let t: TestApp;
before(async () => {
  t = await startTestApp({ redisUrl });
});
after(() => t.close());

function assertHeaders(res: TestResponse, remaining: number) {
  assert.equal(res.headers.get('ratelimit-policy'), '300;w=10');
  assert.equal(res.headers.get('ratelimit-limit'), '300');
  assert.equal(res.headers.get('ratelimit-remaining'), String(remaining));
  const reset = Number(res.headers.get('ratelimit-reset'));
  assert.ok(Number.isInteger(reset) && reset >= 0 && reset <= 10, `reset ${reset}`);
}

/**
 * Uses up a key's window: 300 requests (25 at a time, so a loaded machine still fits them in one 10 s
 * window), then the 301st. When the window rolled over meanwhile, it tries again with a new key.
 */
async function exhaustWindow(): Promise<{ key: string; accountId: string; passed: TestResponse[]; limited: TestResponse }> {
  for (let round = 0; ; round += 1) {
    const { key, accountId } = await t.createAccount();
    const started = Date.now();
    const passed: TestResponse[] = [];
    for (let batch = 0; batch < 12; batch += 1) {
      passed.push(...(await Promise.all(Array.from({ length: 25 }, () => t.api(key, '/chats/chat', { limit: '1' })))));
    }
    const limited = await t.api(key, '/chats/chat', { limit: '1' });
    const firstReset = Number(passed[0]?.headers.get('ratelimit-reset'));
    if (Date.now() - started < (firstReset - 1) * 1000 || round === 2) return { key, accountId, passed, limited };
  }
}

test(`300 requests pass, the 301st is 429 (${redisUrl ? 'Redis' : 'in-memory'} counters)`, async () => {
  const { passed, limited, accountId } = await exhaustWindow();
  assert.deepEqual(passed.map((r) => r.status), Array(300).fill(200));
  for (const res of passed) assertHeaders(res, Number(res.headers.get('ratelimit-remaining')));
  const remaining = passed.map((r) => Number(r.headers.get('ratelimit-remaining'))).sort((a, b) => a - b);
  assert.deepEqual(remaining, Array.from({ length: 300 }, (_, i) => i), 'each count from 299 down to 0 once');
  assert.equal(limited.status, 429);
  assert.equal(limited.text, '{"message":"Too many requests","code":429}');
  assertHeaders(limited, 0);
  assert.ok(Number(limited.headers.get('retry-after')) >= 0);

  // The limit is per key: another key of the same account is not affected.
  const other = await t.admin<{ key: string }>('POST', `/accounts/${accountId}/api-keys`, {});
  assert.equal((await t.api(other.body.key, '/chats/chat')).status, 200);
});

test('with Redis counting, a repeated refusal takes the full path each time: counted in Redis, a log line each', { skip: !redisUrl && 'only with REDIS_URL' }, async () => {
  // Without Redis the same refusal is answered from memory from its third time (refusal-memory.test.ts).
  const { key } = await t.createAccount();
  const answers: TestResponse[] = [];
  for (let i = 0; i < 4; i += 1) answers.push(await t.api(key, '/chats/chat', { unknown: '1' }));
  assert.deepEqual(answers.map((answer) => answer.status), [400, 400, 400, 400]);
  assert.deepEqual(answers.map((answer) => answer.headers.get('ratelimit-remaining')), ['299', '298', '297', '296']);
  for (const answer of answers) {
    const id = answer.headers.get('x-request-id');
    await eventually(async () => t.logs.some((line) => line.includes('"msg":"request"') && line.includes(`"reqId":"${id}"`)));
  }
});

test('error responses carry the rate-limit headers too and count against the key', async () => {
  const unauthorized = await t.api(undefined, '/chats/chat');
  assert.equal(unauthorized.status, 401);
  assertHeaders(unauthorized, Number(unauthorized.headers.get('ratelimit-remaining')));

  const { key } = await t.createAccount();
  const invalid = await t.api(key, '/chats/chat', { unknown: '1' });
  assert.equal(invalid.status, 400);
  assertHeaders(invalid, 299);
  const wrongKey = await t.api('prl_not-a-key-at-all', '/chats/chat');
  assert.equal(wrongKey.status, 404);
  assertHeaders(wrongKey, 299);
  const missingRoute = await t.api(key, '/no/such/route');
  assert.equal(missingRoute.status, 404);
  assertHeaders(missingRoute, 298);
});

test('after RateLimit-Reset seconds the key may call again', async () => {
  const { key, limited } = await exhaustWindow();
  assert.equal(limited.status, 429);
  await sleep(Number(limited.headers.get('ratelimit-reset')) * 1000 + 250);
  const again = await t.api(key, '/chats/chat', { limit: '1' });
  assert.equal(again.status, 200);
  assertHeaders(again, 299);
});

test(
  'two API processes share the counters through Redis',
  { skip: redisUrl ? false : 'REDIS_URL is not set (.ci/run sets it)' },
  async () => {
    const second = await startTestApp({ redisUrl, database: t.database });
    try {
      const { key } = await t.createAccount();
      for (let i = 0; i < 150; i += 1) {
        assert.equal((await t.api(key, '/chats/chat', { limit: '1' })).status, 200);
        assert.equal((await second.api(key, '/chats/chat', { limit: '1' })).status, 200);
      }
      assert.equal((await second.api(key, '/chats/chat', { limit: '1' })).status, 429);
      assert.equal((await t.api(key, '/chats/chat', { limit: '1' })).status, 429);
    } finally {
      await second.close();
    }
  },
);

/**
 * Sends `max` requests (`batch` at a time), then one more: the last must be refused. When the window may have
 * rolled over meanwhile (a loaded machine), the round is tried again with a new caller.
 */
async function exhaust(
  newCaller: () => Promise<(i: number) => Promise<TestResponse>>,
  max: number,
  batch = 1,
): Promise<{ send: (i: number) => Promise<TestResponse>; passed: TestResponse[]; limited: TestResponse }> {
  for (let round = 0; ; round += 1) {
    const send = await newCaller();
    const started = Date.now();
    const passed: TestResponse[] = [];
    for (let i = 0; i < max; i += batch) {
      passed.push(...(await Promise.all(Array.from({ length: Math.min(batch, max - i) }, (_, j) => send(i + j)))));
    }
    const limited = await send(max);
    const firstReset = Number(passed[0]?.headers.get('ratelimit-reset'));
    if (limited.status === 429 || Date.now() - started < (firstReset - 1) * 1000 || round === 2) return { send, passed, limited };
  }
}

function assertLimitHeaders(res: TestResponse, policy: string, limit: number, remaining: number) {
  assert.equal(res.headers.get('ratelimit-policy'), policy);
  assert.equal(res.headers.get('ratelimit-limit'), String(limit));
  assert.equal(res.headers.get('ratelimit-remaining'), String(remaining));
  const reset = Number(res.headers.get('ratelimit-reset'));
  assert.ok(Number.isInteger(reset) && reset >= 0, `reset ${reset}`);
}

describe('console and demo: the same limit per token', () => {
  let small: TestApp;
  before(async () => {
    small = await startTestApp({ rateLimitMax: 5, redisUrl });
  });
  after(() => small.close());

  test('console: 5 requests per token per 10 s, then 429; another token is not affected', async () => {
    const other = await small.createConsoleUser();
    const { passed, limited } = await exhaust(async () => {
      const { token } = await small.createConsoleUser();
      return () => small.console(token, 'GET', '/channels/all/');
    }, 5);
    assert.deepEqual(passed.map((r) => r.status), [200, 200, 200, 200, 200]);
    passed.forEach((res, i) => assertLimitHeaders(res, '5;w=10', 5, 4 - i));
    assert.equal(limited.status, 429);
    assert.equal(limited.text, '{"message":"Too many requests","code":429}');
    assertLimitHeaders(limited, '5;w=10', 5, 0);
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.equal((await small.console(other.token, 'GET', '/channels/all/')).status, 200);
  });

  test('console: two members of one account each have their own budget, by token and by web session', async () => {
    const owner = await small.createConsoleUser();
    const invite = await small.console<{ inviteUrl: string }>(owner.token, 'POST', '/members/invite/', {
      body: { email: `teammate-${Date.now()}@example.com`, role: 'agent' },
    });
    assert.equal(invite.status, 201, invite.text);
    const accepted = await small.console<{ token: string }>(undefined, 'POST', '/auth/accept-invite', {
      body: { token: invite.body.inviteUrl.slice(`${PUBLIC_URL}/invite/`.length), name: 'Teammate', password: PASSWORD },
    });
    assert.equal(accepted.status, 200, accepted.text);
    const session = await small.request('POST', '/console/v1/auth/session', { body: { email: owner.email, password: PASSWORD } });
    const cookie = /parley_session=[^;]+/.exec(session.headers.get('set-cookie') ?? '')?.[0];
    assert.ok(cookie, session.text);
    // The owner's budget is spent through the web session; the teammate's token still has all of its own.
    const { limited } = await exhaust(async () => () => small.request('GET', '/console/v1/channels/all/', { headers: { cookie } }), 5);
    assert.equal(limited.status, 429);
    assert.equal((await small.console(owner.token, 'GET', '/channels/all/')).status, 429, "the owner's token shares the owner's budget");
    const teammate = await small.console(accepted.body.token, 'GET', '/channels/all/');
    assert.equal(teammate.status, 200, teammate.text);
    assertLimitHeaders(teammate, '5;w=10', 5, 4);
  });

  test('console: requests with invalid tokens share their address\'s bucket', async () => {
    const { passed, limited } = await exhaust(async () => {
      const own = await startTestApp({ rateLimitMax: 5, redisUrl, database: small.database });
      apps.push(own);
      const from = randomLoopback();
      return (i) => requestFrom(own, 'GET', '/console/v1/channels/all/', from, { authorization: `Bearer not-a-token-${i}` });
    }, 5);
    assert.deepEqual(passed.map((r) => r.status), [401, 401, 401, 401, 401]);
    passed.forEach((res, i) => assertLimitHeaders(res, '5;w=10', 5, 4 - i));
    assert.equal(limited.status, 429);
  });

  test('demo: 5 requests per key per 10 s, then 429 as the Error resource; another key is not affected', async () => {
    const other = await small.createAccount();
    const { passed, limited } = await exhaust(async () => {
      const { key } = await small.createAccount();
      return () => small.request('GET', '/demo/v1/pets', { headers: { authorization: `Bearer ${key}` } });
    }, 5);
    assert.deepEqual(passed.map((r) => r.status), [200, 200, 200, 200, 200]);
    passed.forEach((res, i) => assertLimitHeaders(res, '5;w=10', 5, 4 - i));
    assert.equal(limited.status, 429);
    assert.deepEqual(limited.body, { code: 'too_many_requests', message: 'Too many requests', status: 429 });
    assertLimitHeaders(limited, '5;w=10', 5, 0);
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.equal((await small.request('GET', '/demo/v1/pets', { headers: { authorization: `Bearer ${other.key}` } })).status, 200);
  });
});

describe('one bucket per credential, whatever its spelling: the 301st request in a window is 429', () => {
  /** RateLimit-Remaining of `responses`, highest first: one shared bucket counts from 299 down to 0. */
  const remainingOf = (responses: TestResponse[]) =>
    responses.map((res) => Number(res.headers.get('ratelimit-remaining'))).sort((a, b) => b - a);
  const countdown = Array.from({ length: 300 }, (_, i) => 299 - i);

  test('console: the account, whatever the scheme\'s case, the spelling of the token, bearer or session cookie', async () => {
    const { passed, limited } = await exhaust(
      async () => {
        const user = await t.createConsoleUser();
        const session = await t.request('POST', '/console/v1/auth/session', { body: { email: user.email, password: PASSWORD } });
        const cookie = /parley_session=[^;]+/.exec(session.headers.get('set-cookie') ?? '')?.[0];
        assert.ok(cookie, session.text);
        const spellings: Record<string, string>[] = [
          { authorization: `Bearer ${user.token}` },
          { authorization: `bearer ${user.token}` },
          { authorization: `BEARER ${user.token}` },
          { authorization: `bEaReR ${user.token}` },
          { authorization: `  Bearer ${user.token}  ` },
          { authorization: `Bearer ${respellSignature(user.token)}` },
          { cookie },
        ];
        return (i) => requestFrom(t, 'GET', '/console/v1/auth/session', '127.0.0.1', spellings[i % spellings.length]);
      },
      300,
      25,
    );
    assert.deepEqual(passed.map((res) => res.status), Array(300).fill(200));
    assert.deepEqual(remainingOf(passed), countdown);
    assert.equal(limited.status, 429);
    assert.equal(limited.text, '{"message":"Too many requests","code":429}');
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
  });

  test('public API: the key, whatever the spaces or a scheme word around it (that one stays 404 Key not found)', async () => {
    const schemes = ['Bearer', 'bearer', 'BEARER'];
    // A scheme word on every 20th request: 15 unknown keys, below the address's cap on unknown keys.
    const spelling = (key: string, i: number) => (i % 20 === 19 ? `${schemes[i % 3]} ${key}` : i % 2 ? `  ${key}  ` : key);
    const { passed, limited } = await exhaust(
      async () => {
        const { key } = await t.createAccount();
        const from = randomLoopback();
        return (i) => requestFrom(t, 'GET', '/api/v1/chats/chat?limit=1', from, { authorization: spelling(key, i) });
      },
      300,
      25,
    );
    assert.deepEqual(passed.map((res) => res.status), Array.from({ length: 300 }, (_, i) => (i % 20 === 19 ? 404 : 200)));
    assert.equal(passed[19]?.text, '{"message":"Key not found","code":404}');
    assert.deepEqual(remainingOf(passed), countdown);
    assert.equal(limited.status, 429);
    assert.equal(limited.text, '{"message":"Too many requests","code":429}');
  });

  test('demo: the key, whatever the scheme\'s case or the spaces', async () => {
    const { passed, limited } = await exhaust(
      async () => {
        const { key } = await t.createAccount();
        const spellings = [`Bearer ${key}`, `bearer ${key}`, `BEARER ${key}`, `Bearer   ${key}`, `  bEaReR ${key}  `];
        return (i) => requestFrom(t, 'GET', '/demo/v1/pets', '127.0.0.1', { authorization: spellings[i % spellings.length] ?? '' });
      },
      300,
      25,
    );
    assert.deepEqual(passed.map((res) => res.status), Array(300).fill(200));
    assert.deepEqual(remainingOf(passed), countdown);
    assert.equal(limited.status, 429);
    assert.deepEqual(limited.body, { code: 'too_many_requests', message: 'Too many requests', status: 429 });
  });
});

/** The same JWT with the last character of its signature spelt otherwise (an unused low bit of base64url set): it still verifies. */
function respellSignature(token: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const last = alphabet.indexOf(token.slice(-1));
  return `${token.slice(0, -1)}${alphabet[last ^ 1]}`;
}

const apps: TestApp[] = [];
after(() => Promise.all(apps.map((app) => app.close())));

test('unknown API keys: past 30 from one address, its unknown keys share one bucket and get 429 without a lookup', async () => {
  const own = await startTestApp({ redisUrl });
  apps.push(own);
  // An address of its own: with Redis, counts outlive the app.
  const from = randomLoopback();
  const api = (key: string, path: string) => requestFrom(own, 'GET', `/api/v1${path}`, from, { authorization: key });
  const { key } = await own.createAccount();
  assert.equal((await api(key, '/chats/chat?limit=1')).status, 200);
  const { key: unusedKey } = await own.createAccount();
  let refused: TestResponse | undefined;
  for (let round = 0; round < 3 && !refused; round += 1) {
    const started = Date.now();
    const statuses: number[] = [];
    for (let i = 0; i < 30; i += 1) statuses.push((await api(`prl_random-${round}-${i}`, '/chats/chat')).status);
    assert.deepEqual(statuses, Array(30).fill(404));
    const next = await api(`prl_random-${round}-next`, '/chats/chat');
    if (next.status === 429) refused = next;
    else assert.ok(Date.now() - started > 9_000, `31st unknown key answered ${next.status} within the window`);
  }
  assert.ok(refused);
  assert.equal(refused.text, '{"message":"Too many requests","code":429}');
  assert.ok(Number(refused.headers.get('retry-after')) >= 1);
  // One bucket for the address, whatever the key: a fresh key no longer gets a fresh bucket.
  const again = await api('prl_yet-another', '/chats/chat');
  assert.equal(again.status, 429);
  assert.equal(Number(again.headers.get('ratelimit-remaining')), Number(refused.headers.get('ratelimit-remaining')) - 1);
  // A key that worked from this address lately still works; the demo catalog counts the same keys.
  assert.equal((await api(key, '/chats/chat?limit=1')).status, 200);
  assert.equal((await requestFrom(own, 'GET', '/demo/v1/pets', from, { authorization: 'Bearer prl_random-demo' })).status, 429);
  // A valid key not seen from here lately waits for the window's end too (it cannot be told from a guess).
  assert.equal((await api(unusedKey, '/chats/chat')).status, 429);
});

test('console login: attempts per address are limited, whatever the e-mail', async () => {
  const own = await startTestApp({ redisUrl, loginAttemptsPerIp: 3 });
  apps.push(own);
  const { email } = await own.createAccount();
  // An address of its own (Redis keeps counts across runs); a window of a minute starts at its first attempt.
  const [from, elsewhere] = [randomLoopback(), randomLoopback()];
  const statuses = [];
  for (let i = 0; i < 3; i += 1) statuses.push((await loginFrom(own, { email: `nobody${i}@example.com`, password: 'x' }, from)).status);
  assert.deepEqual(statuses, [401, 401, 401]);
  const limited = await loginFrom(own, { email, password: PASSWORD }, from);
  assert.equal(limited.status, 429);
  assert.equal(limited.text, '{"message":"Too many login attempts from this address; try again later","statusCode":429}');
  assertLimitHeaders(limited, '3;w=60', 3, 0);
  assert.ok(Number(limited.headers.get('retry-after')) >= 1);
  // Another address is not affected.
  assert.equal((await loginFrom(own, { email, password: PASSWORD }, elsewhere)).status, 200);
});

test(`each route with a limit of its own has its own counter: sign-ins spend none of session checks' or invitations' (${redisUrl ? 'Redis' : 'in-memory'} counters)`, async () => {
  const own = await startTestApp({ redisUrl, loginAttemptsPerIp: 3 });
  apps.push(own);
  const { email } = await own.createAccount();
  const from = randomLoopback();
  const json = { 'content-type': 'application/json' };
  const statuses = [];
  for (let i = 0; i < 4; i += 1) statuses.push((await loginFrom(own, { email: `nobody${i}@example.com`, password: 'x' }, from)).status);
  assert.deepEqual(statuses, [401, 401, 401, 429]);

  // The same address's first session check and invitation: their own budgets, whole.
  const session = await requestFrom(own, 'POST', '/console/v1/auth/session', from, json, JSON.stringify({ email, password: PASSWORD }));
  assert.equal(session.status, 200, session.text);
  assertLimitHeaders(session, '3;w=60', 3, 2);
  const invite = await requestFrom(own, 'POST', '/console/v1/auth/accept-invite', from, json, JSON.stringify({ token: 'not-an-invitation', name: 'N', password: PASSWORD }));
  assert.equal(invite.status, 400, invite.text);
  assert.equal((invite.body as { message: string }).message, 'This invitation link is not valid: it is unknown or was withdrawn');
  assertLimitHeaders(invite, '3;w=60', 3, 2);
  // Exhausting the session checks leaves the invitations' budget as it was.
  for (let i = 0; i < 2; i += 1) assert.equal((await requestFrom(own, 'POST', '/console/v1/auth/session', from, json, JSON.stringify({ email, password: 'x' }))).status, 401);
  assert.equal((await requestFrom(own, 'POST', '/console/v1/auth/session', from, json, JSON.stringify({ email, password: PASSWORD }))).status, 429);
  const again = await requestFrom(own, 'POST', '/console/v1/auth/accept-invite', from, json, JSON.stringify({ token: 'not-an-invitation', name: 'N', password: PASSWORD }));
  assert.equal(again.status, 400, again.text);
  assertLimitHeaders(again, '3;w=60', 3, 1);

  if (!redisUrl) return;
  // In Redis: one key per route and address, named after the route.
  const { Redis } = createRequire(import.meta.url)('ioredis') as typeof IORedis;
  const redis = new Redis(redisUrl);
  try {
    const keys = (await redis.keys(`parley:rate:console:*${from}`)).sort();
    assert.deepEqual(keys, [
      `parley:rate:console:POST/console/v1/auth/accept-invite:login:${from}`,
      `parley:rate:console:POST/console/v1/auth/login:login:${from}`,
      `parley:rate:console:POST/console/v1/auth/session:login:${from}`,
    ]);
    assert.deepEqual(await Promise.all(keys.map((key) => redis.get(key))), ['2', '4', '4']);
    assert.deepEqual(await redis.keys('parley:rate:*undefined*'), []);
  } finally {
    redis.disconnect();
  }
});

test('a stranger\'s failed logins lock the e-mail for the stranger\'s address only', async () => {
  const own = await startTestApp({ redisUrl });
  apps.push(own);
  const { email } = await own.createAccount();
  for (let i = 0; i < 10; i += 1) assert.equal((await loginFrom(own, { email, password: 'guess' }, '127.0.0.3')).status, 401);
  const locked = await loginFrom(own, { email, password: PASSWORD }, '127.0.0.3');
  assert.equal(locked.status, 429);
  // The owner, elsewhere, logs in.
  const owner = await loginFrom(own, { email, password: PASSWORD });
  assert.equal(owner.status, 200, owner.text);
});

/** Some address of 127.0.0.0/8 other than 127.0.0.1. */
function randomLoopback(): string {
  const byte = () => 1 + Math.floor(Math.random() * 250);
  return `127.${byte()}.${byte()}.${byte()}`;
}

/** A console login sent from a chosen local address. */
function loginFrom(app: TestApp, body: { email: string; password: string }, from = '127.0.0.1'): Promise<TestResponse> {
  return requestFrom(app, 'POST', '/console/v1/auth/login', from, { 'content-type': 'application/json' }, JSON.stringify(body));
}

/** A request sent from a chosen local address (the loopback network is 127.0.0.0/8). */
async function requestFrom(
  app: TestApp,
  method: string,
  path: string,
  from: string,
  headers: Record<string, string> = {},
  payload?: string,
): Promise<TestResponse> {
  const target = new URL(path, app.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method,
        localAddress: from,
        headers: { ...headers, ...(payload === undefined ? {} : { 'content-length': Buffer.byteLength(payload) }) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') responseHeaders.set(name, value);
          resolve({ status: res.statusCode ?? 0, headers: responseHeaders, body: text ? (JSON.parse(text) as unknown) : undefined, text });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe('Redis unreachable', () => {
  let down: TestApp;
  before(async () => {
    down = await startTestApp({ redisUrl: `redis://127.0.0.1:${await closedPort()}`, rateLimitMax: 5 });
  });
  after(() => down.close());

  test('/healthz says degraded with 200, requests do not wait, and the limit holds in the process', async () => {
    const health = await down.request('GET', '/healthz');
    assert.equal(health.status, 200);
    assert.equal(health.text, '{"status":"degraded","redis":"down"}');
    const { key } = await down.createAccount();
    const started = performance.now();
    const first = await down.api(key, '/chats/chat', { limit: '1' });
    assert.ok(performance.now() - started < 1_000, `a request waited ${performance.now() - started} ms`);
    assert.equal(first.status, 200);
    const { passed, limited } = await exhaust(async () => {
      const account = await down.createAccount();
      return () => down.api(account.key, '/chats/chat', { limit: '1' });
    }, 5);
    passed.forEach((res, i) => assertLimitHeaders(res, '5;w=10', 5, 4 - i));
    assert.equal(limited.status, 429);
    assertLimitHeaders(limited, '5;w=10', 5, 0);
    // Logged once, not per request or per reconnection attempt.
    assert.equal(down.logs.filter((line) => line.includes('redis unreachable')).length, 1);
  });
});

test('a Redis that accepts connections but never answers: the start and the requests do not wait for it', async () => {
  const sockets = new Set<Socket>();
  const silent = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    const app = await startTestApp({ redisUrl: `redis://127.0.0.1:${(silent.address() as AddressInfo).port}` });
    apps.push(app);
    assert.equal((await app.request('GET', '/healthz')).text, '{"status":"degraded","redis":"down"}');
    const { key } = await app.createAccount();
    const started = performance.now();
    const res = await app.api(key, '/chats/chat', { limit: '1' });
    assert.ok(performance.now() - started < 1_000, `a request waited ${performance.now() - started} ms`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('ratelimit-remaining'), '299');
    assert.equal(app.logs.filter((line) => line.includes('redis unreachable')).length, 1);
  } finally {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
});

test(
  'Redis slow for a moment, then going away and coming back: a late answer is logged as slow and limits stay shared; an outage is degraded then ok, each logged once',
  { skip: redisUrl ? false : 'REDIS_URL is not set (.ci/run sets it)' },
  async () => {
    const target = new URL(redisUrl ?? '');
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
    const app = await startTestApp({ redisUrl: `redis://127.0.0.1:${proxy.port}`, rateLimitMax: 1000 });
    apps.push(app);
    try {
      const health = await app.request('GET', '/healthz');
      assert.equal(health.text, '{"status":"ok"}');
      const { key } = await app.createAccount();
      for (const remaining of ['999', '998', '997']) {
        assert.equal((await app.api(key, '/chats/chat', { limit: '1' })).headers.get('ratelimit-remaining'), remaining);
      }

      // A loaded machine: Redis answers, but past the command timeout.
      const released = proxy.holdAnswers(1_500);
      let started = performance.now();
      const late = await app.api(key, '/chats/chat', { limit: '1' });
      assert.ok(performance.now() - started < 1_400, `a request waited ${performance.now() - started} ms`);
      assert.equal(late.status, 200);
      // This one request is counted in the process (its first hit there)...
      assert.equal(late.headers.get('ratelimit-remaining'), '999');
      // ...but Redis is not taken for down: no switch to per-process counting.
      assert.equal((await app.request('GET', '/healthz')).text, '{"status":"ok"}');
      await released;
      await eventually(async () => app.logs.some((line) => line.includes('redis slow')), 10_000);
      // Shared again at once: the late command did count in Redis (4), this is the 5th.
      assert.equal((await app.api(key, '/chats/chat', { limit: '1' })).headers.get('ratelimit-remaining'), '995');
      assert.equal(app.logs.filter((line) => line.includes('redis slow')).length, 1);
      assert.equal(app.logs.filter((line) => line.includes('redis unreachable')).length, 0);

      await proxy.stop();
      started = performance.now();
      const during = await app.api(key, '/chats/chat', { limit: '1' });
      assert.ok(performance.now() - started < 1_000, `a request waited ${performance.now() - started} ms`);
      assert.equal(during.status, 200);
      assert.equal((await app.request('GET', '/healthz')).text, '{"status":"degraded","redis":"down"}');

      await proxy.start();
      await eventually(async () => (await app.request('GET', '/healthz')).text === '{"status":"ok"}', 15_000);
      // Shared counters again: the key's window in Redis went on from where it was.
      const back = await app.api(key, '/chats/chat', { limit: '1' });
      assert.ok(Number(back.headers.get('ratelimit-remaining')) <= 994);
      assert.equal(app.logs.filter((line) => line.includes('redis unreachable')).length, 1);
      assert.equal(app.logs.filter((line) => line.includes('redis reachable again')).length, 1);
      assert.equal(app.logs.filter((line) => line.includes('redis slow')).length, 1);
    } finally {
      await proxy.stop();
    }
  },
);

test(
  'a Redis that stops answering while connected: down once a ping gets no answer either, shared again once it answers',
  { skip: redisUrl ? false : 'REDIS_URL is not set (.ci/run sets it)' },
  async () => {
    const target = new URL(redisUrl ?? '');
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
    const app = await startTestApp({ redisUrl: `redis://127.0.0.1:${proxy.port}`, rateLimitMax: 1000 });
    apps.push(app);
    try {
      const { key } = await app.createAccount();
      assert.equal((await app.api(key, '/chats/chat', { limit: '1' })).headers.get('ratelimit-remaining'), '999');

      // Longer than the command timeout and the ping's together.
      const released = proxy.holdAnswers(5_000);
      const started = performance.now();
      const late = await app.api(key, '/chats/chat', { limit: '1' });
      assert.ok(performance.now() - started < 1_400, `a request waited ${performance.now() - started} ms`);
      assert.equal(late.status, 200);
      await eventually(async () => (await app.request('GET', '/healthz')).text === '{"status":"degraded","redis":"down"}', 10_000);
      assert.equal(app.logs.filter((line) => line.includes('redis unreachable')).length, 1);
      assert.equal(app.logs.filter((line) => line.includes('redis slow')).length, 0);

      await released;
      await eventually(async () => {
        await app.api(key, '/chats/chat', { limit: '1' });
        return (await app.request('GET', '/healthz')).text === '{"status":"ok"}';
      }, 15_000);
      assert.equal(app.logs.filter((line) => line.includes('redis reachable again')).length, 1);
    } finally {
      await proxy.stop();
    }
  },
);

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A TCP proxy to Redis on a fixed local port that the test can stop (connections cut) and start again, or whose
 * answers it can hold back for a while (a slow Redis).
 */
async function startTcpProxy(host: string, port: number) {
  const sockets = new Set<Socket>();
  /** Sends what each connection's Redis answered while held. */
  const releases = new Set<() => void>();
  let heldUntil = 0;
  let server: Server | undefined;
  let listenPort = 0;
  const start = async () => {
    const created = createServer((client) => {
      const upstream = connect(port, host);
      sockets.add(client).add(upstream);
      client.pipe(upstream);
      const held: Buffer[] = [];
      const release = () => {
        for (const chunk of held.splice(0)) client.write(chunk);
      };
      releases.add(release);
      upstream.on('data', (chunk: Buffer) => {
        if (Date.now() < heldUntil || held.length > 0) held.push(chunk);
        else client.write(chunk);
      });
      const drop = () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
        releases.delete(release);
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
    });
    await new Promise<void>((resolve) => created.listen(listenPort, '127.0.0.1', resolve));
    listenPort = (created.address() as AddressInfo).port;
    server = created;
  };
  await start();
  return {
    get port() {
      return listenPort;
    },
    start,
    /** Holds Redis's answers back for `ms`, then sends them; settles once they are sent. */
    async holdAnswers(ms: number) {
      heldUntil = Date.now() + ms;
      await sleep(ms);
      for (const release of releases) release();
    },
    async stop() {
      const current = server;
      server = undefined;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      releases.clear();
      if (current) await new Promise<void>((resolve) => current.close(() => resolve()));
    },
  };
}
