// Readiness (docs/operations.md, Processes and data): GET /readyz is 200 when the database answers and every
// migration of packages/server/drizzle is recorded, 503 naming the failed check otherwise; /healthz stays liveness.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { migrationsOf } from '../src/db/readiness.ts';
import { openTestDatabase } from './support/database.ts';
import { startTestApp } from './support/harness.ts';

test('200 when the database answers and every migration is applied; 503 naming what is missing', async () => {
  const database = await openTestDatabase();
  const t = await startTestApp({ database, workers: false });
  try {
    const ready = await t.request('GET', '/readyz');
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body, { status: 'ready' });

    const [last] = await queryRows<{ hash: string }>(t.database.db, sql`SELECT hash FROM drizzle.__drizzle_migrations ORDER BY created_at DESC LIMIT 1`);
    assert.ok(last);
    await t.database.db.execute(sql`DELETE FROM drizzle.__drizzle_migrations WHERE hash = ${last.hash}`);
    const tags = migrationsOf().map((migration) => migration.tag);
    assert.ok(tags.length >= 19 && tags[0] === '0000_foundation');
    const missing = await t.request('GET', '/readyz');
    assert.equal(missing.status, 503);
    assert.deepEqual(missing.body, {
      status: 'not ready',
      failed: 'migrations',
      detail: `1 of ${tags.length} migrations are not applied`,
      missing: [tags.at(-1)],
    });
    // Liveness is not readiness: the process is alive all the same.
    assert.equal((await t.request('GET', '/healthz')).status, 200);

    await t.database.db.execute(sql`DELETE FROM drizzle.__drizzle_migrations`);
    const none = await t.request('GET', '/readyz');
    assert.equal(none.status, 503);
    assert.deepEqual(none.body, {
      status: 'not ready',
      failed: 'migrations',
      detail: `${tags.length} of ${tags.length} migrations are not applied`,
      missing: tags,
    });
    assert.ok(t.logs.some((line) => line.includes('"msg":"not ready"')));

    await database.close();
    const down = await t.request('GET', '/readyz');
    assert.equal(down.status, 503);
    assert.deepEqual(down.body, { status: 'not ready', failed: 'database', detail: 'the database does not answer' });
    // Liveness stays liveness: 200 degraded naming the database, never a bare 500.
    const alive = await t.request('GET', '/healthz');
    assert.equal(alive.status, 200);
    assert.deepEqual(alive.body, { status: 'degraded', database: 'down' });
  } finally {
    await t.close();
    await database.close().catch(() => undefined);
  }
});
