// TRUST_PROXY: behind a reverse proxy, the client address of the login and invalid-key limits and of the access log
// comes from X-Forwarded-For only when the request came through a listed proxy; otherwise it is the TCP peer, and a
// client cannot choose its own address by sending the header.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { INVALID_KEYS_PER_IP } from '../src/kernel/rate-counters.ts';
import { PASSWORD, startTestApp, type TestApp } from './support/harness.ts';

const LOGINS = 3;

async function logins(t: TestApp, email: string, forwardedFor: string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const res = await t.request('POST', '/console/v1/auth/login', {
      headers: { 'x-forwarded-for': forwardedFor },
      body: { email, password: PASSWORD },
    });
    statuses.push(res.status);
  }
  return statuses;
}

async function unknownKeys(t: TestApp, forwardedFor: string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const res = await t.request('GET', '/api/v1/chats/chat', { headers: { authorization: `no-such-key-${i}`, 'x-forwarded-for': forwardedFor } });
    statuses.push(res.status);
  }
  return statuses;
}

function accessLogIps(t: TestApp, path: string): string[] {
  return t.logs
    .map((line) => JSON.parse(line) as { msg?: string; url?: string; ip?: string })
    .filter((entry) => entry.msg === 'request' && entry.url === path)
    .map((entry) => entry.ip ?? '');
}

describe('TRUST_PROXY lists the proxy the requests come through', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ trustProxy: ['127.0.0.1'], loginAttemptsPerIp: LOGINS });
  });
  after(() => t.close());

  test('login attempts are limited per forwarded client address', async () => {
    const { email } = await t.createAccount();
    assert.deepEqual(await logins(t, email, '203.0.113.7', LOGINS + 1), [...Array<number>(LOGINS).fill(200), 429]);
    // Another client behind the same proxy keeps its own allowance.
    assert.deepEqual(await logins(t, email, '198.51.100.9', 1), [200]);
    // The proxy appends the address it saw: the client's own header in front of it is not believed past the proxy.
    assert.deepEqual(await logins(t, email, '203.0.113.7, 198.51.100.20', 1), [200]);
  });

  test('unknown keys are counted per forwarded client address', async () => {
    const refused = await unknownKeys(t, '203.0.113.50', INVALID_KEYS_PER_IP + 1);
    assert.equal(refused.at(-1), 429);
    assert.deepEqual(await unknownKeys(t, '203.0.113.51', 1), [404]);
  });

  test('the access log names the forwarded client address', async () => {
    await t.request('GET', '/healthz', { headers: { 'x-forwarded-for': '192.0.2.44' } });
    assert.deepEqual(accessLogIps(t, '/healthz').at(-1), '192.0.2.44');
  });
});

describe('without TRUST_PROXY, X-Forwarded-For is not believed', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ loginAttemptsPerIp: LOGINS });
  });
  after(() => t.close());

  test('a client cannot get a fresh login allowance by sending another X-Forwarded-For', async () => {
    const { email } = await t.createAccount();
    assert.deepEqual(await logins(t, email, '203.0.113.7', LOGINS), Array<number>(LOGINS).fill(200));
    assert.deepEqual(await logins(t, email, '198.51.100.9', 1), [429]);
  });

  test('nor a fresh allowance of unknown keys', async () => {
    await unknownKeys(t, '203.0.113.50', INVALID_KEYS_PER_IP);
    assert.deepEqual(await unknownKeys(t, '203.0.113.51', 1), [429]);
  });

  test('the access log names the TCP peer', async () => {
    await t.request('GET', '/healthz', { headers: { 'x-forwarded-for': '192.0.2.44' } });
    assert.deepEqual(accessLogIps(t, '/healthz').at(-1), '127.0.0.1');
  });
});

describe('a proxy that is not listed', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ trustProxy: ['10.9.8.7'], loginAttemptsPerIp: LOGINS });
  });
  after(() => t.close());

  test('its X-Forwarded-For is not believed', async () => {
    await t.request('GET', '/healthz', { headers: { 'x-forwarded-for': '192.0.2.44' } });
    assert.deepEqual(accessLogIps(t, '/healthz').at(-1), '127.0.0.1');
  });
});
