// reports summary at scale: one account with 1,000,000 conversations over 120 days (bulk-inserted into the
// conversations table the triggers keep, with every outcome, handoffs, response times, ratings and members; the daily
// rollup then counted from them in one statement), two other accounts with a quarter as many each, then GET /console/v1/reports/summary over the last 90 days with no
// filter, a channel and a member, one request at a time. Latency is what counts here.
import { sql } from 'drizzle-orm';
import { createAccount, type BenchAccount } from '../lib/api.ts';
import { costPer } from '../lib/cost.ts';
import { now } from '../lib/processes.ts';
import { percentile, row, type Scenario } from '../lib/scenario.ts';
import type { Database } from '../../packages/server/src/db/client.ts';
import { queryRows } from '../../packages/server/src/db/client.ts';
import { newId } from '../../packages/server/src/lib/ids.ts';

const DAYS = 120;
const WINDOW_DAYS = 90;
/** Issue #36: the summary of a 90-day window in 100 ms. */
const TARGET_MS = 100;
const WARMUP = 3;
const CONVERSATIONS_PER_CHAT = 4;
const MEMBERS = 5;
const OTHER_ACCOUNTS = 2;
/** Rows per INSERT … SELECT of the bulk load. */
const CHUNK = 100_000;

interface Seeded {
  accountId: string;
  apiChannel: string;
  widgetChannel: string;
  members: string[];
}

/**
 * `count` conversations of one account as the triggers and the sweep leave them (`durable` settled a week after the
 * end, whatever the outcome: else the restarted server's first sweep would settle them all in one statement), their
 * chats (four conversations each, a fifth of the chats on the widget) and five members, numbered from `offset` so
 * that ids stay unique across accounts. Conversation i starts at `DAYS` days ago + i × (DAYS / count): those of the
 * last day are open; the others ended, their outcome by i.
 */
export async function seedAccount(db: Database, accountId: string, count: number, offset: number): Promise<Seeded> {
  const apiChannel = `cc:bench${newId().replaceAll('-', '').slice(0, 16)}`;
  const widgetChannel = newId();
  const settingsJson = JSON.stringify({ behavior: '', role: '', task: '', greeting: '', isActive: false, aiLang: 'en' });
  for (const [id, kind, name] of [[apiChannel, 'custom', 'API'], [widgetChannel, 'widget', 'Widget']]) {
    await db.execute(sql`INSERT INTO channels (id, account_id, kind, name, settings, agent_engine)
      VALUES (${id}, ${accountId}, ${kind}, ${name}, ${settingsJson}::jsonb, '{"kind":"knowledge-base"}'::jsonb)`);
  }
  const members = Array.from({ length: MEMBERS }, () => newId());
  for (const [k, id] of members.entries()) {
    await db.execute(sql`INSERT INTO members (id, account_id, email, name, role, status)
      VALUES (${id}, ${accountId}, ${`bench-member-${offset}-${k}@example.com`}, ${`Member ${k + 1}`}, 'agent', 'active')`);
  }
  const chats = Math.ceil(count / CONVERSATIONS_PER_CHAT);
  const chatId = (n: ReturnType<typeof sql.raw>) => sql`(lpad(to_hex(1700000000000 + ${n}), 12, '0') || '70008000' || lpad(to_hex(${n}), 12, '0'))::uuid`;
  for (let first = 1; first <= chats; first += CHUNK) {
    const last = Math.min(chats, first + CHUNK - 1);
    await db.execute(sql`
      INSERT INTO chats (id, account_id, channel_id, channel_kind, external_chat_id, unique_id, dialog_name, last_text, last_message_at)
      SELECT ${chatId(sql.raw(`(${offset} + i)`))}, ${accountId}, CASE WHEN i % 5 = 1 THEN ${widgetChannel} ELSE ${apiChannel} END,
             CASE WHEN i % 5 = 1 THEN 'widget' ELSE 'custom' END, 'ext-' || i,
             CASE WHEN i % 5 = 1 THEN ${widgetChannel} ELSE ${apiChannel} END || ':ext-' || i, 'Customer ' || i, 'Hello', now()
      FROM generate_series(${first}::int, ${last}::int) i`);
  }
  const memberArray = `ARRAY[${members.map((id) => `'${id}'::uuid`).join(',')}]`;
  // o: 0–4 resolved by the agent, 5–6 by the team (half of them handed off first), 7–8 handed off, 9 unanswered.
  for (let first = 1; first <= count; first += CHUNK) {
    const last = Math.min(count, first + CHUNK - 1);
    await db.execute(sql`
      INSERT INTO conversations (id, account_id, chat_id, channel_id, started_at, ended_at, ended_by, outcome, confirmed, durable,
                                 last_message_at, last_customer_message_at, messages, agent_answers, answered_after_choice,
                                 handed_off_at, handoff_reason, team_replied, member_ids, first_agent_response_seconds,
                                 first_team_response_seconds, assignee_id, csat_rating)
      SELECT ${chatId(sql.raw(`(${offset} + 5000000 + i)`))}, ${accountId}, ${chatId(sql.raw(`(${offset} + c)`))},
             CASE WHEN c % 5 = 1 THEN ${widgetChannel} ELSE ${apiChannel} END,
             s, e, CASE WHEN e IS NULL THEN NULL WHEN i % 3 = 0 THEN 'done' ELSE 'quiet' END,
             CASE WHEN e IS NULL THEN NULL WHEN o < 5 THEN 'resolved_by_agent' WHEN o < 7 THEN 'resolved_by_team'
                  WHEN o < 9 THEN 'handed_off' ELSE 'unanswered' END,
             e IS NOT NULL AND o < 5 AND i % 20 IN (0, 2),
             CASE WHEN e IS NULL OR e > now() - interval '7 days' THEN NULL ELSE i % 4 <> 0 END,
             coalesce(e, s + interval '1 minute'), s, 2 + i % 6,
             CASE WHEN o < 5 THEN 1 + i % 3 WHEN o < 9 THEN i % 2 ELSE 0 END,
             CASE WHEN o < 5 AND i % 13 = 0 THEN 1 ELSE 0 END,
             h, CASE WHEN h IS NULL THEN NULL WHEN i % 3 = 0 THEN 'model' WHEN i % 3 = 1 THEN 'customer_request' ELSE 'fallbacks' END,
             o IN (5, 6), CASE WHEN o IN (5, 6) THEN ARRAY[m] ELSE '{}'::uuid[] END,
             CASE WHEN o < 9 THEN 1 + (i % 40) * 0.5 END,
             CASE WHEN o IN (5, 6) THEN 30 + (i * 7) % 7200 END,
             CASE WHEN o IN (5, 6) OR i % 3 = 0 THEN m END,
             CASE WHEN e IS NOT NULL AND i % 6 = 0 THEN 1 + (i / 6) % 5 END
      FROM generate_series(${first}::int, ${last}::int) i
      CROSS JOIN LATERAL (SELECT (i - 1) % ${chats}::int + 1 AS c, i % 10 AS o,
                                 now() - interval '${sql.raw(String(DAYS))} days' + (i - 1) * (interval '${sql.raw(String(DAYS))} days' / ${count}::int) AS s,
                                 (${sql.raw(memberArray)})[1 + i % ${MEMBERS}::int] AS m) base
      CROSS JOIN LATERAL (SELECT CASE WHEN s > now() - interval '1 day' THEN NULL ELSE s + ((i * 37) % 3600) * interval '1 second' END AS e,
                                 CASE WHEN o IN (7, 8) OR (o IN (5, 6) AND i % 2 = 0) THEN s + interval '30 seconds' END AS h) ended`);
  }
  return { accountId, apiChannel, widgetChannel, members };
}

export const reportsSummary: Scenario = {
  name: 'reports-summary',
  summary: `GET /console/v1/reports/summary over ${WINDOW_DAYS} days of 1,000,000 conversations (${DAYS} days): no filter, a channel, a member`,
  async run({ settings, database, startServer, log }) {
    const count = settings.reportConversations;
    let server = await startServer();
    const accounts: BenchAccount[] = [];
    for (let k = 0; k <= OTHER_ACCOUNTS; k += 1) accounts.push(await createAccount(server));
    await server.stop();
    const [account] = accounts;
    if (!account) throw new Error('no account');

    const seedStarted = Date.now();
    const seeded = await database.use(async (db) => {
      // A bulk load: the conversations' secondary indexes are built once after the rows (one sort each).
      const indexes = await queryRows<{ name: string; definition: string }>(
        db,
        sql`SELECT i.indexname AS name, i.indexdef AS definition FROM pg_indexes i
            WHERE i.schemaname = 'public' AND i.tablename IN ('conversations', 'chats')
              AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = quote_ident(i.indexname)::regclass)`,
      );
      for (const { name } of indexes) await db.execute(sql.raw(`DROP INDEX ${name}`));
      // The daily rollup is counted once after the rows (one grouped statement) rather than row by row by its triggers.
      await db.execute(sql`ALTER TABLE conversations DISABLE TRIGGER USER`);
      const main = await seedAccount(db, account.accountId, count, 0);
      for (const [k, other] of accounts.slice(1).entries()) await seedAccount(db, other.accountId, Math.ceil(count / 4), (k + 1) * 10_000_000);
      await db.execute(sql`ALTER TABLE conversations ENABLE TRIGGER USER`);
      const rollupStarted = Date.now();
      await db.execute(sql`SELECT conversation_days_rebuild()`);
      log(`daily rollup counted in ${((Date.now() - rollupStarted) / 1000).toFixed(0)} s`);
      for (const { definition } of indexes) await db.execute(sql.raw(definition));
      await db.execute(sql`VACUUM ANALYZE`);
      return main;
    });
    log(`seeded ${count.toLocaleString('en-US')} conversations (+ ${OTHER_ACCOUNTS} × ${Math.ceil(count / 4).toLocaleString('en-US')}) in ${((Date.now() - seedStarted) / 1000).toFixed(0)} s`);

    server = await startServer();
    const token = await account.consoleToken(server);
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
    const window = { from: day(WINDOW_DAYS - 1), to: day(0) };
    const variants: [string, Record<string, string>][] = [
      ['no filter', {}],
      ['channel (API, 4/5 of them)', { channelId: seeded.apiChannel }],
      ['member', { memberId: seeded.members[0] ?? '' }],
    ];
    const rows = [];
    for (const [name, filter] of variants) {
      const url = `${server.url}/console/v1/reports/summary?${new URLSearchParams({ ...window, ...filter }).toString()}`;
      const get = async () => {
        const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
        const body = await response.text();
        if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${body.slice(0, 300)}`);
        return JSON.parse(body) as { conversations: number };
      };
      for (let k = 0; k < WARMUP; k += 1) await get();
      const before = await server.usage();
      const times: number[] = [];
      let conversations = 0;
      for (let k = 0; k < settings.requests; k += 1) {
        const started = now();
        conversations = (await get()).conversations;
        times.push(now() - started);
      }
      const cost = costPer(before, await server.usage(), settings.requests);
      times.sort((a, b) => a - b);
      const p50 = percentile(times, 50);
      const p95 = percentile(times, 95);
      log(`${name}: p50 ${p50?.toFixed(1)} ms, p95 ${p95?.toFixed(1)} ms over ${conversations.toLocaleString('en-US')} conversations`);
      rows.push(
        row(`reports summary: ${name}`, {
          unit: 'req/s',
          throughput: times.length / (times.reduce((sum, ms) => sum + ms, 0) / 1000),
          p50Ms: p50,
          p99Ms: percentile(times, 99),
          ...cost,
          targets: [{ text: `p95 ≤ ${TARGET_MS} ms (p95 ${p95?.toFixed(0) ?? '–'} ms)`, met: p95 !== null && p95 <= TARGET_MS }],
          notes: [
            `${conversations.toLocaleString('en-US')} conversations in the ${WINDOW_DAYS} days of ${count.toLocaleString('en-US')} over ${DAYS}`,
            `${settings.requests} requests one at a time`,
          ],
        }),
      );
    }
    const peakRssMb = (await server.peakRssMb()) ?? null;
    for (const r of rows) r.peakRssMb = peakRssMb;
    await server.stop();
    return rows;
  },
};
