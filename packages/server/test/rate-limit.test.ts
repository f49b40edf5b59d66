// Rate limit (spec, Limits): 300 requests per 10 s per API key, headers on every response, exact 429 body.
// With REDIS_URL set the counters live in Redis (several API processes share them); otherwise in memory.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp, type TestResponse } from './support/harness.ts';

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
