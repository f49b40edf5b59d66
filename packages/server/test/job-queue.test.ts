// Job claims are woken by committed jobs, not polled for: a job committed by another process is claimed through the
// NOTIFY its statement sent (a rolled-back one wakes no one and never runs), the enqueuing process claims once after
// its commit (its own NOTIFY does not claim again), a finished job claims again only when more are known to wait,
// and a retry due later is claimed when due. Every test runs with a poll far longer than its deadlines.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { sql, type SQLWrapper } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { queryRows, type Database } from '../src/db/client.ts';
import { createJobQueue, JOBS_CHANNEL, type JobHandlers, type JobQueue } from '../src/jobs/job-queue.ts';
import { newId } from '../src/lib/ids.ts';
import { createLogger } from '../src/logger.ts';
import { eventually } from './support/events.ts';
import { startTestApp, type TestApp } from './support/harness.ts';

const NO_POLL_MS = 600_000;
const logger = createLogger('info', new Writable({ write: (_chunk, _encoding, done) => done() }));
const dialect = new PgDialect();

/** The database, counting the job claims made through it and how many of them found nothing. */
function countingClaims(db: Database) {
  const counts = { claims: 0, empty: 0 };
  const counted = new Proxy(db, {
    get(target, property, receiver) {
      if (property !== 'execute') return Reflect.get(target, property, receiver) as unknown;
      return async (query: SQLWrapper) => {
        const result = (await target.execute(query)) as unknown as { rows: unknown[] };
        if (/^UPDATE "jobs" SET locked_until = .* attempts = attempts \+ 1/s.test(dialect.sqlToQuery(query.getSQL()).sql)) {
          counts.claims += 1;
          if (result.rows.length === 0) counts.empty += 1;
        }
        return result;
      };
    },
  });
  return { db: counted, counts };
}

let t: TestApp;
before(async () => {
  t = await startTestApp({ workers: false });
});
after(() => t.close());

/** Handlers that record the chats they ran for; `chat.setTaskStatus` fails its first try when `failFirst`. */
function recording(ran: string[], options: { failFirst?: boolean; ms?: number } = {}): JobHandlers {
  const tries = new Map<string, number>();
  return {
    'crm.sync': async () => {},
    'alerts.webhook': async () => {},
    'alerts.email': async () => {},
    'conversations.sweep': async () => {},
    'retention.sweep': async () => {},
    'assignment.run': async () => {},
    'assignment.sweep': async () => {},
    'audit.prune': async () => {},
    'replay.run': async () => {},
    'agent.handoffSummary': async () => {},
    'knowledge.embed': async () => {},
    'knowledge.parseDocument': async () => {},
    'knowledge.embedDocument': async () => {},
    'agent.reply': async ({ chatId }) => {
      if (options.ms) await new Promise((resolve) => setTimeout(resolve, options.ms));
      ran.push(chatId);
    },
    'chat.setTaskStatus': async ({ chatId }) => {
      const tried = (tries.get(chatId) ?? 0) + 1;
      tries.set(chatId, tried);
      if (options.failFirst && tried === 1) throw new Error('the first try fails');
      ran.push(chatId);
    },
    'messenger.send': async () => {},
  };
}

const reply = () => ({ accountId: newId(), chatId: newId() });

describe('job claims woken by committed jobs', () => {
  let worker: JobQueue | undefined;
  let unlisten: () => Promise<void> = async () => {};
  /** A started queue with a poll that never comes, listening like the app does. */
  async function startWorker(db: Database, handlers: JobHandlers, options: { retryPolicies?: Parameters<typeof createJobQueue>[0]['retryPolicies'] } = {}) {
    const queue = createJobQueue({ db, logger, handlers, pollMs: NO_POLL_MS, ...options });
    // Listening first: a listening connection once made calls back once (NOTIFYs may have been missed), a wake-up
    // that must not come after the claim at start the tests count from.
    unlisten = await t.database.listen(JOBS_CHANNEL, queue.notified);
    queue.start();
    worker = queue;
    return queue;
  }
  async function stopWorker() {
    await unlisten();
    await worker?.stop();
    worker = undefined;
  }

  test("a job committed by another process is claimed through its statement's NOTIFY; a rolled-back one never", async () => {
    const ran: string[] = [];
    await startWorker(t.database.db, recording(ran));
    try {
      const elsewhere = createJobQueue({ db: t.database.db, logger, handlers: recording([]), pollMs: NO_POLL_MS });
      const rolledBack = reply();
      await assert.rejects(
        t.database.db.transaction(async (tx) => {
          await elsewhere.enqueue(tx, 'agent.reply', rolledBack);
          throw new Error('roll back');
        }),
        /roll back/,
      );
      const committed = reply();
      const committedAt = Date.now();
      await t.database.db.transaction((tx) => elsewhere.enqueue(tx, 'agent.reply', committed));
      await eventually(async () => ran.includes(committed.chatId), 3_000);
      assert.ok(Date.now() - committedAt < 3_000);
      assert.deepEqual(ran, [committed.chatId]);
      const left = await queryRows(t.database.db, sql`select id from jobs where payload ->> 'chatId' = ${rolledBack.chatId}`);
      assert.deepEqual(left, []);
    } finally {
      await stopWorker();
    }
  });

  test('keyed jobs enqueued many at once (a base\'s entries) are claimed through their statements\' NOTIFY, each once', async () => {
    const ran: string[] = [];
    await startWorker(t.database.db, recording(ran));
    try {
      const elsewhere = createJobQueue({ db: t.database.db, logger, handlers: recording([]), pollMs: NO_POLL_MS });
      // 501 jobs: two statements, the second of one row; a key given twice is one job.
      const jobs = Array.from({ length: 501 }, reply);
      const added = jobs.map((job) => ({ payload: job, key: `many:${job.chatId}` }));
      await t.database.db.transaction((tx) => elsewhere.enqueueMany(tx, 'agent.reply', [...added, added[0] as (typeof added)[number]]));
      await eventually(async () => ran.length >= jobs.length, 30_000);
      await eventually(async () => (await queryRows(t.database.db, sql`select id from jobs where key like 'many:%'`)).length === 0);
      assert.deepEqual([...ran].sort(), jobs.map((job) => job.chatId).sort());
    } finally {
      await stopWorker();
    }
  });

  test('enqueued many at once, a key already queued is not added again and a running one only runs once more', async () => {
    const queue = createJobQueue({ db: t.database.db, logger, handlers: recording([]), pollMs: NO_POLL_MS });
    const [queued, running, fresh] = [reply(), reply(), reply()];
    await queue.enqueue(t.database.db, 'agent.reply', queued, { key: `once:${queued.chatId}` });
    await queue.enqueue(t.database.db, 'agent.reply', running, { key: `once:${running.chatId}` });
    await t.database.db.execute(sql`update jobs set locked_until = now() + interval '1 minute' where key = ${`once:${running.chatId}`}`);
    await queue.enqueueMany(t.database.db, 'agent.reply', [queued, running, fresh].map((job) => ({ payload: job, key: `once:${job.chatId}` })));
    const rows = await queryRows<{ key: string; rerun: boolean }>(t.database.db, sql`select key, rerun from jobs where key like 'once:%' order by key`);
    assert.deepEqual(
      rows,
      [
        { key: `once:${queued.chatId}`, rerun: false },
        { key: `once:${running.chatId}`, rerun: true },
        { key: `once:${fresh.chatId}`, rerun: false },
      ].sort((a, b) => a.key.localeCompare(b.key)),
    );
    await t.database.db.execute(sql`delete from jobs where key like 'once:%'`);
  });

  test('one claim per job enqueued one at a time: none after a job ends, none for its own NOTIFY', async () => {
    const ran: string[] = [];
    const { db, counts } = countingClaims(t.database.db);
    const queue = await startWorker(db, recording(ran));
    try {
      await eventually(async () => counts.claims === 1); // the claim at start
      counts.claims = 0;
      counts.empty = 0;
      const JOBS = 20;
      for (let i = 0; i < JOBS; i += 1) {
        const job = reply();
        await t.database.db.transaction((tx) => queue.enqueue(tx, 'agent.reply', job));
        queue.wake(); // what a service does after its commit
        await eventually(async () => ran.includes(job.chatId), 3_000);
      }
      // Its own NOTIFYs come after the wake-ups: give them time to claim (they must not).
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(counts, { claims: JOBS, empty: 0 });
    } finally {
      await stopWorker();
    }
  });

  test('a burst larger than the worker is claimed as room frees, with at most one empty claim', async () => {
    const ran: string[] = [];
    const { db, counts } = countingClaims(t.database.db);
    const queue = await startWorker(db, recording(ran, { ms: 20 }));
    try {
      await eventually(async () => counts.claims === 1);
      counts.claims = 0;
      counts.empty = 0;
      const jobs = Array.from({ length: 30 }, reply);
      await t.database.db.transaction(async (tx) => {
        for (const job of jobs) await queue.enqueue(tx, 'agent.reply', job);
      });
      queue.wake();
      await eventually(async () => ran.length === jobs.length, 10_000);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual([...ran].sort(), jobs.map((job) => job.chatId).sort());
      assert.ok(counts.empty <= 1, `${counts.empty} empty claims of ${counts.claims}`);
      assert.ok(counts.claims <= jobs.length + 1, `${counts.claims} claims`);
    } finally {
      await stopWorker();
    }
  });

  test('a retry put off for later is claimed when due, not at the next poll', async () => {
    const ran: string[] = [];
    const queue = await startWorker(t.database.db, recording(ran, { failFirst: true }), {
      retryPolicies: { 'chat.setTaskStatus': { maxAttempts: 3, backoffMs: () => 300 } },
    });
    try {
      const job = { accountId: newId(), chatId: newId(), done: true };
      await queue.enqueue(t.database.db, 'chat.setTaskStatus', job);
      const enqueuedAt = Date.now();
      queue.wake();
      await eventually(async () => ran.includes(job.chatId), 5_000);
      const waited = Date.now() - enqueuedAt;
      assert.ok(waited >= 300 && waited < 5_000, `ran again after ${waited} ms`);
    } finally {
      await stopWorker();
    }
  });

  test('a keyed job enqueued while it runs runs once more when it ends, claimed without a wake', async () => {
    const ran: string[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const chatId = newId();
    const handlers = recording(ran);
    const queue = await startWorker(t.database.db, {
      ...handlers,
      'agent.reply': async (payload, run) => {
        if (ran.length === 0) await gate;
        await handlers['agent.reply'](payload, run);
      },
    });
    try {
      const key = `rerun:${chatId}`;
      await queue.enqueue(t.database.db, 'agent.reply', { accountId: newId(), chatId }, { key });
      queue.wake();
      await eventually(async () => (await queryRows(t.database.db, sql`select id from jobs where key = ${key} and locked_until is not null`)).length === 1);
      // Enqueued again while running: it is only marked (no NOTIFY, nothing to claim until it ends).
      await queue.enqueue(t.database.db, 'agent.reply', { accountId: newId(), chatId }, { key });
      release();
      await eventually(async () => ran.length === 2, 3_000);
      await eventually(async () => (await queryRows(t.database.db, sql`select id from jobs where key = ${key}`)).length === 0);
    } finally {
      await stopWorker();
    }
  });
});

describe('job leases carry a token: a holder whose lease ran out cannot end its successor’s job', () => {
  /** A gate a handler waits at until the test opens it. */
  function gate() {
    let open: () => void = () => {};
    const opened = new Promise<void>((resolve) => (open = resolve));
    return { opened, open };
  }
  const rowOf = async (key: string) =>
    (await queryRows<{ lease: string | null; locked: boolean; last_error: string | null; due_later: boolean }>(
      t.database.db,
      sql`select lease, locked_until is not null as locked, last_error, run_at > now() as due_later from jobs where key = ${key}`,
    ))[0];

  for (const ending of ['succeeds', 'fails'] as const) {
    test(`the stale holder ${ending === 'succeeds' ? 'finishing' : 'failing'} leaves the job to the worker that took it over`, async () => {
      const stale = gate();
      const current = gate();
      const entered: string[] = [];
      const handlers = (name: string, wait: Promise<void>, fail: boolean): JobHandlers => ({
        ...recording([]),
        'agent.reply': async () => {
          entered.push(name);
          await wait;
          if (fail) throw new Error(`${name} fails`);
        },
      });
      // The first holder never renews its 300 ms lease (a stalled process); the second takes the job over.
      const first = createJobQueue({ db: t.database.db, logger, handlers: handlers('first', stale.opened, ending === 'fails'), pollMs: NO_POLL_MS, leaseMs: 300, heartbeatMs: NO_POLL_MS });
      const second = createJobQueue({ db: t.database.db, logger, handlers: handlers('second', current.opened, false), pollMs: NO_POLL_MS });
      const key = `lease:${newId()}`;
      try {
        await first.enqueue(t.database.db, 'agent.reply', reply(), { key });
        first.start();
        await eventually(async () => entered.includes('first'));
        const firstLease = (await rowOf(key))?.lease;
        assert.ok(firstLease);
        // The lease runs out; the second worker claims the job and runs it.
        await eventually(async () => (await queryRows(t.database.db, sql`select 1 from jobs where key = ${key} and locked_until < now()`)).length === 1);
        second.start();
        await eventually(async () => entered.includes('second'));
        const secondLease = (await rowOf(key))?.lease;
        assert.ok(secondLease && secondLease !== firstLease);
        // The first holder ends: the job stays the second's, as it was (not deleted, not put off, no error).
        stale.open();
        await first.stop();
        assert.deepEqual(await rowOf(key), { lease: secondLease, locked: true, last_error: null, due_later: false });
        // The second holder ends it.
        current.open();
        await eventually(async () => (await rowOf(key)) === undefined);
        assert.deepEqual(entered, ['first', 'second']);
      } finally {
        stale.open();
        current.open();
        await Promise.all([first.stop(), second.stop()]);
      }
    });
  }
});
