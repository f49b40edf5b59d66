// What an idle server's background work sends its database. The delivery worker's safety-net poll
// (webhooks/delivery-worker.ts): every 500 ms on a shared PostgreSQL server (a lost listening connection, a dead
// process's leases), every 5 s on a database of its own (PGlite), whose NOTIFYs are delivered in the process. The job
// queue's 5 s poll looks up the leases other processes hold, which no other process holds on PGlite. Intervals are
// driven by mocked timers (setInterval only); the statements are real ones on the test database.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import type { SQLWrapper } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Database, DatabaseHandle } from '../src/db/client.ts';
import { createJobQueue, JOB_POLL_MS } from '../src/jobs/job-queue.ts';
import { createWebhookClient } from '../src/kernel/http-client.ts';
import { createUrlGuard } from '../src/kernel/url-guard.ts';
import { createSecretBox } from '../src/lib/secret-box.ts';
import { createLogger } from '../src/logger.ts';
import { createDeliveryStore } from '../src/webhooks/delivery-store.ts';
import { createDeliveryWorker, DELIVERY_POLL_MS, OWNED_DATABASE_DELIVERY_POLL_MS } from '../src/webhooks/delivery-worker.ts';
import { openTestDatabase } from './support/database.ts';
import { eventually } from './support/events.ts';
import { SECRETS_KEY } from './support/harness.ts';

const logger = createLogger('info', new Writable({ write: (_chunk, _encoding, done) => done() }));
const dialect = new PgDialect();

let database: DatabaseHandle;
before(async () => {
  database = await openTestDatabase();
});
after(() => database.close());
afterEach(() => mock.timers.reset());

describe('the delivery worker polls as often as its database needs', () => {
  /** A started worker whose claim statements are counted; resolves once the claim of its start has ended. */
  async function startCounted(ownsDatabase: boolean) {
    const store = createDeliveryStore(database.db);
    const counts = { claims: 0, running: 0 };
    const counted: typeof store = {
      ...store,
      claim: async (...args) => {
        counts.claims += 1;
        counts.running += 1;
        try {
          return await store.claim(...args);
        } finally {
          counts.running -= 1;
        }
      },
    };
    const worker = createDeliveryWorker({
      store: counted,
      client: createWebhookClient(createUrlGuard({ allowPrivateNetworks: true })),
      secrets: createSecretBox(SECRETS_KEY),
      logger,
      ownsDatabase,
    });
    mock.timers.enable({ apis: ['setInterval'] });
    await worker.start();
    await eventually(async () => counts.claims === 1 && counts.running === 0);
    return { worker, counts };
  }

  test('a database of its own (PGlite): a claim every 5 s, none between', async () => {
    const { worker, counts } = await startCounted(true);
    try {
      assert.equal(OWNED_DATABASE_DELIVERY_POLL_MS, 5_000);
      // The 500 ms of a shared server go by without a claim.
      mock.timers.tick(DELIVERY_POLL_MS);
      mock.timers.tick(OWNED_DATABASE_DELIVERY_POLL_MS - DELIVERY_POLL_MS - 1);
      assert.equal(counts.claims, 1);
      mock.timers.tick(1);
      assert.equal(counts.claims, 2);
    } finally {
      await worker.stop();
    }
  });

  test('a shared PostgreSQL server: a claim every 500 ms', async () => {
    const { worker, counts } = await startCounted(false);
    try {
      assert.equal(DELIVERY_POLL_MS, 500);
      mock.timers.tick(DELIVERY_POLL_MS - 1);
      assert.equal(counts.claims, 1);
      mock.timers.tick(1);
      assert.equal(counts.claims, 2);
    } finally {
      await worker.stop();
    }
  });
});

/** The database, keeping the text of each statement run through it and how many are still running. */
function recording(db: Database) {
  const seen = { statements: [] as string[], running: 0 };
  const recorded = new Proxy(db, {
    get(target, property, receiver) {
      if (property !== 'execute') return Reflect.get(target, property, receiver) as unknown;
      return async (query: SQLWrapper) => {
        seen.statements.push(dialect.sqlToQuery(query.getSQL()).sql);
        seen.running += 1;
        try {
          return await target.execute(query);
        } finally {
          seen.running -= 1;
        }
      };
    },
  });
  return { db: recorded, seen };
}

const isClaim = (statement: string) => /^UPDATE "jobs" SET locked_until = .* attempts = attempts \+ 1/s.test(statement);
const isLeaseLookup = (statement: string) => /^SELECT id, .* FROM "jobs"\s+WHERE locked_until > now\(\) ORDER BY locked_until/s.test(statement);

describe("the job queue's poll looks for other holders' leases only where there can be any", () => {
  /** The statements of one poll of a started queue, after those of its start have ended. */
  async function onePoll(ownsDatabase: boolean): Promise<string[]> {
    const { db, seen } = recording(database.db);
    const queue = createJobQueue({ db, logger, ownsDatabase });
    mock.timers.enable({ apis: ['setInterval'] });
    await queue.start();
    try {
      await eventually(async () => seen.statements.some(isClaim) && seen.running === 0);
      const started = seen.statements.length;
      mock.timers.tick(JOB_POLL_MS);
      // Both are sent when the poll fires (each store call runs its statement before its first await).
      return seen.statements.slice(started);
    } finally {
      await queue.stop();
    }
  }

  test('a database of its own (PGlite): a claim, no lease lookup', async () => {
    const statements = await onePoll(true);
    assert.equal(statements.length, 1);
    assert.ok(isClaim(statements[0] ?? ''), statements[0]);
  });

  test("a shared PostgreSQL server: a claim and the lookup of the earliest leases", async () => {
    const statements = await onePoll(false);
    assert.equal(statements.length, 2);
    assert.ok(isClaim(statements[0] ?? ''), statements[0]);
    assert.ok(isLeaseLookup(statements[1] ?? ''), statements[1]);
  });
});
