// search (issue #44, 1): one account with 1,000,000 messages (bulk-inserted: 50,000 chats of 20 messages in English,
// words from a vocabulary of 1,000 spread independently, one word in five messages, and 10,000 notes), beside
// another account's 100,000 messages with the same words. Then the Inbox's search, one request at a time over HTTP:
// a common word, a word in 1 % of the messages, two words, a prefix, a rare word, a customer's name and e-mail, and
// filters (status, assignee, a month). p95 of every query ≤ 300 ms.
import { sql } from 'drizzle-orm';
import { createAccount } from '../lib/api.ts';
import { now, type ParleyServer } from '../lib/processes.ts';
import { percentile, row, type Row, type Scenario } from '../lib/scenario.ts';
import { queryRows, type Database } from '../../packages/server/src/db/client.ts';
import { newId } from '../../packages/server/src/lib/ids.ts';

/** Issue #44: p95 ≤ 300 ms over 1,000,000 messages. */
const P95_MS = 300;
const REQUESTS = 20;
const WARMUP = 2;
const MESSAGES_PER_CHAT = 20;
const VOCABULARY = 1_000;
/** Rows per INSERT … SELECT of the bulk load. */
const CHUNK = 100_000;
/** One prime per word of a message (eight words). */
const PRIMES = [7_919, 104_729, 1_299_709, 15_485_863, 32_452_843, 49_979_687, 67_867_967, 86_028_121];

/** Word k of the vocabulary: pronounceable, distinct, stemmed to itself or close (syllables of a fixed alphabet). */
function word(k: number): string {
  const consonants = 'bdfgklmnprstvz';
  const vowels = 'aeiou';
  let out = '';
  let n = k + VOCABULARY;
  while (n > 0) {
    out += (consonants[n % consonants.length] ?? 'b') + (vowels[Math.floor(n / consonants.length) % vowels.length] ?? 'a');
    n = Math.floor(n / (consonants.length * vowels.length));
  }
  return out;
}

const vocabularySql = `ARRAY[${Array.from({ length: VOCABULARY }, (_, k) => `'${word(k)}'`).join(',')}]::text[]`;
/** The vocabulary as `vocab.v`, joined to a bulk insert's rows. */
const vocabularyJoin = `CROSS JOIN (SELECT ${vocabularySql} AS v) vocab`;
/** Row n's text (n a bigint): one `parcel` in five, then eight words of the vocabulary, each spread by its own prime. */
const textSql = (n: string) =>
  `CASE WHEN ${n} % 5 = 0 THEN 'parcel ' ELSE '' END || array_to_string(ARRAY[${PRIMES.map((p) => `vocab.v[1 + ((${n} * ${p}) % ${VOCABULARY})]`).join(', ')}], ' ')`;

interface Seeded {
  channelId: string;
  /** A customer's name and e-mail. */
  name: string;
  email: string;
}

async function seedAccount(db: Database, accountId: string, messages: number, first: boolean, log: (line: string) => void): Promise<Seeded> {
  const channelId = `cc:bench${newId().replaceAll('-', '').slice(0, 16)}`;
  const settingsJson = JSON.stringify({ behavior: '', role: '', task: '', greeting: '', isActive: false, aiLang: 'en' });
  await db.execute(sql`INSERT INTO channels (id, account_id, kind, name, settings, agent_engine)
    VALUES (${channelId}, ${accountId}, 'custom', 'API', ${settingsJson}::jsonb, '{"kind":"knowledge-base"}'::jsonb)`);
  const chats = Math.max(1, Math.ceil(messages / MESSAGES_PER_CHAT));
  const tag = accountId.slice(0, 8);
  const chatId = `md5('${accountId}' || i)::uuid`;
  for (let from = 1; from <= chats; from += CHUNK) {
    const to = Math.min(chats, from + CHUNK - 1);
    await db.execute(
      sql.raw(`INSERT INTO chats (id, account_id, channel_id, channel_kind, external_chat_id, unique_id, dialog_name, email,
                                  last_text, last_message_at, task_done)
        SELECT ${chatId}, '${accountId}', '${channelId}', 'custom', 'ext-' || i, '${channelId}:ext-' || i, 'Customer ' || i,
               'customer' || i || '-${tag}@example.com', 'last', timestamptz '2026-01-01 00:00:00+00' + i * interval '5 minutes', i % 7 = 0
        FROM generate_series(${from}, ${to}) i`),
    );
  }
  // The messages' own triggers (conversations) are left out of a bulk load; search_config is set as ingest sets it.
  await db.execute(sql`ALTER TABLE messages DISABLE TRIGGER USER`);
  const chatsPerChunk = Math.floor(CHUNK / MESSAGES_PER_CHAT);
  for (let from = 1; from <= chats; from += chatsPerChunk) {
    const to = Math.min(chats, from + chatsPerChunk - 1);
    await db.execute(
      sql.raw(`INSERT INTO messages (id, account_id, chat_id, role, origin, text, created_at, search_config)
        SELECT md5('${accountId}' || n)::uuid, '${accountId}', ${chatId}, CASE WHEN j % 2 = 1 THEN 'user' ELSE 'assistant' END,
               CASE WHEN j % 2 = 1 THEN 'customer' ELSE 'agent' END, ${textSql('n')},
               timestamptz '2026-01-01 00:00:00+00' + i * interval '5 minutes' - (${MESSAGES_PER_CHAT} - j) * interval '10 seconds',
               'english'::regconfig
        FROM generate_series(${from}, ${to}) i CROSS JOIN generate_series(1, ${MESSAGES_PER_CHAT}) j
        CROSS JOIN LATERAL (SELECT (i::bigint - 1) * ${MESSAGES_PER_CHAT} + j AS n) num ${vocabularyJoin}
        WHERE (i::bigint - 1) * ${MESSAGES_PER_CHAT} + j <= ${messages}`),
    );
    if (first && ((to * MESSAGES_PER_CHAT) % 200_000 < chatsPerChunk * MESSAGES_PER_CHAT || to === chats)) {
      log(`${Math.min(messages, to * MESSAGES_PER_CHAT).toLocaleString('en-US')} messages`);
    }
  }
  await db.execute(sql`ALTER TABLE messages ENABLE TRIGGER USER`);
  // A note in one chat of five (its channel's configuration filled by the notes' trigger).
  await db.execute(
    sql.raw(`INSERT INTO chat_notes (id, account_id, chat_id, author_name, text, created_at)
      SELECT md5('${accountId}' || 'note' || i)::uuid, '${accountId}', ${chatId}, 'Member', 'Promised a callback: ' || ${textSql('i::bigint')},
             timestamptz '2026-01-01 00:00:00+00' + i * interval '5 minutes'
      FROM generate_series(1, ${chats}) i ${vocabularyJoin} WHERE i % 5 = 0`),
  );
  return { channelId, name: `Customer ${Math.ceil(chats / 2)}`, email: `customer${Math.ceil(chats / 3)}-${tag}@example.com` };
}

/** Both accounts bulk-loaded, the search indexes built once after the rows. */
async function seed(db: Database, accountId: string, otherAccountId: string, messages: number, log: (line: string) => void): Promise<Seeded> {
  const indexes = await queryRows<{ name: string; definition: string }>(
    db,
    sql`SELECT indexname AS name, indexdef AS definition FROM pg_indexes
        WHERE indexname IN ('messages_search_idx', 'chat_notes_search_idx', 'chats_search_idx')`,
  );
  for (const { name } of indexes) await db.execute(sql.raw(`DROP INDEX ${name}`));
  const started = Date.now();
  const seeded = await seedAccount(db, accountId, messages, true, log);
  await seedAccount(db, otherAccountId, Math.ceil(messages / 10), false, log);
  log(`rows in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  const indexStarted = Date.now();
  for (const { definition } of indexes) await db.execute(sql.raw(definition));
  log(`search indexes built in ${((Date.now() - indexStarted) / 1000).toFixed(0)} s`);
  await db.execute(sql`VACUUM ANALYZE`);
  return seeded;
}

async function timeQuery(server: ParleyServer, token: string, query: Record<string, string>): Promise<{ times: number[]; hits: number }> {
  const url = `${server.url}/console/v1/search?${new URLSearchParams(query).toString()}`;
  const get = async () => {
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    const body = await response.text();
    if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${body.slice(0, 300)}`);
    return (JSON.parse(body) as { hits: unknown[] }).hits.length;
  };
  let hits = 0;
  for (let k = 0; k < WARMUP; k += 1) hits = await get();
  const times: number[] = [];
  for (let k = 0; k < REQUESTS; k += 1) {
    const started = now();
    await get();
    times.push(now() - started);
  }
  return { times: times.sort((a, b) => a - b), hits };
}

export const search: Scenario = {
  name: 'search',
  summary: 'GET /console/v1/search over 1,000,000 messages (and another account\'s 100,000), one request at a time',
  async run({ settings, database, startServer, log }) {
    const messages = settings.searchMessages;
    let server = await startServer();
    const account = await createAccount(server);
    const other = await createAccount(server);
    await server.stop();
    const started = Date.now();
    const seeded = await database.use((db) => seed(db, account.accountId, other.accountId, messages, log));
    log(`seeded in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    server = await startServer();
    const token = await account.consoleToken(server);
    // Message 12,345's words (a multiple of 5: it has `parcel` too): two of them occur together.
    const wordOf = (n: number, position: number) => word((n * (PRIMES[position] ?? 1)) % VOCABULARY);
    const [first, second, third] = [wordOf(12_345, 0), wordOf(12_345, 1), wordOf(12_345, 2)];
    const queries: [string, Record<string, string>][] = [
      ['a word in 20 % of the messages', { q: 'parcel' }],
      ['a word in 1 % of the messages', { q: first }],
      ['two words', { q: `${first} ${second}` }],
      ['a prefix (the last word)', { q: third.slice(0, 3) }],
      ['a common word and a prefix', { q: `parcel ${third.slice(0, 3)}` }],
      ['a word and a date window (a month)', { q: first, from: '2026-01-01', to: '2026-01-31' }],
      ['a word, status done', { q: first, status: 'done' }],
      ['a word, unassigned', { q: first, assignee: 'none' }],
      ['a word, limit 5', { q: second, limit: '5' }],
      ["a customer's name", { q: seeded.name }],
      ["a customer's e-mail", { q: seeded.email }],
      ['a word found nowhere', { q: 'zyxwvut' }],
    ];
    const results: { name: string; p50: number; p95: number; hits: number }[] = [];
    const all: number[] = [];
    for (const [name, query] of queries) {
      const { times, hits } = await timeQuery(server, token, query);
      all.push(...times);
      const result = { name, p50: percentile(times, 50) ?? 0, p95: percentile(times, 95) ?? 0, hits };
      log(`${name} (${query.q}): p50 ${result.p50.toFixed(1)} ms, p95 ${result.p95.toFixed(1)} ms, ${hits} hits on the page`);
      results.push(result);
    }
    await server.stop();
    all.sort((a, b) => a - b);
    const worst = [...results].sort((a, b) => b.p95 - a.p95)[0];
    const rows: Row[] = [
      row(`search: ${messages.toLocaleString('en-US')} messages, ${results.length} queries`, {
        unit: '',
        p50Ms: percentile(all, 50),
        p99Ms: percentile(all, 95),
        targets: [{ text: `every query p95 ≤ ${P95_MS} ms (worst ${worst?.p95.toFixed(0) ?? '–'} ms: ${worst?.name ?? ''})`, met: (worst?.p95 ?? 0) <= P95_MS }],
        notes: [`p99 column: p95 of all ${all.length} requests`, `${REQUESTS} requests per query, one at a time, limit 20`],
      }),
    ];
    for (const r of results) {
      rows.push(row(`search: ${r.name}`, { unit: '', p50Ms: r.p50, p99Ms: r.p95, targets: [{ text: `p95 ≤ ${P95_MS} ms`, met: r.p95 <= P95_MS }], notes: ['p99 column: p95'] }));
    }
    return rows;
  },
};
