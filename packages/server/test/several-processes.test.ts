// Several processes on one database (issue #12, 3b): a delivery is never claimed once it is no longer due, status
// changes racing from two processes carry their changedAt in commit order, a crashed holder's job or delivery is
// taken over within seconds, and a slow job is never run twice at once.
// On PGlite one process runs one transaction at a time, so the races are only real on a PostgreSQL server
// (DATABASE_URL); the tests run on both and assert the same things.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../src/db/client.ts';
import { createJobQueue, JOB_LEASE_MS } from '../src/jobs/job-queue.ts';
import { createLogger } from '../src/logger.ts';
import { recordEvent } from '../src/events/outbox.ts';
import { newId } from '../src/lib/ids.ts';
import { createSecretBox } from '../src/lib/secret-box.ts';
import { sampleNewMessagesEvent } from '../src/webhooks/payloads.ts';
import { createDeliveryStore } from '../src/webhooks/delivery-store.ts';
import { createDeliveryWorker, DELIVERY_LEASE_MS } from '../src/webhooks/delivery-worker.ts';
import { createWebhookClient } from '../src/kernel/http-client.ts';
import { createUrlGuard } from '../src/kernel/url-guard.ts';
import { eventsOf, eventually } from './support/events.ts';
import { SECRETS_KEY, startTestApp, type TestApp } from './support/harness.ts';
import { startReceiver } from './support/receiver.ts';

const SETTINGS = { behavior: '', role: '', task: '', greeting: '', isActive: false, aiLang: 'en' };

/** A console user with an API channel whose agent is off; `webhookUrl` optional. */
async function channelOf(t: TestApp, webhookUrl?: string) {
  const user = await t.createConsoleUser();
  const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
    body: { name: 'Several', settings: { isActive: false }, ...(webhookUrl ? { webhookUrl } : {}) },
  });
  assert.equal(channel.status, 201, channel.text);
  return { user, channelId: channel.body.id };
}

describe('delivery claims on one database', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ workers: false, webhookAllowPrivateNetworks: true });
  });
  after(() => t.close());

  test('a delivery recorded by another worker while a claim runs is not claimed again', async () => {
    const { user, channelId } = await channelOf(t, 'http://127.0.0.1:9/never-sent');
    const store = createDeliveryStore(t.database.db);
    const claims = new Map<string, number>();
    // Rounds of: one due delivery, then a claim racing with another worker's "sent and recorded" of it. A claim
    // whose snapshot still saw it pending must skip it once it holds the row (checked again on the locked row).
    for (let round = 0; round < 150; round += 1) {
      const eventId = await recordEvent(t.database.db, {
        accountId: user.accountId,
        channelId,
        chatId: null,
        payload: sampleNewMessagesEvent({ id: channelId, kind: 'custom', settings: SETTINGS }, { chatId: newId(), messageId: newId() }, new Date()),
      });
      const [delivery] = await queryRows<{ id: string }>(t.database.db, sql`select id from deliveries where event_id = ${eventId}`);
      assert.ok(delivery);
      const [claimed] = await Promise.all([
        store.claim(16, 15_000, 16, new Map()),
        // The other worker claims, sends and records it (here in one statement, unless the claim above holds it),
        // committed while the claim above may be running.
        t.database.db.execute(
          sql`update deliveries set status = 'delivered', attempts = 1, locked_until = null, finished_at = now()
              where id = ${delivery.id} and status = 'pending' and (locked_until is null or locked_until < now())`,
        ),
      ]);
      for (const row of claimed) {
        claims.set(row.id, (claims.get(row.id) ?? 0) + 1);
        const [now] = await queryRows<{ status: string; attempts: number }>(
          t.database.db,
          sql`select status, attempts from deliveries where id = ${row.id}`,
        );
        // Claimed here, so the other worker found it reserved and left it alone.
        assert.equal(now?.status, 'pending', `delivery ${row.id} was claimed after another worker had delivered it`);
        await store.recordAttempts([
          {
            delivery: row,
            result: { startedAt: new Date(), latencyMs: 1, statusCode: 200, error: null, ok: true },
            endedAt: Date.now(),
          },
        ]);
      }
    }
    for (const [id, count] of claims) assert.equal(count, 1, `delivery ${id} claimed ${count} times`);
  });
});

/**
 * Whether the statuses, ordered by changedAt, can be the real sequence of changes: each real change flips the
 * status, so they alternate (events with the same changedAt may be in either order) and the last is the final one.
 */
function alternatesByChangedAt(changes: { changedAt: string; current: string }[], final: string): boolean {
  const groups = new Map<string, string[]>();
  for (const change of changes) groups.set(change.changedAt, [...(groups.get(change.changedAt) ?? []), change.current]);
  const ordered = [...groups.entries()].sort(([a], [b]) => a.localeCompare(b));
  let previous: string | undefined;
  for (const [, statuses] of ordered) {
    const done = statuses.filter((s) => s === 'done').length;
    const notDone = statuses.length - done;
    // A tie group alternates on its own: its counts differ by at most one, and it starts with the other status.
    if (Math.abs(done - notDone) > 1) return false;
    const first = done > notDone ? 'done' : notDone > done ? 'not_done' : previous === 'done' ? 'not_done' : 'done';
    if (first === previous) return false;
    previous = statuses.length % 2 === 1 ? first : first === 'done' ? 'not_done' : 'done';
  }
  return previous === final;
}

describe('task status changes racing from two processes', () => {
  test('changedAt follows the order the changes committed in', async () => {
    const first = await startTestApp();
    const second = await startTestApp({ database: first.database });
    try {
      const { user, channelId } = await channelOf(first);
      const sent = await first.request('POST', '/api/v1/chats/chat/send-message-universal', {
        headers: { authorization: user.key },
        body: { channel: 'custom', channelId, externalChatId: 'race', role: 'user', text: 'Hello' },
      });
      assert.equal(sent.status, 201, sent.text);
      const [chat] = await queryRows<{ id: string }>(first.database.db, sql`select id from chats where channel_id = ${channelId}`);
      assert.ok(chat);
      const status = (app: TestApp, value: string) =>
        app.console(user.token, 'POST', `/chat/status/${chat.id}/`, { body: { status: value } });
      for (let round = 0; round < 8; round += 1) {
        const results = await Promise.all(
          Array.from({ length: 24 }, (_, i) => status(i % 2 === 0 ? first : second, i % 4 < 2 ? 'done' : 'not_done')),
        );
        for (const res of results) assert.equal(res.status, 200, res.text);
      }
      const changes = (await eventsOf(first.database.db, channelId))
        .filter((event) => event.kind === 'dialog_status_changed')
        .map((event) => {
          const payload = event.payload as { timestamp: string; status: { changedAt: string; current: string } };
          assert.equal(payload.timestamp, payload.status.changedAt);
          return payload.status;
        });
      assert.ok(changes.length > 1, 'the race made several real changes');
      const [final] = await queryRows<{ task_done: boolean }>(first.database.db, sql`select task_done from chats where id = ${chat.id}`);
      assert.ok(
        alternatesByChangedAt(changes, final?.task_done ? 'done' : 'not_done'),
        `statuses by changedAt: ${[...changes].sort((a, b) => a.changedAt.localeCompare(b.changedAt)).map((c) => `${c.changedAt} ${c.current}`).join(', ')}`,
      );
    } finally {
      await second.close();
      await first.close();
    }
  });
});

/** The database as a process sees it, until it freezes (a crash, a kill -9): then nothing it asks ever returns. */
function freezable(db: Database): { db: Database; freeze(): void } {
  let frozen = false;
  const proxy = new Proxy(db, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => (frozen ? new Promise(() => {}) : (value as (...a: unknown[]) => unknown).apply(target, args));
    },
  });
  return {
    db: proxy,
    freeze() {
      frozen = true;
    },
  };
}

describe('job leases on one database', () => {
  let t: TestApp;
  const logger = createLogger('info', new Writable({ write: (_chunk, _encoding, done) => done() }));
  before(async () => {
    t = await startTestApp({ workers: false });
  });
  after(() => t.close());

  test(`a crashed holder's job is taken by another process within its lease (${JOB_LEASE_MS / 1000} s)`, async () => {
    const holder = freezable(t.database.db);
    let claimed: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      claimed = resolve;
    });
    const dead = createJobQueue({
      db: holder.db,
      logger,
      pollMs: 100,
      handlers: {
        'agent.reply': () => {
          claimed();
          return new Promise(() => {}); // never ends: its process is about to die
        },
        'chat.setTaskStatus': async () => {},
        'messenger.send': async () => {},
        'crm.sync': async () => {},
        'knowledge.embed': async () => {},
      },
    });
    const ran: string[] = [];
    const other = createJobQueue({
      db: t.database.db,
      logger,
      pollMs: 100,
      handlers: {
        'agent.reply': async ({ chatId }) => {
          ran.push(chatId);
        },
        'chat.setTaskStatus': async () => {},
        'messenger.send': async () => {},
        'crm.sync': async () => {},
        'knowledge.embed': async () => {},
      },
    });
    const chatId = newId();
    await dead.enqueue(t.database.db, 'agent.reply', { accountId: newId(), chatId }, { key: `lease-test:${chatId}` });
    dead.start();
    await running;
    holder.freeze();
    const diedAt = Date.now();
    other.start();
    try {
      // The old 60 s reservation would miss this deadline; a 10 s lease (plus a poll) meets it with room to spare.
      await eventually(async () => ran.includes(chatId), JOB_LEASE_MS + 15_000);
      assert.deepEqual(ran, [chatId]);
      assert.ok(Date.now() - diedAt >= JOB_LEASE_MS - 1_000, 'not taken while its lease still ran');
    } finally {
      await other.stop();
    }
  });

  test("a crashed holder's job is claimed when its lease ends, not at the other process's next poll", async () => {
    const leaseMs = 1_000;
    const holder = freezable(t.database.db);
    let claimed: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      claimed = resolve;
    });
    const others = { 'chat.setTaskStatus': async () => {}, 'messenger.send': async () => {}, 'crm.sync': async () => {}, 'knowledge.embed': async () => {} };
    const dead = createJobQueue({
      db: holder.db,
      logger,
      leaseMs,
      handlers: {
        ...others,
        'agent.reply': () => {
          claimed();
          return new Promise(() => {}); // never ends: its process is about to die
        },
      },
    });
    const ranAt: number[] = [];
    // No poll comes during the test: only a wake at the lease's end can start the job.
    const other = createJobQueue({ db: t.database.db, logger, pollMs: 600_000, leaseMs, handlers: { ...others, 'agent.reply': async () => void ranAt.push(Date.now()) } });
    const chatId = newId();
    await dead.enqueue(t.database.db, 'agent.reply', { accountId: newId(), chatId });
    dead.start();
    await running;
    holder.freeze();
    const diedAt = Date.now();
    other.start();
    try {
      // The lease runs out at most 1 s after the crash; another second is room for a loaded machine.
      const [takenAt] = await eventually(async () => ranAt.length > 0 && ranAt, 10_000);
      assert.ok(takenAt !== undefined && takenAt - diedAt <= leaseMs + 1_000, `taken ${(takenAt ?? 0) - diedAt} ms after the crash`);
      assert.ok(takenAt - diedAt >= leaseMs / 2, 'not taken while its lease still ran');
      assert.equal(ranAt.length, 1);
    } finally {
      await other.stop();
      // A job left behind (this test failed) must not run in the next one.
      await t.database.db.execute(sql`delete from jobs where payload->>'chatId' = ${chatId}`);
    }
  });

  test('a job running for several leases is renewed by its heartbeat and never taken twice', async () => {
    const runs: string[] = [];
    let started = 0;
    const queue = (name: string) =>
      createJobQueue({
        db: t.database.db,
        logger,
        pollMs: 50,
        leaseMs: 1_000,
        handlers: {
          'agent.reply': async () => {
            runs.push(name);
            started = Date.now();
            // A slow model call: three and a half leases.
            await new Promise((resolve) => setTimeout(resolve, 3_500));
          },
          'chat.setTaskStatus': async () => {},
          'messenger.send': async () => {},
          'crm.sync': async () => {},
          'knowledge.embed': async () => {},
        },
      });
    const first = queue('first');
    const second = queue('second');
    await first.enqueue(t.database.db, 'agent.reply', { accountId: newId(), chatId: newId() });
    first.start();
    second.start();
    try {
      await eventually(async () => runs.length > 0 && started > 0);
      await eventually(
        async () => (await queryRows(t.database.db, sql`select id from jobs where kind = 'agent.reply' and key is null`)).length === 0,
        20_000,
      );
      assert.equal(runs.length, 1, `ran by ${runs.join(', ')}`);
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  });
});

describe('a delivery sent by a process that died before recording it', () => {
  let t: TestApp;
  const logger = createLogger('info', new Writable({ write: (_chunk, _encoding, done) => done() }));
  before(async () => {
    t = await startTestApp({ workers: false, webhookAllowPrivateNetworks: true });
  });
  after(() => t.close());

  test(`is sent again by another process within its lease (${DELIVERY_LEASE_MS / 1000} s), not 15 s later`, async () => {
    const receiver = await startReceiver();
    const holder = freezable(t.database.db);
    const client = createWebhookClient(createUrlGuard({ allowPrivateNetworks: true }));
    const secrets = createSecretBox(SECRETS_KEY);
    const dying = createDeliveryWorker({ store: createDeliveryStore(holder.db), client, secrets, logger, pollMs: 100 });
    const other = createDeliveryWorker({ store: createDeliveryStore(t.database.db), client, secrets, logger, pollMs: 100 });
    let diedAt = 0;
    // The first attempt reaches the receiver, then its process dies before recording it.
    receiver.respond((_request, res) => {
      if (diedAt === 0) {
        holder.freeze();
        diedAt = Date.now();
      }
      res.end('ok');
    });
    try {
      const { user, channelId } = await channelOf(t, `${receiver.url}/hook`);
      await recordEvent(t.database.db, {
        accountId: user.accountId,
        channelId,
        chatId: null,
        payload: sampleNewMessagesEvent({ id: channelId, kind: 'custom', settings: SETTINGS }, { chatId: newId(), messageId: newId() }, new Date()),
      });
      await dying.start();
      await eventually(async () => diedAt > 0, 10_000);
      await other.start();
      // The old 15 s reservation misses this deadline.
      await eventually(async () => receiver.requests.length === 2, DELIVERY_LEASE_MS + 6_000);
      const resentAfter = (receiver.requests[1]?.at ?? 0) - diedAt;
      assert.ok(resentAfter >= DELIVERY_LEASE_MS - 1_000, `sent again ${resentAfter} ms after, while its lease ran`);
      assert.equal(receiver.requests[0]?.body, receiver.requests[1]?.body);
      const rows = await eventually(async () => {
        const found = await queryRows<{ status: string; attempts: number }>(
          t.database.db,
          sql`select status, attempts from deliveries where channel_id = ${channelId}`,
        );
        return found[0]?.status === 'delivered' ? found : undefined;
      });
      assert.deepEqual(rows, [{ status: 'delivered', attempts: 1 }]);
    } finally {
      await other.stop();
      await client.close();
      await receiver.close();
    }
  });
});
