// A repeated refusal answered from memory (http/public/refusal-memory.ts, docs/decisions.md "A repeated refusal"):
// the same GET refused for its query with the same key, again within a second, gets the same answer from the HTTP
// server's request listener: counted by the rate limit, its own request id, no access line of its own but a
// `request refused again` line with the count, and seen by the metrics. A key change, another header or the limit
// sends the request the full way.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually } from './support/events.ts';
import { startTestApp, type TestApp, type TestResponse } from './support/harness.ts';

const METRICS_TOKEN = 'refusal-memory-metrics-token-0123456789';
const REFUSED = { limit: '1', bogus: '1' };
const REFUSED_URL = '/api/v1/chats/chat?limit=1&bogus=1';
const REFUSAL = '{"message":["property bogus should not exist"],"statusCode":400}';

interface LogLine {
  msg?: string;
  reqId?: string;
  url?: string;
  statusCode?: number;
  repeated?: number;
  ip?: string;
  method?: string;
}

const lines = (t: TestApp): LogLine[] => t.logs.map((line) => JSON.parse(line) as LogLine);
const accessLineOf = (t: TestApp, reqId: string | null) => lines(t).find((line) => line.msg === 'request' && line.reqId === reqId);

/**
 * The refused GET twice (the second full refusal within a second makes it remembered), then `again` times at once:
 * every answer is the refusal. Tried anew (another key, so another identity) until at least one came from memory: a
 * loaded machine may take longer than the memory's second between two requests. Returns every answer, how many came
 * from memory and the `request refused again` lines that told them.
 */
async function refuseRepeatedly(t: TestApp, again: number, requestId?: (attempt: number, index: number) => string) {
  for (let attempt = 0; ; attempt += 1) {
    const { key, keyId, accountId } = await t.createAccount();
    const refuse = (index: number) =>
      t.request('GET', '/api/v1/chats/chat', {
        headers: { authorization: key, ...(requestId ? { 'x-request-id': requestId(attempt, index) } : {}) },
        query: REFUSED,
      });
    const first = await refuse(0);
    const second = await refuse(1);
    const repeats = await Promise.all(Array.from({ length: again }, (_, index) => refuse(index + 2)));
    const answers = [first, second, ...repeats];
    const ids = new Set(answers.map((answer) => answer.headers.get('x-request-id')));
    // Every answer is accounted for once: its own access line, or a count in a `request refused again` line that
    // names the full answer it repeated.
    const { fromMemory, told } = await eventually(async () => {
      const logged = lines(t).filter((line) => line.msg === 'request' && ids.has(line.reqId ?? null));
      const told = lines(t).filter((line) => line.msg === 'request refused again' && ids.has(line.reqId ?? null));
      const fromMemory = told.reduce((sum, line) => sum + (line.repeated ?? 0), 0);
      return logged.length + fromMemory === answers.length ? { fromMemory, told } : undefined;
    });
    if (fromMemory > 0 || attempt === 4) return { key, keyId, accountId, answers, fromMemory, told };
  }
}

describe('a repeated refusal, answered from memory', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ metricsToken: METRICS_TOKEN });
  });
  after(() => t.close());

  test('the same answer, counted by the rate limit, with its own request id and one line for the repeats', async () => {
    const { answers, fromMemory, told } = await refuseRepeatedly(t, 5);
    assert.ok(fromMemory > 0, 'some answers came from memory');
    for (const answer of answers) {
      assert.equal(answer.status, 400);
      assert.equal(answer.text, REFUSAL);
      assert.equal(answer.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.equal(answer.headers.get('ratelimit-policy'), '300;w=10');
      assert.equal(answer.headers.get('ratelimit-limit'), '300');
      const reset = Number(answer.headers.get('ratelimit-reset'));
      assert.ok(Number.isInteger(reset) && reset >= 0 && reset <= 10, `reset ${reset}`);
    }
    // Each answer counted once, from memory or not: the key's remaining counts are 299 down to 293.
    const remaining = answers.map((answer) => Number(answer.headers.get('ratelimit-remaining'))).sort((a, b) => b - a);
    assert.deepEqual(remaining, [299, 298, 297, 296, 295, 294, 293]);
    const ids = answers.map((answer) => answer.headers.get('x-request-id'));
    assert.equal(new Set(ids).size, ids.length, 'a request id of its own each');
    // The repeats' line names the request as the access line would.
    for (const line of told) {
      assert.deepEqual(
        { method: line.method, url: line.url, statusCode: line.statusCode, ip: line.ip },
        { method: 'GET', url: REFUSED_URL, statusCode: 400, ip: '127.0.0.1' },
      );
    }
  });

  test('a sane X-Request-Id is kept, as on the full path', async () => {
    const given = (attempt: number, index: number) => `given-${process.pid}-${attempt}-${index}`;
    const { answers, fromMemory } = await refuseRepeatedly(t, 3, given);
    assert.ok(fromMemory > 0);
    const attempt = Number(answers[0]?.headers.get('x-request-id')?.split('-')[2]);
    assert.deepEqual(
      answers.map((answer) => answer.headers.get('x-request-id')),
      answers.map((_, index) => given(attempt, index)),
    );
  });

  test('a key deactivated: the next request is refused for its key at once, not from memory', async () => {
    const { key, keyId } = await refuseRepeatedly(t, 2);
    assert.equal((await t.admin('POST', `/api-keys/${keyId}/deactivate`)).status, 200);
    const after = await t.api(key, '/chats/chat', REFUSED);
    assert.equal(after.status, 403);
    assert.deepEqual(after.body, { message: 'Key not active', code: 403 });
  });

  test('another header (an Origin) takes the full path: its own access line', async () => {
    const { key } = await refuseRepeatedly(t, 2);
    const withOrigin = await t.request('GET', '/api/v1/chats/chat', { headers: { authorization: key, origin: 'https://shop.example' }, query: REFUSED });
    assert.equal(withOrigin.status, 400);
    await eventually(async () => accessLineOf(t, withOrigin.headers.get('x-request-id')));
  });

  test('a 404 or an accepted query is not remembered', async () => {
    const { key } = await t.createAccount();
    const answers: TestResponse[] = [];
    for (let i = 0; i < 3; i += 1) answers.push(await t.api(key, '/chats/chat', { limit: '1' }));
    for (let i = 0; i < 3; i += 1) answers.push(await t.api(key, '/no/such/route', { bogus: '1' }));
    assert.deepEqual(answers.map((answer) => answer.status), [200, 200, 200, 404, 404, 404]);
    for (const answer of answers) await eventually(async () => accessLineOf(t, answer.headers.get('x-request-id')));
  });

  test('the metrics count the answers given from memory', async () => {
    const count = async () => {
      const res = await t.request('GET', '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      const line = res.text
        .split('\n')
        .find((row) => row.startsWith('http_request_duration_seconds_count{') && row.includes('route="/api/v1/chats/chat"') && row.includes('status_code="400"'));
      return line === undefined ? 0 : Number(line.split(' ').at(-1));
    };
    const start = await count();
    const { answers, fromMemory } = await refuseRepeatedly(t, 4);
    assert.ok(fromMemory > 0);
    // Failed attempts of refuseRepeatedly count too: compare with every refusal sent since.
    const sent = (await count()) - start;
    assert.ok(sent >= answers.length && sent % answers.length === 0, `${sent} counted for rounds of ${answers.length}`);
  });
});

describe('a repeated refusal past the rate limit', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ rateLimitMax: 4 });
  });
  after(() => t.close());

  test('the memory counts in the same window: past the limit the answer is the 429', async () => {
    const { key, answers, fromMemory } = await refuseRepeatedly(t, 2);
    assert.ok(fromMemory > 0);
    assert.deepEqual(answers.map((answer) => answer.status), [400, 400, 400, 400]);
    const limited = await t.api(key, '/chats/chat', REFUSED);
    assert.equal(limited.status, 429);
    assert.equal(limited.text, '{"message":"Too many requests","code":429}');
    assert.equal(limited.headers.get('ratelimit-remaining'), '0');
    assert.ok(Number(limited.headers.get('retry-after')) >= 0);
  });
});

describe('a refusal that keeps coming', () => {
  let t: TestApp;
  before(async () => {
    // As many requests as the machine answers in 2.5 s, one at a time: more than the spec's 300 per 10 s.
    t = await startTestApp({ rateLimitMax: 1_000_000 });
  });
  after(() => t.close());

  test('a refusal that keeps coming is remembered again after its second: a full answer, then the memory', async () => {
    const { key } = await t.createAccount();
    const answers: TestResponse[] = [];
    const started = Date.now();
    while (Date.now() - started < 2_500) answers.push(await t.api(key, '/chats/chat', REFUSED));
    assert.ok(answers.every((answer) => answer.text === REFUSAL));
    const ids = new Set(answers.map((answer) => answer.headers.get('x-request-id')));
    const { logged, told } = await eventually(async () => {
      const logged = lines(t).filter((line) => line.msg === 'request' && ids.has(line.reqId ?? null)).length;
      const told = lines(t).filter((line) => line.msg === 'request refused again' && ids.has(line.reqId ?? null));
      return logged + told.reduce((sum, line) => sum + (line.repeated ?? 0), 0) === answers.length ? { logged, told } : undefined;
    });
    // Each second's memory ends with a line; the refusals after it were remembered again by one full answer.
    assert.ok(told.length >= 2, `${told.length} lines for ${answers.length} answers, ${logged} in full`);
    assert.ok(logged < answers.length / 2, `${logged} of ${answers.length} in full`);
  });
});
