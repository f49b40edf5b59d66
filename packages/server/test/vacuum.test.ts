// PGlite has no autovacuum worker: the process that owns it vacuums (db/vacuum.ts). After a bulk insert, a deep
// page of the chat list is read from the index alone only once the database was vacuumed (the visibility map).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { listStatement } from '../src/chats/chats-store.ts';
import { preparedRows } from '../src/db/prepared.ts';
import { startVacuum } from '../src/db/vacuum.ts';
import { createLogger } from '../src/logger.ts';
import { newId } from '../src/lib/ids.ts';
import { startTestApp, type TestApp } from './support/harness.ts';

const CHATS = 5_000;

let t: TestApp;
let accountId: string;

before(async () => {
  t = await startTestApp();
  ({ accountId } = await t.createAccount());
  const channelId = `cc:vacuum${newId().replaceAll('-', '').slice(0, 16)}`;
  const db = t.database.db;
  await db.execute(sql`INSERT INTO channels (id, account_id, kind, name, settings, agent_engine)
    VALUES (${channelId}, ${accountId}, 'custom', 'API', '{}'::jsonb, '{"kind":"knowledge-base"}'::jsonb)`);
  await db.execute(sql`INSERT INTO chats (id, account_id, channel_id, channel_kind, external_chat_id, unique_id, dialog_name, last_message_at)
    SELECT gen_random_uuid(), ${accountId}, ${channelId}, 'custom', 'ext-' || i, ${channelId} || ':ext-' || i, 'Visitor ' || i,
           timestamptz '2026-01-01 00:00:00+00' + i * interval '1 second'
    FROM generate_series(1, ${CHATS}::int) i`);
  await db.execute(sql`ANALYZE chats`);
});
after(() => t.close());

/** The heap pages an index-only scan of a deep page visits (undefined: the plan reads the table anyway). */
async function heapFetchesOfDeepPage(): Promise<number | undefined> {
  const statement = listStatement({ accountId }, { limit: 10, offset: CHATS - 20 });
  const rows = await preparedRows<{ 'QUERY PLAN': unknown }>(t.database.db, {
    ...statement,
    name: '',
    text: `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`,
  });
  const raw = rows[0]?.['QUERY PLAN'];
  const text = typeof raw === 'string' ? raw : JSON.stringify(raw);
  const fetches = /"Node Type": ?"Index Only Scan"[^}]*?"Heap Fetches": ?(\d+)/.exec(text);
  return fetches ? Number(fetches[1]) : undefined;
}

test('a vacuum sets the visibility map: a deep page of the list then visits no table page', async () => {
  const before = await heapFetchesOfDeepPage();
  assert.ok(before === undefined || before > 0, `before: ${before}`);
  const vacuum = startVacuum({ db: t.database.db, logger: createLogger('silent') });
  try {
    // Two calls at once share one VACUUM.
    await Promise.all([vacuum.runOnce(), vacuum.runOnce()]);
  } finally {
    vacuum.stop();
  }
  assert.equal(await heapFetchesOfDeepPage(), 0);
});
