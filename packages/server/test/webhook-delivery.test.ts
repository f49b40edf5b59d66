// Webhook delivery end to end through the public API, against real local receivers (spec, Events →
// Delivery rules): POST JSON with the two headers, 2xx within 2 s, 3 attempts with pauses of 2 s and 4 s.
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { createHmac } from 'node:crypto';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { recordEvent } from '../src/events/outbox.ts';
import { newId } from '../src/lib/ids.ts';
import { createSecretBox } from '../src/lib/secret-box.ts';
import { createDeliveryStore, type DeliveryStore } from '../src/webhooks/delivery-store.ts';
import { createDeliveryWorker, DELIVERY_PER_CHANNEL } from '../src/webhooks/delivery-worker.ts';
import { createWebhookClient } from '../src/kernel/http-client.ts';
import { sampleNewMessagesEvent } from '../src/webhooks/payloads.ts';
import { createUrlGuard } from '../src/kernel/url-guard.ts';
import { eventsOf, eventually } from './support/events.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';
import { SECRETS_KEY, startTestApp, type TestApp } from './support/harness.ts';

const SETTINGS = { behavior: '', role: '', task: '', greeting: '', isActive: false, aiLang: 'en' };

interface Delivery {
  status: string;
  attempts: number;
  last_error: string | null;
}

async function setUp(t: TestApp, receiverUrl: string | null, extra: Record<string, unknown> = {}) {
  const user = await t.createConsoleUser();
  const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
    // The agent is off: each customer message makes exactly one event here.
    body: { name: 'Hooked', settings: { isActive: false }, ...(receiverUrl ? { webhookUrl: receiverUrl } : {}), ...extra },
  });
  assert.equal(channel.status, 201, channel.text);
  const send = (externalChatId: string, text = 'Hello') =>
    t.request('POST', '/api/v1/chats/chat/send-message-universal', {
      headers: { authorization: user.key },
      body: { channel: 'custom', channelId: channel.body.id, externalChatId, role: 'user', text },
    });
  const deliveries = () =>
    queryRows<Delivery>(t.database.db, sql`select status, attempts, last_error from deliveries where channel_id = ${channel.body.id} order by created_at`);
  return { user, channelId: channel.body.id, send, deliveries };
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('delivery', { concurrency: true }, () => {
  let t: TestApp;
  const receivers: Receiver[] = [];
  const receiver = async () => {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  };
  before(async () => {
    t = await startTestApp({ webhookAllowPrivateNetworks: true });
  });
  after(async () => {
    await t.close();
    await Promise.all(receivers.map((r) => r.close()));
  });

  test('a customer message arrives as new_messages: POST, JSON, the spec headers, the stored payload', async () => {
    const r = await receiver();
    const { send, channelId, deliveries } = await setUp(t, `${r.url}/hook`);
    assert.equal((await send('d-1', 'Where is my order?')).status, 201);
    await eventually(async () => r.requests.length === 1);
    const request = r.requests[0];
    assert.equal(request?.method, 'POST');
    assert.equal(request?.url, '/hook');
    assert.equal(request?.headers['content-type'], 'application/json');
    assert.equal(request?.headers['user-agent'], 'API-Gate-Webhook/1.0');
    assert.equal(request?.headers['webhook-signature'], undefined);
    const stored = await queryRows<{ payload: unknown }>(t.database.db, sql`select payload from events where channel_id = ${channelId}`);
    assert.deepEqual(JSON.parse(request?.body ?? ''), stored[0]?.payload);
    await eventually(async () => (await deliveries())[0]?.status === 'delivered');
    assert.deepEqual(await deliveries(), [{ status: 'delivered', attempts: 1, last_error: null }]);
  });

  test('always 500: exactly 3 attempts, then failed', async () => {
    const r = await receiver();
    const { send, deliveries } = await setUp(t, `${r.url}/down`);
    r.respond((_req, res) => {
      res.statusCode = 500;
      res.end('no');
    });
    await send('d-3');
    await eventually(async () => (await deliveries())[0]?.status === 'failed', 12_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(r.requests.length, 3);
    assert.deepEqual(await deliveries(), [{ status: 'failed', attempts: 3, last_error: 'HTTP 500' }]);
  });

  test('an answer after 3 s is a failure; the retry succeeds', async () => {
    const r = await receiver();
    const { send, deliveries } = await setUp(t, `${r.url}/slow`);
    let calls = 0;
    r.respond((_req, res) => {
      calls += 1;
      if (calls === 1) setTimeout(() => res.end('late'), 3000).unref();
      else res.end('ok');
    });
    await send('d-4');
    await eventually(async () => (await deliveries())[0]?.status === 'delivered', 12_000);
    assert.deepEqual(await deliveries(), [{ status: 'delivered', attempts: 2, last_error: null }]);
    const attempts = await queryRows<{ error: string | null; status_code: number | null }>(
      t.database.db,
      sql`select a.error, a.status_code from delivery_attempts a join deliveries d on d.id = a.delivery_id
          join channels c on c.id = d.channel_id where c.webhook_url = ${`${r.url}/slow`} order by a.number`,
    );
    assert.deepEqual(attempts, [
      { error: 'no answer within 2000 ms', status_code: null },
      { error: null, status_code: 200 },
    ]);
  });

  test('connection refused: 3 attempts, then failed', async () => {
    const { send, deliveries } = await setUp(t, `http://127.0.0.1:${await closedPort()}/gone`);
    await send('d-5');
    await eventually(async () => (await deliveries())[0]?.status === 'failed', 12_000);
    const [delivery] = await deliveries();
    assert.equal(delivery?.attempts, 3);
    assert.match(delivery?.last_error ?? '', /ECONNREFUSED|connect/);
  });

  test('a receiver that closes mid-response fails the attempt; a redirect is not followed', async () => {
    const r = await receiver();
    const { send, deliveries } = await setUp(t, `${r.url}/flaky`);
    let calls = 0;
    r.respond((req, res, raw) => {
      calls += 1;
      if (req.url === '/elsewhere') return res.end('followed!');
      if (calls === 1) {
        res.writeHead(200, { 'content-length': '100' });
        res.write('partial');
        raw.socket.destroy();
        return;
      }
      if (calls === 2) return res.writeHead(302, { location: '/elsewhere' }).end();
      res.end('ok');
    });
    await send('d-6');
    await eventually(async () => (await deliveries())[0]?.status === 'delivered', 12_000);
    assert.deepEqual(r.requests.map((q) => q.url), ['/flaky', '/flaky', '/flaky']);
    assert.deepEqual(await deliveries(), [{ status: 'delivered', attempts: 3, last_error: null }]);
  });

  test('a huge response body is cut off and does not fail the delivery', async () => {
    const r = await receiver();
    const { send, deliveries } = await setUp(t, `${r.url}/huge`);
    r.respond((_req, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 'x');
      let sent = 0;
      const pump = () => {
        while (sent < 300 && res.write(chunk)) sent += 1;
        if (sent < 300) res.once('drain', pump);
        else res.end();
      };
      pump();
    });
    await send('d-7');
    await eventually(async () => (await deliveries())[0]?.status === 'delivered', 5000);
  });

  test('a slow receiver of one channel does not delay another channel', async () => {
    const slow = await receiver();
    const fast = await receiver();
    // The slow receiver answers nothing until the fast channel is served (a 0.8 s answer made the test a race on a
    // loaded machine): each slow call waits out the 2 s timeout, 16 at a time, so the slow channel's first attempts
    // alone take 10 s or more, and its retries longer.
    const held: ServerResponse[] = [];
    slow.respond((_req, res) => {
      held.push(res);
    });
    const a = await setUp(t, `${slow.url}/slow`);
    const b = await setUp(t, `${fast.url}/fast`);
    // Sent together: one by one took 8 s under load, long enough for the slow receiver to see most first attempts.
    await Promise.all(Array.from({ length: 80 }, (_, i) => a.send(`slow-${i}`)));
    await eventually(async () => held.length > 0, 30_000);
    for (let i = 0; i < 5; i += 1) await b.send(`fast-${i}`);
    try {
      await eventually(async () => (await b.deliveries()).filter((d) => d.status === 'delivered').length === 5, 30_000);
      const slowPending = (await a.deliveries()).filter((d) => d.status === 'pending').length;
      assert.ok(slowPending > 0, 'the fast channel was served while the slow one still had a backlog');
      // Served beside the slow calls, not behind them: the slow receiver had not yet seen all 80 first attempts.
      assert.ok(held.length < 80, `the fast channel was served before the slow backlog's end (${held.length} slow calls so far)`);
    } finally {
      for (const res of held) res.end('ok');
      slow.respond((_req, res) => res.end('ok'));
    }
    await eventually(async () => (await a.deliveries()).every((d) => d.status === 'delivered'), 30_000);
  });
});

// Alone, so that no other test's load shifts the timers it measures.
describe('retry schedule', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ webhookAllowPrivateNetworks: true });
  });
  after(() => t.close());

  test('500, 500, 200: three attempts with pauses of 2 s and 4 s; the signature id stays the same', async () => {
    const r = await startReceiver();
    try {
      await retriesThreeTimes(r);
    } finally {
      await r.close();
    }
  });

  async function retriesThreeTimes(r: Receiver) {
    const secret = 'a-signing-secret-for-retries';
    const { send, deliveries, channelId } = await setUp(t, `${r.url}/retry`, { webhookSecret: secret });
    let calls = 0;
    r.respond((_req, res) => {
      calls += 1;
      res.statusCode = calls < 3 ? 500 : 200;
      res.end();
    });
    await send('d-2');
    await eventually(async () => r.requests.length === 3, 12_000);
    await eventually(async () => (await deliveries())[0]?.status === 'delivered');
    // From the end of one attempt to the start of the next, as the worker recorded them.
    const attempts = await queryRows<{ started: number; latency: number }>(
      t.database.db,
      sql`select (extract(epoch from a.started_at) * 1000)::float8 as started, a.latency_ms as latency
          from delivery_attempts a join deliveries d on d.id = a.delivery_id where d.channel_id = ${channelId} order by a.number`,
    );
    const pause = (i: number) => (attempts[i + 1]?.started ?? 0) - ((attempts[i]?.started ?? 0) + (attempts[i]?.latency ?? 0));
    assert.equal(attempts.length, 3);
    // A pause is about the schedule's (its ends are measured apart, to the millisecond); a loaded machine may make it longer (the worker's next turn),
    // but the second is still about twice the first.
    assert.ok(pause(0) >= 1800 && pause(0) <= 3500, `first pause ${pause(0)} ms`);
    assert.ok(pause(1) >= 3800 && pause(1) <= 5500, `second pause ${pause(1)} ms`);
    assert.ok(pause(1) - pause(0) >= 1500, `pauses ${pause(0)} and ${pause(1)} ms`);
    const ids = r.requests.map((q) => q.headers['webhook-id']);
    assert.equal(new Set(ids).size, 1, 'one webhook-id across retries');
    for (const q of r.requests) {
      const expected = createHmac('sha256', secret).update(`${String(q.headers['webhook-id'])}.${String(q.headers['webhook-timestamp'])}.${q.body}`).digest('base64');
      assert.equal(q.headers['webhook-signature'], `v1,${expected}`);
    }
    assert.deepEqual(await deliveries(), [{ status: 'delivered', attempts: 3, last_error: null }]);
  }

});

describe('private networks refused at send time (the default)', () => {
  let t: TestApp;
  let r: Receiver;
  before(async () => {
    t = await startTestApp();
    r = await startReceiver();
  });
  after(async () => {
    await t.close();
    await r.close();
  });

  test('a webhook URL that now resolves to 127.0.0.1 is never sent to', async () => {
    const { send, channelId, deliveries } = await setUp(t, null);
    await t.database.db.execute(
      sql`update channels set webhook_url = ${`http://localhost:${new URL(r.url).port}/hook`} where id = ${channelId}`,
    );
    await send('p-1');
    await eventually(async () => (await deliveries())[0]?.status === 'failed', 12_000);
    assert.equal(r.requests.length, 0);
    assert.match((await deliveries())[0]?.last_error ?? '', /refused to connect to .* \(private network\)/);
  });
});

describe('two workers on one database', () => {
  test('never send the same delivery twice', async () => {
    const first = await startTestApp({ webhookAllowPrivateNetworks: true });
    const second = await startTestApp({ webhookAllowPrivateNetworks: true, database: first.database });
    const r = await startReceiver();
    try {
      const { send, deliveries } = await setUp(first, `${r.url}/both`);
      await Promise.all(Array.from({ length: 40 }, (_, i) => send(`w-${i}`)));
      second.app.log.info('second worker polls too');
      await eventually(async () => (await deliveries()).filter((d) => d.status === 'delivered').length === 40, 10_000);
      await new Promise((resolve) => setTimeout(resolve, 700)); // another poll round of both workers
      const ids = r.requests.map((q) => (JSON.parse(q.body) as { messages: { id: string }[] }).messages[0]?.id);
      assert.equal(r.requests.length, 40);
      assert.equal(new Set(ids).size, 40);
    } finally {
      await second.close();
      await first.close();
      await r.close();
    }
  });
});

describe('a backlog of one channel', () => {
  test('drains with claims fetched ahead, never over the channel cap in flight, attempts recorded in batches', async () => {
    const t = await startTestApp({ webhookAllowPrivateNetworks: true, workers: false });
    const r = await startReceiver();
    const BACKLOG = 300;
    let open = 0;
    let mostOpen = 0;
    r.respond((_req, res) => {
      open += 1;
      mostOpen = Math.max(mostOpen, open);
      res.on('finish', () => {
        open -= 1;
      });
      setTimeout(() => res.end('ok'), 5).unref();
    });
    const store = createDeliveryStore(t.database.db);
    const calls = { claims: 0, claimedWhileSending: 0, records: 0, recorded: 0 };
    const counted: DeliveryStore = {
      ...store,
      claim: async (...args) => {
        calls.claims += 1;
        // What the channel still held (in flight or claimed ahead) when the claim was made.
        if ([...args[3].values()].some((held) => held > 0)) calls.claimedWhileSending += 1;
        return store.claim(...args);
      },
      recordAttempts: async (records) => {
        calls.records += 1;
        calls.recorded += records.length;
        await store.recordAttempts(records);
      },
    };
    const worker = createDeliveryWorker({
      store: counted,
      client: createWebhookClient(createUrlGuard({ allowPrivateNetworks: true })),
      secrets: createSecretBox(SECRETS_KEY),
      logger: t.app.log,
      pollMs: 60_000,
    });
    try {
      const { user, channelId, deliveries } = await setUp(t, `${r.url}/backlog`);
      const channel = { id: channelId, kind: 'custom' as const, settings: SETTINGS };
      await t.database.db.transaction(async (tx) => {
        for (let i = 0; i < BACKLOG; i += 1) {
          const payload = sampleNewMessagesEvent(channel, { chatId: newId(), messageId: newId() }, new Date());
          await recordEvent(tx, { accountId: user.accountId, channelId, chatId: null, payload });
        }
      });
      await worker.start();
      await eventually(async () => (await deliveries()).every((d) => d.status === 'delivered'), 60_000);
      const ids = new Set(r.requests.map((q) => (JSON.parse(q.body) as { messages: { id: string }[] }).messages[0]?.id));
      assert.equal(ids.size, BACKLOG);
      // Each request is one recorded attempt (on a loaded machine an answer may miss its 2 s and be tried again).
      assert.equal(r.requests.length, calls.recorded);
      assert.ok(mostOpen <= DELIVERY_PER_CHANNEL, `${mostOpen} requests of one channel at once`);
      // Attempts that end in one turn of the event loop or while a write is in flight go together in the next one.
      assert.ok(calls.records <= calls.recorded / 3, `${calls.records} record statements for ${calls.recorded} attempts`);
      // Claims come in batches, each after the first made while the channel still holds earlier ones to send.
      assert.ok(calls.claims <= BACKLOG / (DELIVERY_PER_CHANNEL / 2) + 2, `${calls.claims} claims`);
      assert.ok(calls.claimedWhileSending >= (calls.claims - 2) / 2, `${calls.claimedWhileSending} of ${calls.claims} claims made while sending`);
    } finally {
      await worker.stop();
      await t.close();
      await r.close();
    }
  });
});

describe('a delivery made by another process', () => {
  test('wakes the worker at once through NOTIFY, not at its next poll', async () => {
    // The API process runs no workers; the worker process polls once a minute, so only the NOTIFY can wake it.
    const api = await startTestApp({ webhookAllowPrivateNetworks: true, workers: false });
    const worker = await startTestApp({ webhookAllowPrivateNetworks: true, database: api.database, deliveryPollMs: 60_000 });
    const r = await startReceiver();
    try {
      const { send, deliveries } = await setUp(api, `${r.url}/notified`);
      for (let i = 1; i <= 3; i += 1) {
        assert.equal((await send(`n-${i}`)).status, 201);
        await eventually(async () => r.requests.length === i, 3_000);
      }
      // The last attempt is recorded just after its answer came.
      await eventually(async () => (await deliveries()).every((d) => d.status === 'delivered'), 3_000);
      assert.deepEqual((await deliveries()).map((d) => d.status), ['delivered', 'delivered', 'delivered']);
    } finally {
      await worker.close();
      await api.close();
      await r.close();
    }
  });

  test('a rolled-back change sends nothing and wakes no one', async () => {
    const t = await startTestApp({ webhookAllowPrivateNetworks: true });
    const r = await startReceiver();
    try {
      const { channelId, user } = await setUp(t, `${r.url}/rolled-back`);
      await assert.rejects(
        t.database.db.transaction(async (tx) => {
          await recordEvent(tx, { accountId: user.accountId, channelId, chatId: null, payload: sampleNewMessagesEvent({ id: channelId, kind: 'custom', settings: SETTINGS }, { chatId: newId(), messageId: newId() }, new Date()) });
          throw new Error('rolled back');
        }),
        /rolled back/,
      );
      const [row] = await queryRows<{ events: number; deliveries: number }>(
        t.database.db,
        sql`select (select count(*)::int from events where channel_id = ${channelId}) as events,
                   (select count(*)::int from deliveries where channel_id = ${channelId}) as deliveries`,
      );
      assert.deepEqual(row, { events: 0, deliveries: 0 });
      await new Promise((resolve) => setTimeout(resolve, 700)); // a poll round of the worker
      assert.equal(r.requests.length, 0);
    } finally {
      await t.close();
      await r.close();
    }
  });
});

describe('delivery log and redelivery (console)', () => {
  let t: TestApp;
  let r: Receiver;
  before(async () => {
    t = await startTestApp({ webhookAllowPrivateNetworks: true });
    r = await startReceiver();
  });
  after(async () => {
    await t.close();
    await r.close();
  });

  type Logged = { id: string; event: string; status: string; attempts: { number: number; statusCode: number | null; latencyMs: number; error: string | null }[] };

  test('the log shows each attempt; one delivery or all failed ones of a range can be sent again', async () => {
    const { user, channelId, send, deliveries } = await setUp(t, `${r.url}/log`);
    r.respond((_req, res) => {
      res.statusCode = 503;
      res.end();
    });
    await send('log-1');
    await eventually(async () => (await deliveries())[0]?.status === 'failed', 12_000);
    const log = await t.console<{ deliveries: Logged[] }>(user.token, 'GET', `/channel/custom/${channelId}/deliveries`);
    assert.equal(log.status, 200);
    const [failed] = log.body.deliveries;
    assert.equal(failed?.event, 'new_messages');
    assert.equal(failed?.status, 'failed');
    assert.deepEqual(failed?.attempts.map((a) => [a.number, a.statusCode, a.error]), [
      [1, 503, 'HTTP 503'],
      [2, 503, 'HTTP 503'],
      [3, 503, 'HTTP 503'],
    ]);

    r.respond((_req, res) => res.end('ok'));
    const again = await t.console<{ id: string }>(user.token, 'POST', `/deliveries/${failed?.id}/redeliver`);
    assert.equal(again.status, 202);
    await eventually(async () => (await deliveries()).some((d) => d.status === 'delivered'));
    assert.equal(r.requests.length, 4);

    r.respond((_req, res) => {
      res.statusCode = 500;
      res.end();
    });
    await send('log-2');
    await eventually(async () => (await deliveries()).filter((d) => d.status === 'failed').length === 2, 12_000);
    r.respond((_req, res) => res.end('ok'));
    const range = { from: new Date(Date.now() - 60_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() };
    const bulk = await t.console<{ count: number }>(user.token, 'POST', `/channel/custom/${channelId}/deliveries/redeliver`, { body: range });
    assert.deepEqual([bulk.status, bulk.body], [202, { count: 2 }]);
    await eventually(async () => (await deliveries()).every((d) => d.status === 'delivered'), 5000);

    const intruder = await t.createConsoleUser();
    assert.equal((await t.console(intruder.token, 'GET', `/channel/custom/${channelId}/deliveries`)).status, 404);
    assert.equal((await t.console(intruder.token, 'POST', `/deliveries/${failed?.id}/redeliver`)).status, 404);
    assert.equal((await t.console(intruder.token, 'POST', `/channel/custom/${channelId}/deliveries/redeliver`, { body: range })).status, 404);
    const backwards = { from: range.to, to: range.from };
    assert.deepEqual((await t.console(user.token, 'POST', `/channel/custom/${channelId}/deliveries/redeliver`, { body: backwards })).body, {
      message: '"from" must be before "to"',
      statusCode: 400,
    });
  });

  test('delivered rows older than the retention are pruned; failed ones are kept', async () => {
    const { channelId, send, deliveries } = await setUp(t, `${r.url}/prune`);
    await send('prune-1');
    await eventually(async () => (await deliveries())[0]?.status === 'delivered');
    await t.database.db.execute(sql`update deliveries set finished_at = now() - interval '8 days' where channel_id = ${channelId}`);
    await t.database.db.execute(
      sql`insert into deliveries (id, event_id, account_id, channel_id, status, next_attempt_at, finished_at)
          select gen_random_uuid(), event_id, account_id, channel_id, 'failed', now(), now() - interval '30 days' from deliveries where channel_id = ${channelId}`,
    );
    await t.database.db.execute(sql`update events set created_at = now() - interval '8 days' where channel_id = ${channelId}`);
    const restarted = await startTestApp({ database: t.database }); // a worker start prunes
    await restarted.close();
    assert.deepEqual((await deliveries()).map((d) => d.status), ['failed']);
    // An old event is kept while a delivery (the failed one) needs it, and pruned with its last delivery.
    assert.equal((await eventsOf(t.database.db, channelId)).length, 1);
    await t.database.db.execute(sql`delete from deliveries where channel_id = ${channelId}`);
    const again = await startTestApp({ database: t.database });
    await again.close();
    assert.equal((await eventsOf(t.database.db, channelId)).length, 0);
  });
});
