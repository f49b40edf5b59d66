// The chat list at scale: 100,000 chats in one account. For each kind of list request, the plan of the exact SQL
// the store runs reads the page from the intended index in list order (no sequential scan of chats, no sort of
// every matching row), and the API's pages and counts on that data equal what plain SQL says. Then: the copies the
// list relies on (chat_counts, tags.chat_count, chat_tags.last_message_at) follow every change.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ListChatsQuery } from '@parley/contracts';
import { sql, type SQL } from 'drizzle-orm';
import { listArguments } from '../src/chats/chats-service.ts';
import { countedStatement, createChatsStore, listStatement } from '../src/chats/chats-store.ts';
import { queryRows } from '../src/db/client.ts';
import { preparedRows, type PreparedQuery } from '../src/db/prepared.ts';
import { newId } from '../src/lib/ids.ts';
import { eventually } from './support/events.ts';
import { seedChat } from './support/fixtures.ts';
import { startTestApp, type TestApp, type TestResponse } from './support/harness.ts';

const CHATS = 100_000;

interface ListedChat {
  id: string;
  channelName: string;
  channelId: string;
  channelSettingsName: string | null;
  isTriggered: boolean;
  lastMessageDate: string;
  userTags: { tags: { id: string; name: string } }[];
}
type ListBody = { chats: ListedChat[]; count: number };

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Parent Relationship'?: string;
  'Heap Fetches'?: number;
  Filter?: string;
  Plans?: PlanNode[];
}

let t: TestApp;
let accountId: string;
let key: string;
const customChannel = `cc:plans${newId().replaceAll('-', '').slice(0, 16)}`;
const telegramChannel = newId();
const tagIds = { common: newId(), vip: newId(), rare: newId() };

const settings = JSON.stringify({ behavior: '', role: '', task: '', greeting: '', isActive: true, aiLang: 'en' });
const engine = JSON.stringify({ kind: 'knowledge-base' });

/** Chat number i (1..CHATS): a time-ordered id, like the app's UUIDv7 ids. */
const chatId = sql`(lpad(to_hex(1700000000000 + i * 1000), 12, '0') || '70008000' || lpad(to_hex(i), 12, '0'))::uuid`;

async function seed(): Promise<void> {
  const db = t.database.db;
  for (const [id, kind, name] of [[customChannel, 'custom', 'API'], [telegramChannel, 'telegram', 'Telegram']]) {
    await db.execute(sql`INSERT INTO channels (id, account_id, kind, name, settings, agent_engine)
      VALUES (${id}, ${accountId}, ${kind}, ${name}, ${settings}::jsonb, ${engine}::jsonb)`);
  }
  // Activity is a permutation of the ids, halved so that pairs of chats share a time (the id breaks the tie);
  // every fifth chat is on Telegram, every seventh done.
  await db.execute(sql`
    INSERT INTO chats (id, account_id, channel_id, channel_kind, external_chat_id, unique_id, dialog_name, last_text,
                       last_message_at, task_done)
    SELECT ${chatId}, ${accountId}, ch.id, ch.kind, 'ext-' || i, ch.id || ':ext-' || i, 'Visitor ' || i, 'Hello',
           timestamptz '2026-01-01 00:00:00+00' + ((i * 7919) % ${CHATS}::int / 2) * interval '1 second', i % 7 = 0
    FROM generate_series(1, ${CHATS}::int) i
    CROSS JOIN LATERAL (SELECT CASE WHEN i % 5 = 1 THEN ${telegramChannel} ELSE ${customChannel} END AS id,
                               CASE WHEN i % 5 = 1 THEN 'telegram' ELSE 'custom' END AS kind) ch`);
  const tagsOf: [string, string, SQL][] = [
    [tagIds.common, 'common', sql`i % 3 = 0`],
    [tagIds.vip, 'vip', sql`i % 10 = 0`],
    [tagIds.rare, 'rare', sql`i % 1000 = 7`],
  ];
  for (const [id, name, which] of tagsOf) {
    await db.execute(sql`INSERT INTO tags (id, account_id, name) VALUES (${id}, ${accountId}, ${name})`);
    await db.execute(sql`INSERT INTO chat_tags (tag_id, chat_id) SELECT ${id}, ${chatId} FROM generate_series(1, ${CHATS}::int) i WHERE ${which}`);
  }
  // One chat in ten is assigned to the account's owner (whose member id is the account's id; issue #25).
  await db.execute(sql`UPDATE chats SET assignee_id = ${accountId} WHERE account_id = ${accountId} AND external_chat_id LIKE '%3'`);
  // One chat in a thousand was handed to the team by the agent (issue #26).
  await db.execute(sql`UPDATE chats SET needs_human = true WHERE account_id = ${accountId} AND external_chat_id LIKE '%999'`);
  // What autovacuum does after a bulk insert: statistics, and the visibility map that lets index-only scans skip
  // the table.
  await db.execute(sql`VACUUM ANALYZE`);
}

before(async () => {
  t = await startTestApp();
  ({ accountId, key } = await t.createAccount());
  await seed();
  // Another account's chats, on the same tag names: never listed here.
  const other = await t.createAccount();
  const chat = await seedChat(t.database.db, other.accountId);
  await t.api(other.key, '/chats/chat/tags/tag-chat', { id: chat.id, tag: 'common' });
});
after(() => t.close());

const list = (query: Record<string, string>, as = key): Promise<TestResponse<ListBody>> => t.api<ListBody>(as, '/chats/chat', query);

/**
 * The EXPLAIN (FORMAT JSON) plan of a statement with its values, as PostgreSQL and PGlite both return it: the plan
 * made for these values, or (`generic`) the one made for any values, which a named statement may switch to after a
 * few executions.
 */
async function planOf(query: PreparedQuery, { generic = false, analyze = false } = {}): Promise<PlanNode> {
  const explain = { ...query, name: '', text: `EXPLAIN (FORMAT JSON${analyze ? ', ANALYZE' : ''}) ${query.text}` };
  const rows = await t.database.db.transaction(async (tx) => {
    if (generic) await tx.execute(sql`SET LOCAL plan_cache_mode = force_generic_plan`);
    return preparedRows<{ 'QUERY PLAN': unknown }>(tx, explain);
  });
  const raw = rows[0]?.['QUERY PLAN'];
  const doc = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
  return doc[0]?.Plan as PlanNode;
}

function allNodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(allNodes)];
}

/**
 * The scan a plan's page comes from: below the page's Limit, following the outer side of each join (which keeps
 * its order), through nothing that sorts or hashes.
 */
function pageScan(plan: PlanNode): PlanNode {
  const limit = allNodes(plan).find((node) => node['Node Type'] === 'Limit');
  assert.ok(limit, 'the page has a Limit');
  // A subplan (the other tags checked per chat) runs for one row at a time: it cannot reorder the page.
  const inOrder = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).filter((child) => child['Parent Relationship'] !== 'SubPlan').flatMap(inOrder)];
  const below = inOrder(limit).slice(1);
  const sorts = below.filter((node) => /Sort|Hash|Aggregate|Materialize/.test(node['Node Type']));
  assert.deepEqual(sorts.map((node) => node['Node Type']), [], 'nothing below the Limit sorts or hashes the rows');
  let node = limit.Plans?.[0];
  while (node && node['Relation Name'] === undefined) node = node.Plans?.[0];
  assert.ok(node, 'the page reads a table');
  return node;
}

/** The plan of the store's page statement for an API query, in the arguments the service would give it. */
async function pagePlan(query: ListChatsQuery, options: { generic?: boolean } = {}): Promise<PlanNode> {
  const args = await listArguments(createChatsStore(t.database.db), accountId, query);
  assert.ok(args, 'the tags exist');
  return planOf(listStatement(args.filter, args.page), options);
}

/** The expected page and count, by plain SQL over chats (tags by name, chats having all of them). */
async function expected(query: ListChatsQuery): Promise<{ ids: string[]; count: number; union: number }> {
  const names = query.tag?.split(',') ?? [];
  const hasTag = (name: string) =>
    sql`EXISTS (SELECT 1 FROM chat_tags ct JOIN tags tg ON tg.id = ct.tag_id
                WHERE ct.chat_id = c.id AND tg.account_id = ${accountId} AND tg.name = ${name})`;
  const common = [
    sql`c.account_id = ${accountId}`,
    ...(query.channelName === undefined ? [] : [sql`c.channel_kind = ${query.channelName}`]),
    ...(query.channelId === undefined ? [] : [sql`c.channel_id = ${query.channelId}`]),
    ...(query.complitedTask === undefined ? [] : [sql`c.task_done = ${query.complitedTask}`]),
  ];
  const all = sql.join([...common, ...names.map(hasTag)], sql` AND `);
  const any = sql.join([...common, ...(names.length > 0 ? [sql`(${sql.join(names.map(hasTag), sql` OR `)})`] : [])], sql` AND `);
  const rows = await queryRows<{ id: string }>(
    t.database.db,
    sql`SELECT c.id FROM chats c WHERE ${all} ORDER BY c.last_message_at DESC, c.id DESC
        LIMIT ${query.limit ?? 500} OFFSET ${query.offset ?? 0}`,
  );
  const [counted] = await queryRows<{ count: number; union: number }>(
    t.database.db,
    sql`SELECT (SELECT count(*)::int FROM chats c WHERE ${all}) AS count, (SELECT count(*)::int FROM chats c WHERE ${any}) AS "union"`,
  );
  return { ids: rows.map((row) => row.id), count: counted?.count ?? -1, union: counted?.union ?? -1 };
}

const asParams = (query: ListChatsQuery): Record<string, string> =>
  Object.fromEntries(Object.entries(query).map(([name, value]) => [name, String(value)]));

describe('the chat list at 100,000 chats: plans', () => {
  const cases: { name: string; query: ListChatsQuery; index: string; relation?: string }[] = [
    { name: 'no filter', query: { limit: 100 }, index: 'chats_account_activity_idx' },
    { name: 'channelName', query: { limit: 100, channelName: 'telegram' }, index: 'chats_account_kind_activity_idx' },
    { name: 'channelId', query: { limit: 100, channelId: customChannel }, index: 'chats_account_channel_activity_idx' },
    { name: 'complitedTask=true', query: { limit: 100, complitedTask: true }, index: 'chats_account_done_activity_idx' },
    { name: 'complitedTask=false', query: { limit: 100, complitedTask: false }, index: 'chats_account_activity_idx' },
    { name: 'a deep offset', query: { limit: 100, offset: 90_000 }, index: 'chats_account_activity_idx' },
    { name: 'one tag', query: { limit: 100, tag: 'common' }, index: 'chat_tags_tag_activity_idx', relation: 'chat_tags' },
    { name: 'two tags', query: { limit: 100, tag: 'common,vip' }, index: 'chat_tags_tag_activity_idx', relation: 'chat_tags' },
    { name: 'a rare tag', query: { limit: 100, tag: 'rare' }, index: 'chat_tags_tag_activity_idx', relation: 'chat_tags' },
    {
      name: 'a tag and a channel kind',
      query: { limit: 100, tag: 'vip', channelName: 'telegram' },
      index: 'chat_tags_tag_activity_idx',
      relation: 'chat_tags',
    },
  ];
  for (const { name, query, index, relation = 'chats' } of cases) {
    for (const generic of [false, true]) {
      test(`${name}: the page is read from ${index} in list order${generic ? ' (generic plan)' : ''}`, async () => {
        const plan = await pagePlan(query, { generic });
        const scans = allNodes(plan).filter((node) => node['Node Type'] === 'Seq Scan' && /^chat/.test(node['Relation Name'] ?? ''));
        assert.deepEqual(scans, [], 'no sequential scan of chats or chat_tags');
        const scan = pageScan(plan);
        // The index holds every column the page needs (not task_done of open chats, nor chats' columns for tags).
        const covered = query.complitedTask !== false && (query.channelName === undefined || relation === 'chats');
        assert.match(scan['Node Type'], covered ? /^Index Only Scan$/ : /^Index (Only )?Scan$/);
        assert.equal(scan['Relation Name'], relation);
        assert.equal(scan['Index Name'], index);
      });
    }
  }

  // The Inbox's assignee filter: a member's chats from the partial index of assigned chats, unassigned ones from
  // the activity index (nine chats in ten are unassigned).
  for (const [name, assigneeId, index] of [
    ['a member\'s chats (assignee)', 'owner', 'chats_account_assignee_activity_idx'],
    ['unassigned chats (assignee=none)', null, 'chats_account_activity_idx'],
  ] as const) {
    for (const generic of [false, true]) {
      test(`${name}: the page is read from ${index} in list order${generic ? ' (generic plan)' : ''}`, async () => {
        const args = await listArguments(createChatsStore(t.database.db), accountId, {
          limit: 100,
          assigneeId: assigneeId === 'owner' ? accountId : null,
          withAssignee: true,
        });
        assert.ok(args);
        const plan = await planOf(listStatement(args.filter, args.page), { generic });
        const scans = allNodes(plan).filter((node) => node['Node Type'] === 'Seq Scan' && /^chat/.test(node['Relation Name'] ?? ''));
        assert.deepEqual(scans, [], 'no sequential scan of chats');
        const scan = pageScan(plan);
        assert.match(scan['Node Type'], /^Index (Only )?Scan$/);
        assert.equal(scan['Index Name'], index);
      });
    }
  }

  // The Inbox's `Needs a human` view: the few handed-off chats from their partial index, and counted from it.
  for (const generic of [false, true]) {
    test(`chats that need a human: the page is read from chats_account_needs_human_activity_idx${generic ? ' (generic plan)' : ''}`, async () => {
      const args = await listArguments(createChatsStore(t.database.db), accountId, { limit: 100, needsHuman: true, withAssignee: true });
      assert.ok(args);
      const plan = await planOf(listStatement(args.filter, args.page), { generic });
      const scans = allNodes(plan).filter((node) => node['Node Type'] === 'Seq Scan' && /^chat/.test(node['Relation Name'] ?? ''));
      assert.deepEqual(scans, [], 'no sequential scan of chats');
      const scan = pageScan(plan);
      assert.match(scan['Node Type'], /^Index (Only )?Scan$/);
      assert.equal(scan['Index Name'], 'chats_account_needs_human_activity_idx');
    });
  }

  for (const [name, query] of [
    ['a deep offset', { limit: 100, offset: 90_000 }],
    ['a deep offset of a tag', { limit: 100, tag: 'common', offset: 30_000 }],
    ['a deep offset of done chats', { limit: 100, complitedTask: true, offset: 14_000 }],
  ] as [string, ListChatsQuery][]) {
    test(`${name}: the skipped rows are read from the index only, without visiting the table`, async () => {
      const args = await listArguments(createChatsStore(t.database.db), accountId, query);
      assert.ok(args);
      const plan = await planOf(listStatement(args.filter, args.page), { analyze: true });
      const scan = pageScan(plan);
      assert.equal(scan['Node Type'], 'Index Only Scan');
      // The visibility map is set (VACUUM after the bulk load): only pages changed since are visited.
      assert.ok((scan['Heap Fetches'] ?? Infinity) < 1_000, `${scan['Heap Fetches']} heap fetches`);
    });
  }

  test('two tags: the rarer one is walked, the other looked up per chat by an index', async () => {
    const plan = await pagePlan({ limit: 100, tag: 'common,vip' });
    assert.match(pageScan(plan)['Index Cond'] ?? '', new RegExp(tagIds.vip));
    const probes = allNodes(plan).filter((node) => node['Relation Name'] === 'chat_tags' && /chat_id = ct\.chat_id/.test(`${node['Index Cond']}`));
    assert.equal(probes.length, 1);
    assert.match(probes[0]?.['Index Name'] ?? '', /^(chat_tags_tag_id_chat_id_pk|chat_tags_chat_id_idx)$/);
  });

  test('the count of a page without tags comes from chat_counts, a few rows read by their primary key', async () => {
    const plan = await planOf(countedStatement({ accountId, channelKind: 'telegram', taskDone: false }));
    assert.ok(allNodes(plan).every((node) => node['Relation Name'] === undefined || node['Relation Name'] === 'chat_counts'));
  });
});

describe('the chat list at 100,000 chats: answers', () => {
  const cases: [string, ListChatsQuery][] = [
    ['no filter', { limit: 100 }],
    ['the default page (500)', {}],
    ['channelName', { limit: 100, channelName: 'telegram' }],
    ['channelName of no chat', { limit: 100, channelName: 'widget' }],
    ['channelId', { limit: 100, channelId: customChannel }],
    ['complitedTask=true', { limit: 100, complitedTask: true }],
    ['complitedTask=false', { limit: 100, complitedTask: false }],
    ['a deep offset', { limit: 100, offset: 90_000 }],
    ['an offset past the end', { limit: 100, offset: 200_000 }],
    ['the last, partial page', { limit: 1000, offset: 99_500 }],
    ['one tag', { limit: 100, tag: 'common' }],
    ['one tag, deep', { limit: 100, tag: 'vip', offset: 9_950 }],
    ['a rare tag (a partial page)', { limit: 1000, tag: 'rare' }],
    ['a tag and a channel kind', { limit: 100, tag: 'vip', channelName: 'telegram' }],
    ['a tag, a channel and done', { limit: 100, tag: 'common', channelId: customChannel, complitedTask: true }],
    ['a tag with no chats of a channel kind', { limit: 100, tag: 'vip', channelName: 'widget' }],
    ['a tag the account lacks', { limit: 100, tag: 'common,nope' }],
  ];
  for (const [name, query] of cases) {
    test(`${name}: the page and the exact count`, async () => {
      const res = await list(asParams(query));
      assert.equal(res.status, 200, res.text);
      const want = await expected(query);
      assert.deepEqual(res.body.chats.map((chat) => chat.id), want.ids);
      assert.equal(res.body.count, want.count);
    });
  }

  for (const [name, query] of [
    ['two tags, full pages', { limit: 100, tag: 'common,vip' }],
    ['two tags, deep', { limit: 100, tag: 'vip,common', offset: 3_000 }],
    ['two tags, a partial page', { limit: 1000, tag: 'rare,common' }],
  ] as [string, ListChatsQuery][]) {
    test(`${name}: the exact page; a count between the chats having all tags and those having any (spec)`, async () => {
      const res = await list(asParams(query));
      assert.equal(res.status, 200, res.text);
      const want = await expected(query);
      assert.deepEqual(res.body.chats.map((chat) => chat.id), want.ids);
      assert.ok(res.body.count >= want.count && res.body.count <= want.union, `${res.body.count} in [${want.count}, ${want.union}]`);
      if (res.body.chats.length < (query.limit ?? 500)) assert.equal(res.body.count, want.count, 'a partial page: exact');
    });
  }

  test('the fields of a listed chat: channel, status, tags by name', async () => {
    const res = await list({ limit: '60', tag: 'common,vip' });
    const chat = res.body.chats[0];
    assert.ok(chat);
    assert.deepEqual(chat.userTags.map((tag) => tag.tags.name), ['common', 'vip']);
    const [row] = await queryRows<{ channel_id: string; task_done: boolean; last_message_at: string | Date }>(
      t.database.db,
      sql`SELECT channel_id, task_done, last_message_at FROM chats WHERE id = ${chat.id}`,
    );
    assert.equal(chat.channelId, row?.channel_id);
    assert.equal(chat.channelSettingsName, chat.channelId === customChannel ? 'API' : 'Telegram');
    assert.equal(chat.channelName, chat.channelId === customChannel ? 'custom' : 'telegram');
    assert.equal(chat.isTriggered, row?.task_done);
    assert.equal(chat.lastMessageDate, new Date(row?.last_message_at ?? 0).toISOString());
  });
});

/** The three copies equal what they copy, over the whole database. */
async function assertCopiesExact(): Promise<void> {
  const db = t.database.db;
  const [drift] = await queryRows<{ counts: number; tags: number; activity: number }>(
    db,
    sql`WITH counted AS (
      SELECT account_id, channel_id, channel_kind, sum(chats) AS chats, sum(done_chats) AS done_chats
      FROM chat_counts GROUP BY account_id, channel_id, channel_kind)
    SELECT
      (SELECT count(*)::int FROM (
         SELECT account_id, channel_id, channel_kind, chats, done_chats FROM counted WHERE chats <> 0
         EXCEPT
         SELECT account_id, channel_id, channel_kind, count(*), count(*) FILTER (WHERE task_done)
         FROM chats GROUP BY account_id, channel_id, channel_kind) d) +
      (SELECT count(*)::int FROM (
         SELECT account_id, channel_id, channel_kind, count(*), count(*) FILTER (WHERE task_done)
         FROM chats GROUP BY account_id, channel_id, channel_kind
         EXCEPT
         SELECT account_id, channel_id, channel_kind, chats, done_chats FROM counted) d) AS counts,
      (SELECT count(*)::int FROM tags t WHERE chat_count <> (SELECT count(*) FROM chat_tags ct WHERE ct.tag_id = t.id)) AS tags,
      (SELECT count(*)::int FROM chat_tags ct JOIN chats c ON c.id = ct.chat_id WHERE ct.last_message_at <> c.last_message_at) AS activity`,
  );
  assert.deepEqual(drift, { counts: 0, tags: 0, activity: 0 });
}

describe('the copies behind count and tag order follow every change', () => {
  test('after seeding 100,000 chats in bulk', assertCopiesExact);

  test('chats created, done, undone, tagged, untagged, moved up by a message, and deleted with their channel', async () => {
    const user = await t.createConsoleUser();
    const connect = async (name: string) =>
      (await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', { body: { name } })).body.id;
    const [a, b] = [await connect('A'), await connect('B')];
    const send = (channelId: string, externalChatId: string) =>
      t.request('POST', '/api/v1/chats/chat/send-message-universal', {
        headers: { authorization: user.key },
        body: { channel: 'custom', channelId, externalChatId, role: 'user', text: 'hi' },
      });
    for (const [channel, ext] of [[a, 'a1'], [a, 'a2'], [a, 'a3'], [b, 'b1'], [b, 'b2']] as const) {
      assert.equal((await send(channel, ext)).status, 201);
    }
    // limit 1: a full page, so `count` is not the page's length but the copies'.
    const countOf = async (query: Record<string, string>) => {
      const res = await list({ ...query, limit: '1' }, user.key);
      assert.equal(res.status, 200, res.text);
      return res.body.count;
    };
    const byExt = async (ext: string) => {
      const [row] = await queryRows<{ id: string }>(
        t.database.db,
        sql`SELECT id FROM chats WHERE account_id = ${user.accountId} AND external_chat_id = ${ext}`,
      );
      assert.ok(row, ext);
      return row.id;
    };
    assert.equal((await list({}, user.key)).body.chats.length, 5);
    assert.deepEqual([await countOf({}), await countOf({ channelId: a }), await countOf({ channelName: 'custom' })], [5, 3, 5]);

    const a1 = await byExt('a1');
    assert.equal((await t.api(user.key, '/chats/chat/done', { id: a1 })).status, 202);
    await eventually(async () => (await countOf({ complitedTask: 'true' })) === 1);
    assert.deepEqual([await countOf({ complitedTask: 'false' }), await countOf({ complitedTask: 'true', channelId: b })], [4, 0]);
    assert.equal((await t.api(user.key, '/chats/chat/undone', { id: a1 })).status, 202);
    await eventually(async () => (await countOf({ complitedTask: 'true' })) === 0);

    await seedChat(t.database.db, user.accountId, { channelId: b, taskDone: true });
    assert.deepEqual([await countOf({}), await countOf({ channelId: b }), await countOf({ complitedTask: 'true' })], [6, 3, 1]);

    const tag = (id: string, name: string) => t.api(user.key, '/chats/chat/tags/tag-chat', { id, tag: name });
    const [a2, a3, b1] = [await byExt('a2'), await byExt('a3'), await byExt('b1')];
    for (const id of [a1, a2, b1]) assert.equal((await tag(id, 'x')).status, 200);
    assert.equal((await tag(a1, 'y')).status, 200);
    assert.deepEqual([await countOf({ tag: 'x' }), await countOf({ tag: 'y' }), await countOf({ tag: 'x', channelId: a })], [3, 1, 2]);
    const untag = await t.request('DELETE', '/api/v1/chats/chat/tags/remove-from-chat', {
      headers: { authorization: user.key },
      query: { id: a2, tag: 'x' },
    });
    assert.equal(untag.status, 200);
    assert.equal(await countOf({ tag: 'x' }), 2);

    // A new message moves a tagged chat to the top of its tag's list.
    const tagged = async () => (await list({ tag: 'x' }, user.key)).body.chats.map((chat) => chat.id);
    assert.deepEqual(await tagged(), [b1, a1]);
    await send(a, 'a1');
    assert.deepEqual(await tagged(), [a1, b1]);
    assert.equal((await tag(a3, 'x')).status, 200);
    assert.deepEqual(await tagged(), [a1, b1, a3], 'a chat tagged later is placed by its own activity');

    const removed = await t.console(user.token, 'DELETE', `/channel/custom/${b}/`);
    assert.equal(removed.status, 200, removed.text);
    assert.deepEqual([await countOf({}), await countOf({ channelId: b }), await countOf({ tag: 'x' })], [3, 0, 2]);
    const removeTag = await t.request('DELETE', '/api/v1/chats/chat/tags/remove', { headers: { authorization: user.key }, query: { tag: 'y' } });
    assert.equal(removeTag.status, 200);
    assert.deepEqual((await list({ tag: 'y' }, user.key)).body, { chats: [], count: 0 });
    await assertCopiesExact();
  });
});
