// The delivery claim on a realistic table: 60,000 delivered deliveries and a backlog of 6,000 pending ones, most on
// one channel. The plan of the exact statement the worker runs reads deliveries through indexes only (no sequential
// scan, nothing that walks every due row), before and after ANALYZE (PGlite has no autovacuum, so its statistics
// are often none), and the claim gives each channel at most its room.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql, type SQLWrapper } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { newId } from '../src/lib/ids.ts';
import { claimStatement, createDeliveryStore } from '../src/webhooks/delivery-store.ts';
import { startTestApp, type TestApp } from './support/harness.ts';

const DELIVERED = 60_000;
const BACKLOG = 5_000;
const OTHERS = 1_000;
const PER_CHANNEL = 16;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

let t: TestApp;
let accountId: string;
const busy = `plans-busy-${newId()}`;
const quiet = [1, 2, 3, 4].map((n) => `plans-quiet-${n}-${newId()}`);

async function seed(): Promise<void> {
  const db = t.database.db;
  const settings = JSON.stringify({ behavior: '', role: '', task: '', greeting: '', isActive: true, aiLang: 'en' });
  for (const id of [busy, ...quiet]) {
    await db.execute(sql`INSERT INTO channels (id, account_id, kind, name, settings, agent_engine, webhook_url)
      VALUES (${id}, ${accountId}, 'custom', 'API', ${settings}::jsonb, '{"kind":"knowledge-base"}'::jsonb, 'https://receiver.test/hook')`);
  }
  const quietIds = sql.raw(`ARRAY[${quiet.map((id) => `'${id}'`).join(', ')}]`);
  // Delivered rows over every channel, then the busy channel's backlog, then a few pending on each quiet channel.
  await db.execute(sql`
    WITH made AS (
      INSERT INTO events (id, account_id, channel_id, kind, payload)
      SELECT gen_random_uuid(), ${accountId}, CASE WHEN i % 5 = 0 THEN ${busy} ELSE (${quietIds})[i % 4 + 1] END,
             'new_messages', '{"event":"new_messages"}'::jsonb
      FROM generate_series(1, ${DELIVERED + BACKLOG + OTHERS}::int) i
      RETURNING id, channel_id),
    numbered AS (SELECT id, channel_id, row_number() OVER () AS n FROM made)
    INSERT INTO deliveries (id, event_id, account_id, channel_id, status, attempts, next_attempt_at, finished_at)
    SELECT gen_random_uuid(), id, ${accountId},
           CASE WHEN n > ${DELIVERED} AND n <= ${DELIVERED + BACKLOG} THEN ${busy} ELSE channel_id END,
           CASE WHEN n <= ${DELIVERED} THEN 'delivered' ELSE 'pending' END,
           CASE WHEN n <= ${DELIVERED} THEN 1 ELSE 0 END,
           now() - interval '5 minutes' + n * interval '1 millisecond',
           CASE WHEN n <= ${DELIVERED} THEN now() END
    FROM numbered`);
}

before(async () => {
  t = await startTestApp({ workers: false });
  ({ accountId } = await t.createAccount());
  await seed();
});
after(() => t.close());

async function planOf(query: SQLWrapper): Promise<PlanNode> {
  const [row] = await queryRows<{ 'QUERY PLAN': unknown }>(t.database.db, sql`EXPLAIN (FORMAT JSON) ${query}`);
  const raw = row?.['QUERY PLAN'];
  const doc = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
  return doc[0]?.Plan as PlanNode;
}

function allNodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(allNodes)];
}

/** The claim's plan: every node that reads deliveries, as `node type` and `index`. */
async function deliveryScans(): Promise<{ type: string; index: string | undefined }[]> {
  const plan = await planOf(claimStatement(128, 4_000, PER_CHANNEL, new Map([[quiet[0] as string, 3]])));
  const nodes = allNodes(plan);
  assert.deepEqual(nodes.filter((node) => node['Node Type'] === 'BitmapAnd'), [], 'no bitmap combining the due rows');
  return nodes
    .filter((node) => /Scan$/.test(node['Node Type']) && (node['Relation Name'] === 'deliveries' || /^deliveries_/.test(node['Index Name'] ?? '')))
    .map((node) => ({ type: node['Node Type'], index: node['Index Name'] }));
}

describe(`the delivery claim beside ${DELIVERED.toLocaleString('en')} delivered rows`, () => {
  for (const statistics of ['no statistics', 'after ANALYZE']) {
    test(`${statistics}: deliveries are read through indexes only, the locked rows by primary key`, async () => {
      if (statistics === 'after ANALYZE') await t.database.db.execute(sql`ANALYZE`);
      const scans = await deliveryScans();
      const shown = scans.map((scan) => `${scan.type} ${scan.index ?? ''}`).join('; ');
      assert.deepEqual(scans.filter((scan) => scan.type === 'Seq Scan'), [], `no sequential scan: ${shown}`);
      const indexes = new Set(scans.flatMap((scan) => (scan.index ? [scan.index] : [])));
      // The partial index of pending deliveries (delivered rows are not in it), or a lookup by id.
      assert.deepEqual([...indexes].filter((index) => !/^(deliveries_pending_channel_idx|deliveries_pkey)$/.test(index)), [], shown);
      assert.ok(indexes.has('deliveries_pkey'), 'the picked rows are locked and updated by primary key');
      assert.ok(indexes.has('deliveries_pending_channel_idx'), 'the channels come from a skip scan of their index');
    });
  }

  test('the claim gives each channel at most its room and leases what it gives', async () => {
    const store = createDeliveryStore(t.database.db);
    const claimed = await store.claim(128, 4_000, PER_CHANNEL, new Map([[busy, 10]]));
    const perChannel = new Map<string, number>();
    for (const delivery of claimed) perChannel.set(delivery.channelId, (perChannel.get(delivery.channelId) ?? 0) + 1);
    assert.equal(perChannel.get(busy), PER_CHANNEL - 10);
    for (const id of quiet) assert.equal(perChannel.get(id), PER_CHANNEL);
    assert.equal(claimed.length, PER_CHANNEL - 10 + quiet.length * PER_CHANNEL);
    assert.ok(claimed.every((delivery) => delivery.webhookUrl === 'https://receiver.test/hook' && delivery.attempts === 0));
    const [leased] = await queryRows<{ n: number }>(
      t.database.db,
      sql`SELECT count(*)::int AS n FROM deliveries WHERE status = 'pending' AND locked_until > now()`,
    );
    assert.equal(leased?.n, claimed.length);
    // Leased rows are not given twice.
    const again = await store.claim(128, 4_000, PER_CHANNEL, new Map());
    assert.equal(again.filter((delivery) => claimed.some((first) => first.id === delivery.id)).length, 0);
  });
});
