// The chat list at scale: 100,000 chats in one account. For each kind of list request, the plan of the exact SQL
// the store runs reads the page from the intended index in list order (no sequential scan of chats, no sort of
// every matching row), and the API's pages and counts on that data equal what plain SQL says. Then: the copies the
// list relies on (chat_counts, tags.chat_count, chat_tags.last_message_at) follow every change.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ListChatsQuery } from '@parley/contracts';
import { sql, type SQL } from 'drizzle-orm';
import { listArguments } from '../src/chats/chats-service.ts';
import { countedStatement, createChatsStore, inboxCountedStatement, listStatement, tagCountedStatement } from '../src/chats/chats-store.ts';
import { DEFAULT_DATABASE_TIMEOUTS } from '../src/config.ts';
import { queryRows, type DatabaseHandle } from '../src/db/client.ts';
import { preparedRows, type PreparedQuery } from '../src/db/prepared.ts';
import { newId } from '../src/lib/ids.ts';
import { eventually } from './support/events.ts';
import { seedChat } from './support/fixtures.ts';
import { openTestDatabase } from './support/database.ts';
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
let token: string;
const customChannel = `cc:plans${newId().replaceAll('-', '').slice(0, 16)}`;
const telegramChannel = newId();
const tagIds = { common: newId(), vip: newId(), rare: newId() };

const settings = JSON.stringify({ behavior: '', role: '', task: '', greeting: '', isActive: true, aiLang: 'en' });
const engine = JSON.stringify({ kind: 'knowledge-base' });

/** Chat number i (1..CHATS): a time-ordered id, like the app's UUIDv7 ids. */
const chatId = sql`(lpad(to_hex(1700000000000 + i * 1000), 12, '0') || '70008000' || lpad(to_hex(i), 12, '0'))::uuid`;

async function seed(): Promise<void> {
  // Each statement of the bulk load on its own, without the requests' statement timeout (a loaded machine may need
  // more), and in a transaction of its own (a long one would hold back the event feed of the files beside it).
  const db = {
    execute: (statement: SQL) =>
      t.database.db.transaction(async (tx) => {
        await tx.execute(sql`SET LOCAL statement_timeout = 0`);
        await tx.execute(statement);
      }),
  };
  await seedRows(db);
  // What autovacuum does after a bulk insert: statistics, and the visibility map that lets index-only scans skip
  // the table.
  await t.database.db.execute(sql`VACUUM ANALYZE`);
}

async function seedRows(db: { execute(statement: SQL): Promise<unknown> }): Promise<void> {
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
  // One chat in eight is unread, one in a hundred flagged unread (issue #41: the Inbox's filters).
  await db.execute(sql`UPDATE chats SET unread_count = 2 WHERE account_id = ${accountId} AND substring(external_chat_id FROM 5)::int % 8 = 5`);
  await db.execute(sql`UPDATE chats SET custom_unread = true WHERE account_id = ${accountId} AND external_chat_id LIKE '%42'`);
}

let database: DatabaseHandle;

before(async () => {
  // The seed's statements lift the server's statement timeout; the client's read timeout (the statement timeout and a
  // margin) is lifted too, or a bulk update of 100,000 chats on a loaded machine ends in `Query read timeout`.
  database = await openTestDatabase({ timeouts: { ...DEFAULT_DATABASE_TIMEOUTS, statementMs: 600_000 } });
  t = await startTestApp({ database });
  ({ accountId, key, token } = await t.createConsoleUser());
  await seed();
  // Another account's chats, on the same tag names: never listed here.
  const other = await t.createAccount();
  const chat = await seedChat(t.database.db, other.accountId);
  await t.api(other.key, '/chats/chat/tags/tag-chat', { id: chat.id, tag: 'common' });
});
after(async () => {
  await t.close();
  await database.close();
});

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
type InboxQuery = ListChatsQuery & { unread?: boolean; needsHuman?: boolean; assignee?: 'me' | 'none' };

async function expected(query: InboxQuery): Promise<{ ids: string[]; count: number; union: number }> {
  const names = query.tag?.split(',') ?? [];
  const hasTag = (name: string) =>
    sql`EXISTS (SELECT 1 FROM chat_tags ct JOIN tags tg ON tg.id = ct.tag_id
                WHERE ct.chat_id = c.id AND tg.account_id = ${accountId} AND tg.name = ${name})`;
  const common = [
    sql`c.account_id = ${accountId}`,
    ...(query.channelName === undefined ? [] : [sql`c.channel_kind = ${query.channelName}`]),
    ...(query.channelId === undefined ? [] : [sql`c.channel_id = ${query.channelId}`]),
    ...(query.complitedTask === undefined ? [] : [sql`c.task_done = ${query.complitedTask}`]),
    ...(query.unread ? [sql`(c.unread_count > 0 OR c.custom_unread)`] : []),
    ...(query.needsHuman ? [sql`c.needs_human`] : []),
    ...(query.assignee === 'me' ? [sql`c.assignee_id = ${accountId}`] : query.assignee === 'none' ? [sql`c.assignee_id IS NULL`] : []),
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

const asParams = (query: InboxQuery): Record<string, string> =>
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

  // The Inbox's filters (issue #41): every count is a sum of counters, never a scan of chats or chat_tags.
  const inboxArguments = async (query: InboxQuery) => {
    const { assignee, ...rest } = query;
    const args = await listArguments(createChatsStore(t.database.db), accountId, {
      ...rest,
      ...(assignee === undefined ? {} : { assigneeId: assignee === 'me' ? accountId : null }),
      withAssignee: true,
    });
    assert.ok(args, 'the tags exist');
    return args;
  };
  for (const [name, query] of [
    ['unassigned', { assignee: 'none' }],
    ['unassigned, unread and done on a channel', { assignee: 'none', unread: true, complitedTask: true, channelId: customChannel }],
    ['mine and needing a person', { assignee: 'me', needsHuman: true }],
    ['unread of a channel kind', { unread: true, channelName: 'telegram' }],
  ] as [string, InboxQuery][]) {
    test(`Inbox count, ${name}: summed from chat_inbox_counts by its key, no chats read`, async () => {
      const { filter } = await inboxArguments(query);
      const plan = await planOf(inboxCountedStatement(filter));
      const relations = allNodes(plan).map((node) => node['Relation Name']).filter((relation) => relation !== undefined);
      assert.deepEqual([...new Set(relations)], ['chat_inbox_counts']);
      assert.ok(allNodes(plan).some((node) => node['Index Name'] === 'chat_inbox_counts_pk'), 'read by its primary key');
    });
  }
  for (const [name, query] of [
    ['a tag and unassigned', { tag: 'vip', assignee: 'none' }],
    ['two tags, unread and done', { tag: 'common,vip', unread: true, complitedTask: true }],
  ] as [string, InboxQuery][]) {
    test(`Inbox count, ${name}: summed from chat_tag_counts per tag, no chats or chat_tags read`, async () => {
      const { filter } = await inboxArguments(query);
      const plan = await planOf(tagCountedStatement(filter));
      const relations = allNodes(plan).map((node) => node['Relation Name']).filter((relation) => relation !== undefined);
      assert.deepEqual([...new Set(relations)], ['chat_tag_counts']);
    });
    for (const generic of [false, true]) {
      test(`Inbox page, ${name}: read from chat_tags_tag_activity_idx alone, no chats filtered by a join${generic ? ' (generic plan)' : ''}`, async () => {
        const { filter, page } = await inboxArguments(query);
        const plan = await planOf(listStatement({ ...filter, drive: 'tag' }, page), { generic });
        const scan = pageScan(plan);
        assert.equal(scan['Index Name'], 'chat_tags_tag_activity_idx');
        assert.equal(scan['Node Type'], 'Index Only Scan', 'the filtered columns are in the index');
        const chatsScans = allNodes(plan).filter((node) => node['Relation Name'] === 'chats' && node !== scan);
        // Chats are read only for the page's own rows (the outer join by primary key), never to filter.
        assert.ok(chatsScans.every((node) => node['Index Name'] === 'chats_pkey'), chatsScans.map((node) => node['Index Name']).join());
      });
    }
  }
  // The chats' partial indexes include the other filtered columns: the rows a page skips are filtered in the index.
  for (const [name, query, index] of [
    ['done, unread, on a channel', { channelId: customChannel, complitedTask: true, unread: true }, /^chats_account_(done|unread)_activity_idx$/],
    ['needing a person, done, unassigned', { needsHuman: true, complitedTask: true, assignee: 'none' }, /^chats_account_needs_human_activity_idx$/],
    ['mine, unread, of a kind', { assignee: 'me', unread: true, channelName: 'telegram' }, /^chats_account_(assignee|unread)_activity_idx$/],
  ] as [string, InboxQuery, RegExp][]) {
    test(`Inbox page, ${name}: an index-only scan of a partial index, its filters in the index`, async () => {
      const { filter, page } = await inboxArguments(query);
      const scan = pageScan(await planOf(listStatement(filter, page)));
      assert.match(scan['Index Name'] ?? '', index);
      assert.equal(scan['Node Type'], 'Index Only Scan');
    });
  }
  for (const generic of [false, true]) {
    test(`Inbox page, a tag and needing a person: read from the few chats needing one, the tag probed per chat${generic ? ' (generic plan)' : ''}`, async () => {
      const { filter, page } = await inboxArguments({ tag: 'vip', needsHuman: true });
      const plan = await planOf(listStatement({ ...filter, drive: 'chats' }, page), { generic });
      assert.equal(pageScan(plan)['Index Name'], 'chats_account_needs_human_activity_idx');
      const probes = allNodes(plan).filter((node) => node['Relation Name'] === 'chat_tags');
      assert.ok(probes.length > 0 && probes.every((node) => /^(chat_tags_tag_id_chat_id_pk|chat_tags_chat_id_idx)$/.test(node['Index Name'] ?? '')));
    });
  }
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

  // The Inbox's list (issue #41): its filters alone and with tags, pages and exact counts (one tag: exact; several: the
  // page exact, the count between the chats having all tags and those having any, as the public list's).
  const inboxCases: [string, InboxQuery][] = [
    ['unassigned', { limit: 50, assignee: 'none' }],
    ['mine', { limit: 50, assignee: 'me' }],
    ['unread', { limit: 50, unread: true }],
    ['unread, unassigned, done, on a channel', { limit: 50, unread: true, assignee: 'none', complitedTask: true, channelId: customChannel }],
    ['needing a person, deep', { limit: 20, needsHuman: true, offset: 60 }],
    ['a tag, unassigned', { limit: 50, tag: 'vip', assignee: 'none' }],
    ['a tag, mine, unread', { limit: 50, tag: 'common', assignee: 'me', unread: true }],
    ['a rare tag, unread (a partial page)', { limit: 50, tag: 'rare', unread: true }],
    ['a tag, needing a person', { limit: 50, tag: 'vip', needsHuman: true }],
    ['a tag, a channel kind, open, unread', { limit: 50, tag: 'vip', channelName: 'telegram', complitedTask: false, unread: true }],
    ['a tag, past the end', { limit: 50, tag: 'vip', assignee: 'me', offset: 5_000 }],
  ];
  for (const [name, query] of inboxCases) {
    test(`Inbox, ${name}: the page and the exact count`, async () => {
      const res = await t.console<ListBody>(token, 'GET', '/chat/all-chats/', { query: asParams(query) });
      assert.equal(res.status, 200, res.text);
      const want = await expected(query);
      assert.deepEqual(res.body.chats.map((chat) => chat.id), want.ids);
      assert.equal(res.body.count, want.count);
    });
  }
  test('Inbox, two tags, unassigned and unread: the exact page; a count between all and any', async () => {
    const query: InboxQuery = { limit: 50, tag: 'common,vip', assignee: 'none', unread: true };
    const res = await t.console<ListBody>(token, 'GET', '/chat/all-chats/', { query: asParams(query) });
    assert.equal(res.status, 200, res.text);
    const want = await expected(query);
    assert.deepEqual(res.body.chats.map((chat) => chat.id), want.ids);
    assert.ok(res.body.count >= want.count && res.body.count <= want.union, `${res.body.count} in [${want.count}, ${want.union}]`);
  });

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
  const [inboxDrift] = await queryRows<{ inbox: number; tagged: number; copied: number }>(
    db,
    sql`WITH inbox AS (
      SELECT account_id, channel_id, channel_kind, assignee_id, task_done, unread, needs_human, sum(chats) AS chats
      FROM chat_inbox_counts GROUP BY 1, 2, 3, 4, 5, 6, 7 HAVING sum(chats) <> 0),
    actual AS (
      SELECT account_id, channel_id, channel_kind, coalesce(assignee_id, '00000000-0000-0000-0000-000000000000') AS assignee_id, task_done,
             unread_count > 0 OR custom_unread AS unread, needs_human, count(*) AS chats
      FROM chats GROUP BY 1, 2, 3, 4, 5, 6, 7),
    tagged AS (
      SELECT tag_id, channel_id, channel_kind, assignee_id, task_done, unread, needs_human, sum(chats) AS chats
      FROM chat_tag_counts GROUP BY 1, 2, 3, 4, 5, 6, 7 HAVING sum(chats) <> 0),
    actual_tagged AS (
      SELECT ct.tag_id, c.channel_id, c.channel_kind, coalesce(c.assignee_id, '00000000-0000-0000-0000-000000000000') AS assignee_id, c.task_done,
             c.unread_count > 0 OR c.custom_unread AS unread, c.needs_human, count(*) AS chats
      FROM chat_tags ct JOIN chats c ON c.id = ct.chat_id GROUP BY 1, 2, 3, 4, 5, 6, 7)
    SELECT
      (SELECT count(*)::int FROM ((SELECT * FROM inbox EXCEPT SELECT * FROM actual) UNION ALL (SELECT * FROM actual EXCEPT SELECT * FROM inbox)) d) AS inbox,
      (SELECT count(*)::int FROM ((SELECT * FROM tagged EXCEPT SELECT * FROM actual_tagged) UNION ALL (SELECT * FROM actual_tagged EXCEPT SELECT * FROM tagged)) d) AS tagged,
      (SELECT count(*)::int FROM chat_tags ct JOIN chats c ON c.id = ct.chat_id
       WHERE (ct.channel_id, ct.channel_kind, ct.assignee_id, ct.task_done, ct.unread, ct.needs_human)
             IS DISTINCT FROM (c.channel_id, c.channel_kind, c.assignee_id, c.task_done, c.unread_count > 0 OR c.custom_unread, c.needs_human)) AS copied`,
  );
  assert.deepEqual(inboxDrift, { inbox: 0, tagged: 0, copied: 0 }, 'the Inbox counters and the columns chat_tags copies');
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

    // The Inbox's columns change too (issue #41): assignment and read state; the counters and chat_tags' copies follow.
    assert.equal((await t.console(user.token, 'POST', `/chat/assign/${a1}/`, { body: { memberId: user.accountId } })).status, 200);
    assert.equal((await t.console(user.token, 'POST', `/chat/read/${a1}/`)).status, 200);
    assert.equal((await t.console(user.token, 'POST', `/chat/unread/${a3}/`)).status, 200);
    await assertCopiesExact();

    const removed = await t.console(user.token, 'DELETE', `/channel/custom/${b}/`);
    assert.equal(removed.status, 200, removed.text);
    assert.deepEqual([await countOf({}), await countOf({ channelId: b }), await countOf({ tag: 'x' })], [3, 0, 2]);
    const removeTag = await t.request('DELETE', '/api/v1/chats/chat/tags/remove', { headers: { authorization: user.key }, query: { tag: 'y' } });
    assert.equal(removeTag.status, 200);
    assert.deepEqual((await list({ tag: 'y' }, user.key)).body, { chats: [], count: 0 });
    await assertCopiesExact();
  });
});
