// The event feed (GET /api/v1/events, issue #18): the account's webhook events in commit order with a stable
// cursor, payloads exactly as the webhook receives them, kept across a restart, isolated between accounts.
import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import type { EventPage, WebhookEvent } from '@parley/contracts';
import { MIGRATIONS_FOLDER, queryRows, type DatabaseHandle } from '../src/db/client.ts';
import { recordEvent } from '../src/events/outbox.ts';
import { createDeliveryStore } from '../src/webhooks/delivery-store.ts';
import { openTestDatabase } from './support/database.ts';
import { eventsOf, eventually } from './support/events.ts';
import { startTestApp, type TestApp } from './support/harness.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

let database: DatabaseHandle;
let t: TestApp;
let receiver: Receiver;
before(async () => {
  database = await openTestDatabase();
  t = await startTestApp({ database, webhookAllowPrivateNetworks: true });
  receiver = await startReceiver();
});
after(async () => {
  await t.close();
  await receiver.close();
  await database.close();
});

/** A console user with an API channel whose agent is silent (so only the test's own messages make events). */
async function setUp(app: TestApp, webhookUrl: string | null = receiver.url) {
  const user = await app.createConsoleUser();
  const channel = await app.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
    body: { name: 'Feed shop', disableAgentResponses: true, ...(webhookUrl ? { webhookUrl } : {}) },
  });
  assert.equal(channel.status, 201, channel.text);
  const send = async (externalChatId: string, text: string, on: TestApp = app) => {
    const res = await on.request('POST', '/api/v1/chats/chat/send-message-universal', {
      headers: { authorization: user.key },
      body: { channel: 'custom', channelId: channel.body.id, externalChatId, role: 'user', text },
    });
    assert.equal(res.status, 201, res.text);
  };
  return { user, channelId: channel.body.id, send };
}

const feed = (app: TestApp, key: string, query: Record<string, string> = {}) => app.api<EventPage>(key, '/events', query);

/**
 * The feed once it shows `count` events. An event shows once every transaction older than its own has ended; on a
 * shared PostgreSQL server that includes other databases' transactions, so it may take a moment.
 */
const feedOf = async (app: TestApp, key: string, count: number, query: Record<string, string> = {}) => {
  const res = await eventually(async () => {
    const page = await feed(app, key, query);
    assert.equal(page.status, 200, page.text);
    return page.body.events.length >= count && page;
  }, 20_000);
  return res;
};

const textsOf = (page: EventPage) =>
  page.events.map((e) => (e.payload.event === 'new_messages' ? e.payload.messages.map((m) => m.text).join() : e.payload.event));

describe('GET /api/v1/events', () => {
  test('returns the events in order, with the payloads the webhook receives', async () => {
    const s = await setUp(t);
    for (const text of ['one', 'two', 'three']) await s.send('order', text);
    const res = await feedOf(t, s.user.key, 3);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(textsOf(res.body), ['one', 'two', 'three']);
    assert.equal(res.body.hasMore, false);
    assert.equal(res.body.nextCursor, res.body.events[2]?.cursor);
    for (const event of res.body.events) {
      assert.equal(event.channelId, s.channelId);
      assert.match(event.id, /^[0-9a-f-]{36}$/);
      assert.match(event.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    // Byte for byte the webhook bodies (same objects, parsed).
    const delivered = await eventually(async () => {
      const bodies = receiver.requests
        .map((r) => JSON.parse(r.body) as WebhookEvent)
        .filter((p) => p.event === 'new_messages' && p.chat.uniqueId === `${s.channelId}:order`);
      return bodies.length === 3 && bodies;
    });
    const byText = (p: WebhookEvent) => (p.event === 'new_messages' ? (p.messages[0]?.text ?? '') : '');
    assert.deepEqual(
      res.body.events.map((e) => e.payload),
      [...delivered].sort((a, b) => ['one', 'two', 'three'].indexOf(byText(a)) - ['one', 'two', 'three'].indexOf(byText(b))),
    );
    // Every kind is served whole: a status change equals its stored payload, field for field.
    const chatId = res.body.events[0]?.payload.chat.id ?? '';
    assert.equal((await t.api(s.user.key, '/chats/chat/done', { id: chatId })).status, 202);
    const withStatus = await feedOf(t, s.user.key, 4);
    const stored = await eventsOf(database.db, s.channelId);
    assert.deepEqual(withStatus.body.events.map((e) => e.id), stored.map((e) => e.id));
    assert.deepEqual(withStatus.body.events.map((e) => e.payload), stored.map((e) => e.payload));
    assert.equal(withStatus.body.events[3]?.payload.event, 'dialog_status_changed');
  });

  test('pages with the cursor: every event once, none skipped; an empty page keeps the cursor', async () => {
    const s = await setUp(t, null);
    for (let i = 1; i <= 7; i += 1) await s.send(`paging-${i % 2}`, `m${i}`);
    await feedOf(t, s.user.key, 7);
    const seen: string[] = [];
    let after: string | undefined;
    let pages = 0;
    for (;;) {
      const res = await feed(t, s.user.key, { limit: '3', ...(after ? { after } : {}) });
      assert.equal(res.status, 200, res.text);
      pages += 1;
      seen.push(...textsOf(res.body));
      assert.equal(res.body.hasMore, seen.length < 7);
      if (res.body.events.length > 0) assert.equal(res.body.nextCursor, res.body.events.at(-1)?.cursor);
      after = res.body.nextCursor ?? undefined;
      if (!res.body.hasMore) break;
    }
    assert.equal(pages, 3);
    assert.deepEqual(seen, ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7']);
    const empty = await feed(t, s.user.key, { after: after ?? '' });
    assert.deepEqual(empty.body, { events: [], nextCursor: after, hasMore: false });
    // A new event arrives after the cursor.
    await s.send('paging-1', 'm8');
    const next = await feedOf(t, s.user.key, 1, { after: after ?? '' });
    assert.deepEqual(textsOf(next.body), ['m8']);
    // An account with no event yet: no cursor to give.
    const fresh = await t.createAccount();
    assert.deepEqual((await feed(t, fresh.key)).body, { events: [], nextCursor: null, hasMore: false });
  });

  test('an event whose transaction commits late is not skipped by a reader that paged past later events', async (ctx) => {
    // Needs two transactions at once: PGlite runs one at a time for the whole process.
    if (!process.env.DATABASE_URL) return ctx.skip('needs a PostgreSQL server (DATABASE_URL)');
    const s = await setUp(t, null);
    await s.send('late', 'before');
    const start = await feedOf(t, s.user.key, 1);
    const cursor = start.body.nextCursor ?? '';
    const template = start.body.events[0]?.payload;
    assert.ok(template && template.event === 'new_messages');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let recorded!: () => void;
    const inserted = new Promise<void>((resolve) => (recorded = resolve));
    const chatless = (text: string): WebhookEvent => ({ ...template, messages: template.messages.map((m) => ({ ...m, text })) });
    // Transaction A writes its event first and commits last.
    const slow = database.db.transaction(async (tx) => {
      await recordEvent(tx, { accountId: s.user.accountId, channelId: s.channelId, chatId: null, payload: chatless('late') });
      recorded();
      await held;
    });
    await inserted;
    await s.send('late', 'after'); // transaction B commits while A is open
    const during = await feed(t, s.user.key, { after: cursor });
    assert.deepEqual(during.body, { events: [], nextCursor: cursor, hasMore: false }, 'nothing past an open transaction');
    release();
    await slow;
    const done = await feedOf(t, s.user.key, 2, { after: cursor });
    assert.deepEqual(textsOf(done.body), ['late', 'after']);
  });

  test('transaction ids are ordered as numbers, not as text (99 before 100)', async (ctx) => {
    const s = await setUp(t, null);
    const xid = async () => BigInt((await queryRows<{ x: string }>(database.db, sql`SELECT pg_current_xact_id()::text AS x`))[0]?.x ?? '0');
    // The next power of ten (999 → 1000): reachable on a fresh PGlite; a shared server's ids are far past it.
    const now = await xid();
    const boundary = 10n ** BigInt(now.toString().length);
    if (boundary - now > 5000n) return ctx.skip(`transaction id ${now} is too far from ${boundary}`);
    // Each statement outside a transaction takes a new id: stop two short of the boundary.
    while ((await xid()) < boundary - 3n) {
      // next one
    }
    await s.send('digits', 'before');
    while ((await xid()) < boundary) {
      // next one
    }
    await s.send('digits', 'after');
    const page = await feedOf(t, s.user.key, 2);
    assert.deepEqual(textsOf(page.body), ['before', 'after']);
  });

  test('nothing is lost across a restart on the same database', async () => {
    const s = await setUp(t, null);
    await s.send('restart', 'r1');
    await s.send('restart', 'r2');
    await feedOf(t, s.user.key, 2);
    const first = await feed(t, s.user.key, { limit: '1' });
    assert.deepEqual(textsOf(first.body), ['r1']);
    const cursor = first.body.nextCursor ?? '';
    const one = await startTestApp({ database });
    await s.send('restart', 'r3', one);
    await one.close();
    const two = await startTestApp({ database });
    try {
      await s.send('restart', 'r4', two);
      const rest = await feedOf(two, s.user.key, 3, { after: cursor });
      assert.deepEqual(textsOf(rest.body), ['r2', 'r3', 'r4']);
    } finally {
      await two.close();
    }
  });

  test("an account sees only its own events; another account's cursor shows it nothing", async () => {
    const a = await setUp(t, null);
    const b = await setUp(t, null);
    await a.send('iso', 'for a');
    await b.send('iso', 'for b');
    const pageA = await feedOf(t, a.user.key, 1);
    const pageB = await feedOf(t, b.user.key, 1);
    assert.deepEqual(textsOf(pageA.body), ['for a']);
    assert.deepEqual(textsOf(pageB.body), ['for b']);
    const start = await t.createAccount();
    const firstOfA = pageA.body.events[0]?.cursor ?? '';
    // A cursor is only a position: with another account's cursor, b reads its own events after that position.
    assert.deepEqual(textsOf((await feed(t, b.user.key, { after: firstOfA })).body), ['for b']);
    assert.deepEqual((await feed(t, start.key, { after: firstOfA })).body.events, []);
  });

  test('needs the events:read scope, which new keys have by default', async () => {
    const narrow = await t.createAccount({ scopes: ['chats:read'] });
    const res = await feed(t, narrow.key);
    assert.equal(res.status, 403);
    assert.deepEqual(res.body, { message: 'Forbidden scoupe/recources', code: 403 });
    const only = await t.createAccount({ scopes: ['events:read'] });
    assert.equal((await feed(t, only.key)).status, 200);
    const all = await t.createAccount();
    const keys = await t.admin<{ keys: { scopes: string[] }[] }>('GET', `/accounts/${all.accountId}/api-keys`);
    assert.deepEqual(keys.body.keys[0]?.scopes, ['chats:read', 'chats:write', 'tags', 'messages', 'feedback', 'events:read']);
    assert.equal((await t.api(undefined, '/events')).status, 401);
  });

  test('unknown parameters, a limit out of bounds and a bad cursor are 400', async () => {
    const { key } = await t.createAccount();
    const cases: [Record<string, string>, unknown][] = [
      [{ since: 'x' }, ['property since should not exist']],
      [{ limit: '0' }, ['limit must be >= 1']],
      [{ limit: '1001' }, ['limit must be <= 1000']],
      [{ limit: 'ten' }, ['limit must be integer']],
      [{ after: 'not a cursor!' }, undefined],
      [{ after: Buffer.from('12.nope').toString('base64url') }, 'Invalid cursor'],
      [{ after: Buffer.from(`99999999999999999999999.00000000-0000-7000-8000-000000000000`).toString('base64url') }, 'Invalid cursor'],
      [{ after: 'AAAA' }, 'Invalid cursor'],
    ];
    for (const [query, message] of cases) {
      const res = await feed(t, key, query);
      assert.equal(res.status, 400, `${JSON.stringify(query)} ${res.text}`);
      if (message !== undefined) assert.deepEqual(res.body, { message, statusCode: 400 }, JSON.stringify(query));
    }
  });

  test('pruning keeps the retention period; the cursor still works after it', async () => {
    const s = await setUp(t, null);
    await s.send('prune', 'old');
    const before = await feedOf(t, s.user.key, 1);
    const store = createDeliveryStore(database.db);
    // Nothing is older than a week: nothing goes.
    await store.pruneDelivered(new Date(Date.now() - 7 * 24 * 3_600_000));
    assert.deepEqual(textsOf((await feed(t, s.user.key)).body), ['old']);
    // Past the retention period (a cut-off in the future): events without a delivery go.
    await store.pruneDelivered(new Date(Date.now() + 60_000));
    assert.deepEqual((await feed(t, s.user.key)).body.events, []);
    await s.send('prune', 'new');
    assert.deepEqual(textsOf((await feedOf(t, s.user.key, 1, { after: before.body.nextCursor ?? '' })).body), ['new']);
  });
});

test('migration 0014 gives events:read to the keys that had every scope, and only to them', async () => {
  // A database migrated up to 0013 (the migrations before 0014), two keys made then, then every migration.
  const before14 = await mkdtemp(path.join(os.tmpdir(), 'parley-migrations-'));
  try {
    for (const file of await readdir(MIGRATIONS_FOLDER)) {
      if (file.endsWith('.sql') && Number(file.slice(0, 4)) < 14) await copyFile(path.join(MIGRATIONS_FOLDER, file), path.join(before14, file));
    }
    await mkdir(path.join(before14, 'meta'));
    const journal = JSON.parse(await readFile(path.join(MIGRATIONS_FOLDER, 'meta/_journal.json'), 'utf8')) as { entries: { tag: string; idx: number }[] };
    journal.entries = journal.entries.filter((entry) => entry.idx < 14);
    await writeFile(path.join(before14, 'meta/_journal.json'), JSON.stringify(journal));
    const client = await PGlite.create();
    try {
      const db = drizzle(client);
      await migrate(db, { migrationsFolder: before14 });
      await client.exec(`
        INSERT INTO accounts (id, email, password_hash) VALUES ('00000000-0000-7000-8000-000000000001', 'old@example.com', 'x');
        INSERT INTO api_keys (id, account_id, key_hash, prefix, scopes) VALUES
          ('00000000-0000-7000-8000-000000000002', '00000000-0000-7000-8000-000000000001', 'h1', 'p1', '{chats:read,chats:write,tags,messages,feedback}'),
          ('00000000-0000-7000-8000-000000000003', '00000000-0000-7000-8000-000000000001', 'h2', 'p2', '{chats:read,tags}');`);
      await migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
      const keys = await client.query<{ prefix: string; scopes: string[] }>('SELECT prefix, scopes FROM api_keys ORDER BY prefix');
      assert.deepEqual(keys.rows, [
        { prefix: 'p1', scopes: ['chats:read', 'chats:write', 'tags', 'messages', 'feedback', 'events:read'] },
        { prefix: 'p2', scopes: ['chats:read', 'tags'] },
      ]);
    } finally {
      await client.close();
    }
  } finally {
    await rm(before14, { recursive: true, force: true });
  }
});
