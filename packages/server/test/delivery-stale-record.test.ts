// A webhook sender whose lease ran out while it waited on the receiver, and whose delivery another worker claimed,
// sent and recorded meanwhile: its late record is logged as an attempt but moves nothing (the delivered delivery
// stays delivered, not failed or due again).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { newId } from '../src/lib/ids.ts';
import { createDeliveryStore, type AttemptResult } from '../src/webhooks/delivery-store.ts';
import { eventually } from './support/events.ts';
import { startTestApp, type TestApp } from './support/harness.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp({ workers: false });
});
after(() => t.close());

const result = (ok: boolean): AttemptResult => ({ startedAt: new Date(), latencyMs: 5, statusCode: ok ? 200 : 503, error: ok ? null : 'HTTP 503', ok });

for (const late of ['failed', 'retry'] as const) {
  test(`a late ${late} record of the same attempt neither fails nor reschedules the delivery another worker delivered`, async () => {
    const db = t.database.db;
    const { accountId } = await t.createAccount();
    const channelId = `stale-${newId()}`;
    const settings = JSON.stringify({ behavior: '', role: '', task: '', greeting: '', isActive: true, aiLang: 'en' });
    await db.execute(sql`INSERT INTO channels (id, account_id, kind, name, settings, agent_engine, webhook_url)
      VALUES (${channelId}, ${accountId}, 'custom', 'API', ${settings}::jsonb, '{"kind":"knowledge-base"}'::jsonb, 'https://receiver.test/hook')`);
    const eventId = newId();
    await db.execute(sql`INSERT INTO events (id, account_id, channel_id, kind, payload) VALUES (${eventId}, ${accountId}, ${channelId}, 'new_messages', '{"event":"new_messages"}'::jsonb)`);
    // The last attempt (a failure of it is final) or the first (a failure of it is retried).
    const attempts = late === 'failed' ? 2 : 0;
    const deliveryId = newId();
    await db.execute(sql`INSERT INTO deliveries (id, event_id, account_id, channel_id, status, attempts, next_attempt_at)
      VALUES (${deliveryId}, ${eventId}, ${accountId}, ${channelId}, 'pending', ${attempts}, now())`);
    const store = createDeliveryStore(db);
    const claim = async (leaseMs: number) => (await store.claim(8, leaseMs, 8, new Map())).find((d) => d.id === deliveryId);

    const stale = await claim(200);
    assert.ok(stale);
    // Its lease runs out while it waits on the receiver; another worker takes the delivery and delivers it.
    await eventually(async () => (await queryRows(db, sql`select 1 from deliveries where id = ${deliveryId} and locked_until < now()`)).length === 1);
    const current = await claim(4_000);
    assert.deepEqual(current?.attempts, attempts);
    await store.recordAttempts([{ delivery: current!, result: result(true), endedAt: Date.now() }]);
    // The first sender's attempt ends at last, unanswered.
    await store.recordAttempts([{ delivery: stale, result: result(false), endedAt: Date.now() }]);

    const [row] = await queryRows<{ status: string; attempts: number; finished: boolean; last_status_code: number | null }>(
      db,
      sql`select status, attempts, finished_at is not null as finished, last_status_code from deliveries where id = ${deliveryId}`,
    );
    assert.deepEqual(row, { status: 'delivered', attempts: attempts + 1, finished: true, last_status_code: 200 });
    // Both sends are in the log, under the same attempt number.
    const logged = await queryRows<{ number: number; status_code: number }>(
      db,
      sql`select number, status_code from delivery_attempts where delivery_id = ${deliveryId} order by status_code`,
    );
    assert.deepEqual(logged, [
      { number: attempts + 1, status_code: 200 },
      { number: attempts + 1, status_code: 503 },
    ]);
  });
}
