// The delivery worker's safety-net poll (webhooks/delivery-worker.ts): every 500 ms on a shared PostgreSQL server
// (a lost listening connection, a dead process's leases), every 5 s on a database of its own (PGlite), whose
// NOTIFYs are delivered in the process. The interval is driven by mocked timers (setInterval only); the claims are
// the store's real statements on the test database.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import type { DatabaseHandle } from '../src/db/client.ts';
import { createWebhookClient } from '../src/kernel/http-client.ts';
import { createUrlGuard } from '../src/kernel/url-guard.ts';
import { createSecretBox } from '../src/lib/secret-box.ts';
import { createLogger } from '../src/logger.ts';
import { createDeliveryStore } from '../src/webhooks/delivery-store.ts';
import { createDeliveryWorker, DELIVERY_POLL_MS, OWNED_DATABASE_DELIVERY_POLL_MS } from '../src/webhooks/delivery-worker.ts';
import { openTestDatabase } from './support/database.ts';
import { eventually } from './support/events.ts';
import { SECRETS_KEY } from './support/harness.ts';

describe('the delivery worker polls as often as its database needs', () => {
  let database: DatabaseHandle;
  const logger = createLogger('info', new Writable({ write: (_chunk, _encoding, done) => done() }));

  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database.close());
  afterEach(() => mock.timers.reset());

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
