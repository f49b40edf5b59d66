// The five tag endpoints of the public API (spec, Tags): bodies, transitions, errors, concurrency and isolation.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { randomUUID } from 'node:crypto';
import { tagRoutes, SCOPES, type RouteContract } from '@parley/contracts';
import { and, count, eq } from 'drizzle-orm';
import { chatTags, tags } from '../src/db/schema.ts';
import { seedChat } from './support/fixtures.ts';
import { startTestApp, type TestApp, type TestResponse } from './support/harness.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

interface Tag {
  id: string;
  name: string;
  chatsWithTags: string[];
}
interface ListedChat {
  id: string;
  userTags: { tags: { id: string; name: string } }[];
}

const TAG_ALREADY_EXIST = { message: 'Tag already exist', statusCode: 400 };
const CHAT_NOT_FOUND = { message: 'Chat not found', statusCode: 400 };
const TAG_NOT_FOUND = { message: 'Tag not found', statusCode: 400 };

function call<T>(key: string, method: string, path: string, query: Record<string, string> = {}): Promise<TestResponse<T>> {
  return t.request<T>(method, `/api/v1${path}`, { headers: { authorization: key }, query });
}
const listTags = (key: string, query: Record<string, string> = {}) =>
  call<{ tags: Tag[] }>(key, 'GET', '/chats/chat/tags', query);
const createTag = (key: string, tag: string) => call(key, 'GET', '/chats/chat/tags/create', { tag });
const tagChat = (key: string, id: string, tag: string) =>
  call<{ id: string; success: true }>(key, 'GET', '/chats/chat/tags/tag-chat', { id, tag });
const removeFromChat = (key: string, id: string, tag: string) =>
  call<{ id: string; success: true }>(key, 'DELETE', '/chats/chat/tags/remove-from-chat', { id, tag });
const removeTag = (key: string, tag: string) => call(key, 'DELETE', '/chats/chat/tags/remove', { tag });
const listChats = (key: string, query: Record<string, string> = {}) =>
  call<{ chats: ListedChat[]; count: number }>(key, 'GET', '/chats/chat', query);

/** A fresh account (all scopes) with `chats` seeded chats. */
async function account(chats = 0) {
  const { accountId, key } = await t.createAccount();
  const ids: string[] = [];
  for (let i = 0; i < chats; i += 1) ids.push((await seedChat(t.database.db, accountId)).id);
  return { accountId, key, chats: ids };
}

/** The listed tags of the account by name (limit 1000: all of them in these tests). */
async function tagsByName(key: string): Promise<Map<string, Tag>> {
  const res = await listTags(key, { limit: '1000' });
  assert.equal(res.status, 200);
  return new Map(res.body.tags.map((tag) => [tag.name, tag]));
}

async function userTagsOf(key: string, chatId: string) {
  const res = await listChats(key);
  assert.equal(res.status, 200);
  const chat = res.body.chats.find((c) => c.id === chatId);
  assert.ok(chat, `chat ${chatId} listed`);
  return chat.userTags;
}

async function tagRowCount(accountId: string, name?: string): Promise<number> {
  const where = name === undefined ? eq(tags.accountId, accountId) : and(eq(tags.accountId, accountId), eq(tags.name, name));
  const [row] = await t.database.db.select({ n: count() }).from(tags).where(where);
  return row?.n ?? 0;
}

async function attachmentCount(tagId: string): Promise<number> {
  const [row] = await t.database.db.select({ n: count() }).from(chatTags).where(eq(chatTags.tagId, tagId));
  return row?.n ?? 0;
}

const sorted = (ids: string[]) => [...ids].sort();

describe('GET /chats/chat/tags', () => {
  test('an account without tags: 200 { tags: [] }', async () => {
    const { key } = await account();
    const res = await listTags(key);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { tags: [] });
  });

  test('most used first; ties by name (code-point order, case-sensitive); chatsWithTags in chat id order', async () => {
    const { key, chats } = await account(3);
    const [c1, c2, c3] = chats as [string, string, string];
    for (const chat of [c3, c1, c2]) assert.equal((await tagChat(key, chat, 'z')).status, 200);
    assert.equal((await tagChat(key, c2, 'b')).status, 200);
    assert.equal((await tagChat(key, c1, 'a')).status, 200);
    assert.equal((await tagChat(key, c3, 'B')).status, 200);
    assert.equal((await tagChat(key, c1, 'y')).status, 200);
    assert.equal((await tagChat(key, c3, 'y')).status, 200);
    assert.equal((await createTag(key, 'unused')).status, 200);

    const byName = await tagsByName(key);
    const id = (name: string) => byName.get(name)?.id;
    const res = await listTags(key);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      tags: [
        { id: id('z'), name: 'z', chatsWithTags: sorted([c1, c2, c3]) },
        { id: id('y'), name: 'y', chatsWithTags: sorted([c1, c3]) },
        { id: id('B'), name: 'B', chatsWithTags: [c3] },
        { id: id('a'), name: 'a', chatsWithTags: [c1] },
        { id: id('b'), name: 'b', chatsWithTags: [c2] },
        { id: id('unused'), name: 'unused', chatsWithTags: [] },
      ],
    });
  });

  test('limit and offset page through the same order', async () => {
    const { key, chats } = await account(4);
    // t1 on 4 chats, t2 on 3, … t4 on 1, t5 on none: the order is t1…t5.
    for (let n = 1; n <= 4; n += 1) {
      for (const chat of chats.slice(0, 5 - n)) assert.equal((await tagChat(key, chat, `t${n}`)).status, 200);
    }
    assert.equal((await createTag(key, 't5')).status, 200);
    const names = async (query: Record<string, string>) => {
      const res = await listTags(key, query);
      assert.equal(res.status, 200);
      return res.body.tags.map((tag) => tag.name);
    };
    assert.deepEqual(await names({}), ['t1', 't2', 't3', 't4', 't5']);
    assert.deepEqual(await names({ limit: '2' }), ['t1', 't2']);
    assert.deepEqual(await names({ limit: '2', offset: '1' }), ['t2', 't3']);
    assert.deepEqual(await names({ offset: '3' }), ['t4', 't5']);
    assert.deepEqual(await names({ limit: '1000', offset: '4' }), ['t5']);
    assert.deepEqual(await names({ offset: '5' }), []);
  });

  test('the default limit is 50 and the default offset 0', async () => {
    const { key } = await account();
    const all = Array.from({ length: 55 }, (_, i) => `tag-${String(i).padStart(2, '0')}`);
    for (const name of all) assert.equal((await createTag(key, name)).status, 200);
    const first = await listTags(key);
    assert.equal(first.status, 200);
    assert.deepEqual(
      first.body.tags.map((tag) => tag.name),
      all.slice(0, 50),
    );
    const rest = await listTags(key, { offset: '50' });
    assert.deepEqual(
      rest.body.tags.map((tag) => tag.name),
      all.slice(50),
    );
  });

  test('limit outside 1–1000, a negative offset or a non-integer: 400 with the problem', async () => {
    const { key } = await account();
    assert.deepEqual((await listTags(key, { limit: '0' })).body, { message: ['limit must be >= 1'], statusCode: 400 });
    assert.deepEqual((await listTags(key, { limit: '1001' })).body, {
      message: ['limit must be <= 1000'],
      statusCode: 400,
    });
    assert.deepEqual((await listTags(key, { offset: '-1' })).body, { message: ['offset must be >= 0'], statusCode: 400 });
    const notInteger = await listTags(key, { limit: 'ten' });
    assert.equal(notInteger.status, 400);
    assert.equal((notInteger.body as unknown as { statusCode: number }).statusCode, 400);
    assert.equal((await listTags(key, { limit: '1000' })).status, 200);
  });
});

describe('GET /chats/chat/tags/create', () => {
  test('creates a tag attached to no chat: 200 { tag, success: true }', async () => {
    const { key } = await account();
    const res = await createTag(key, 'vip');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { tag: 'vip', success: true });
    const listed = await listTags(key);
    assert.equal(listed.body.tags.length, 1);
    const [tag] = listed.body.tags;
    assert.equal(tag?.name, 'vip');
    assert.deepEqual(tag?.chatsWithTags, []);
    assert.match(tag?.id ?? '', /^[0-9a-f-]{36}$/);
  });

  test('an existing tag: 400 Tag already exist, and still one tag', async () => {
    const { key, accountId } = await account();
    assert.equal((await createTag(key, 'vip')).status, 200);
    const res = await createTag(key, 'vip');
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, TAG_ALREADY_EXIST);
    assert.equal(await tagRowCount(accountId), 1);
  });

  test('names are exact: case-sensitive and untrimmed', async () => {
    const { key } = await account();
    for (const name of ['vip', 'VIP', ' vip', 'vip ']) {
      const res = await createTag(key, name);
      assert.equal(res.status, 200, JSON.stringify(name));
      assert.deepEqual(res.body, { tag: name, success: true });
    }
    assert.deepEqual(sorted([...(await tagsByName(key)).keys()]), sorted(['vip', 'VIP', ' vip', 'vip ']));
  });

  test('tag missing, empty or over 100 characters: 400', async () => {
    const { key } = await account();
    const missing = await call(key, 'GET', '/chats/chat/tags/create');
    assert.deepEqual(missing.body, { message: ['tag is required'], statusCode: 400 });
    assert.equal((await createTag(key, '')).status, 400);
    assert.equal((await createTag(key, 'x'.repeat(101))).status, 400);
    assert.equal((await createTag(key, 'x'.repeat(100))).status, 200);
  });
});

describe('GET /chats/chat/tags/tag-chat', () => {
  test('a tag missing in the account is created, then attached: 200 { id: <tag id>, success: true }', async () => {
    const { key, accountId, chats } = await account(1);
    const [chat] = chats as [string];
    const res = await tagChat(key, chat, 'lead');
    assert.equal(res.status, 200);
    const tag = (await tagsByName(key)).get('lead');
    assert.ok(tag);
    assert.deepEqual(res.body, { id: tag.id, success: true });
    assert.deepEqual(tag.chatsWithTags, [chat]);
    assert.equal(await tagRowCount(accountId), 1);
    assert.deepEqual(await userTagsOf(key, chat), [{ tags: { id: tag.id, name: 'lead' } }]);
  });

  test('an existing tag is attached, not created again', async () => {
    const { key, accountId, chats } = await account(2);
    const [c1, c2] = chats as [string, string];
    assert.equal((await createTag(key, 'lead')).status, 200);
    const created = (await tagsByName(key)).get('lead');
    assert.ok(created);
    assert.deepEqual((await tagChat(key, c1, 'lead')).body, { id: created.id, success: true });
    assert.deepEqual((await tagChat(key, c2, 'lead')).body, { id: created.id, success: true });
    assert.equal(await tagRowCount(accountId), 1);
    assert.deepEqual((await tagsByName(key)).get('lead')?.chatsWithTags, sorted([c1, c2]));
  });

  test('the chat already has the tag: 400 Tag already exist, and one attachment', async () => {
    const { key, chats } = await account(1);
    const [chat] = chats as [string];
    const first = await tagChat(key, chat, 'lead');
    assert.equal(first.status, 200);
    const again = await tagChat(key, chat, 'lead');
    assert.equal(again.status, 400);
    assert.deepEqual(again.body, TAG_ALREADY_EXIST);
    assert.equal(await attachmentCount(first.body.id), 1);
  });

  test('a chat can carry several tags; userTags lists them by name', async () => {
    const { key, chats } = await account(1);
    const [chat] = chats as [string];
    const b = await tagChat(key, chat, 'b');
    const a = await tagChat(key, chat, 'a');
    assert.deepEqual(await userTagsOf(key, chat), [
      { tags: { id: a.body.id, name: 'a' } },
      { tags: { id: b.body.id, name: 'b' } },
    ]);
  });

  test('an unknown chat (a random UUID or not a UUID): 400 Chat not found, and no tag is created', async () => {
    const { key, accountId } = await account(1);
    for (const id of [randomUUID(), 'not-a-uuid', '12345', `${randomUUID()}x`, "'; drop table tags; --"]) {
      const res = await tagChat(key, id, 'lead');
      assert.equal(res.status, 400, id);
      assert.deepEqual(res.body, CHAT_NOT_FOUND, id);
    }
    assert.equal(await tagRowCount(accountId), 0);
  });

  test('the chat id is a UUID: its hex case does not matter', async () => {
    const { key, chats } = await account(1);
    const [chat] = chats as [string];
    assert.equal((await tagChat(key, chat.toUpperCase(), 'lead')).status, 200);
    assert.deepEqual((await tagsByName(key)).get('lead')?.chatsWithTags, [chat]);
    assert.deepEqual((await tagChat(key, chat, 'lead')).body, TAG_ALREADY_EXIST);
  });

  test('id or tag missing: 400', async () => {
    const { key, chats } = await account(1);
    const [chat] = chats as [string];
    const noTag = await call(key, 'GET', '/chats/chat/tags/tag-chat', { id: chat });
    assert.deepEqual(noTag.body, { message: ['tag is required'], statusCode: 400 });
    const noId = await call(key, 'GET', '/chats/chat/tags/tag-chat', { tag: 'x' });
    assert.deepEqual(noId.body, { message: ['id is required'], statusCode: 400 });
  });
});

describe('DELETE /chats/chat/tags/remove-from-chat', () => {
  test('detaches the tag: 200 { id: <tag id>, success: true }; the tag stays, listed with no chats', async () => {
    const { key, chats } = await account(1);
    const [chat] = chats as [string];
    const tagged = await tagChat(key, chat, 'lead');
    const res = await removeFromChat(key, chat, 'lead');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { id: tagged.body.id, success: true });
    assert.deepEqual((await listTags(key)).body, { tags: [{ id: tagged.body.id, name: 'lead', chatsWithTags: [] }] });
    assert.deepEqual(await userTagsOf(key, chat), []);
  });

  test('other chats keep the tag', async () => {
    const { key, chats } = await account(2);
    const [c1, c2] = chats as [string, string];
    await tagChat(key, c1, 'lead');
    await tagChat(key, c2, 'lead');
    assert.equal((await removeFromChat(key, c1, 'lead')).status, 200);
    assert.deepEqual((await tagsByName(key)).get('lead')?.chatsWithTags, [c2]);
  });

  test('a chat without the tag (the tag exists in the account): 400 Tag not found', async () => {
    const { key, chats } = await account(2);
    const [c1, c2] = chats as [string, string];
    await tagChat(key, c1, 'lead');
    const res = await removeFromChat(key, c2, 'lead');
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, TAG_NOT_FOUND);
    assert.equal((await removeFromChat(key, c1, 'lead')).status, 200);
    assert.deepEqual((await removeFromChat(key, c1, 'lead')).body, TAG_NOT_FOUND);
  });

  test('an unknown tag: 400 Tag not found (names are exact)', async () => {
    const { key, chats } = await account(1);
    const [chat] = chats as [string];
    await tagChat(key, chat, 'lead');
    for (const name of ['nope', 'LEAD', ' lead']) {
      const res = await removeFromChat(key, chat, name);
      assert.equal(res.status, 400, name);
      assert.deepEqual(res.body, TAG_NOT_FOUND, name);
    }
    assert.deepEqual((await tagsByName(key)).get('lead')?.chatsWithTags, [chat]);
  });

  test('an unknown chat (a random UUID or not a UUID): 400 Chat not found, checked before the tag', async () => {
    const { key } = await account(1);
    await createTag(key, 'lead');
    for (const [id, tag] of [
      [randomUUID(), 'lead'],
      ['not-a-uuid', 'lead'],
      [randomUUID(), 'nope'],
    ] as const) {
      const res = await removeFromChat(key, id, tag);
      assert.equal(res.status, 400, id);
      assert.deepEqual(res.body, CHAT_NOT_FOUND, id);
    }
  });
});

describe('DELETE /chats/chat/tags/remove', () => {
  test('deletes the tag from the account and from every chat: 200 { tag, success: true }', async () => {
    const { key, accountId, chats } = await account(2);
    const [c1, c2] = chats as [string, string];
    const lead = await tagChat(key, c1, 'lead');
    await tagChat(key, c2, 'lead');
    const keep = await tagChat(key, c1, 'keep');
    const res = await removeTag(key, 'lead');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { tag: 'lead', success: true });
    assert.deepEqual((await listTags(key)).body, { tags: [{ id: keep.body.id, name: 'keep', chatsWithTags: [c1] }] });
    assert.deepEqual(await userTagsOf(key, c1), [{ tags: { id: keep.body.id, name: 'keep' } }]);
    assert.deepEqual(await userTagsOf(key, c2), []);
    assert.equal(await tagRowCount(accountId, 'lead'), 0);
    assert.equal(await attachmentCount(lead.body.id), 0);
  });

  test('an unused tag is removed too', async () => {
    const { key } = await account();
    await createTag(key, 'unused');
    assert.deepEqual((await removeTag(key, 'unused')).body, { tag: 'unused', success: true });
    assert.deepEqual((await listTags(key)).body, { tags: [] });
  });

  test('an unknown tag, or one removed already: 400 Tag not found', async () => {
    const { key } = await account();
    assert.deepEqual((await removeTag(key, 'nope')).body, TAG_NOT_FOUND);
    await createTag(key, 'lead');
    assert.deepEqual((await removeTag(key, 'LEAD')).body, TAG_NOT_FOUND);
    assert.equal((await removeTag(key, 'lead')).status, 200);
    const again = await removeTag(key, 'lead');
    assert.equal(again.status, 400);
    assert.deepEqual(again.body, TAG_NOT_FOUND);
  });

  test('after a remove, create and tag-chat start a new tag (a new id)', async () => {
    const { key, chats } = await account(1);
    const [chat] = chats as [string];
    const before = await tagChat(key, chat, 'lead');
    await removeTag(key, 'lead');
    const after = await tagChat(key, chat, 'lead');
    assert.equal(after.status, 200);
    assert.notEqual(after.body.id, before.body.id);
    await removeTag(key, 'lead');
    assert.equal((await createTag(key, 'lead')).status, 200);
  });
});

describe('the chat list filter tag=a,b (chats having all of them)', () => {
  test('filters by one tag and by several', async () => {
    const { key, chats } = await account(4);
    const [both, onlyX, onlyY] = chats as [string, string, string, string];
    await tagChat(key, both, 'x');
    await tagChat(key, both, 'y');
    await tagChat(key, onlyX, 'x');
    await tagChat(key, onlyY, 'y');
    await createTag(key, 'unused');
    const ids = async (tag: string) => {
      const res = await listChats(key, { tag });
      assert.equal(res.status, 200, tag);
      assert.equal(res.body.count, res.body.chats.length, tag);
      return sorted(res.body.chats.map((chat) => chat.id));
    };
    assert.deepEqual(await ids('x'), sorted([both, onlyX]));
    assert.deepEqual(await ids('y'), sorted([both, onlyY]));
    assert.deepEqual(await ids('x,y'), [both]);
    assert.deepEqual(await ids('y,x'), [both]);
    assert.deepEqual(await ids('x,nope'), []);
    assert.deepEqual(await ids('unused'), []);
    assert.deepEqual(await ids('nope'), []);

    await removeFromChat(key, both, 'y');
    assert.deepEqual(await ids('x,y'), []);
    await removeTag(key, 'x');
    assert.deepEqual(await ids('x'), []);
    assert.deepEqual(await ids('y'), [onlyY]);
  });
});

describe('concurrency', () => {
  test('10 parallel tag-chat of one new tag on 10 chats: exactly one tag, on every chat', async () => {
    const { key, accountId, chats } = await account(10);
    const results = await Promise.all(chats.map((chat) => tagChat(key, chat, 'rush')));
    for (const res of results) assert.equal(res.status, 200, res.text);
    const ids = new Set(results.map((res) => res.body.id));
    assert.equal(ids.size, 1);
    assert.equal(await tagRowCount(accountId, 'rush'), 1);
    const [tagId] = [...ids] as [string];
    assert.equal(await attachmentCount(tagId), 10);
    assert.deepEqual((await listTags(key)).body, { tags: [{ id: tagId, name: 'rush', chatsWithTags: sorted(chats) }] });
  });

  test('5 parallel identical tag-chat on one chat: one 200, four Tag already exist', async () => {
    const { key, accountId, chats } = await account(1);
    const [chat] = chats as [string];
    const results = await Promise.all(Array.from({ length: 5 }, () => tagChat(key, chat, 'rush')));
    const ok = results.filter((res) => res.status === 200);
    const dup = results.filter((res) => res.status === 400);
    assert.equal(ok.length, 1, results.map((res) => res.text).join('\n'));
    assert.equal(dup.length, 4);
    for (const res of dup) assert.deepEqual(res.body, TAG_ALREADY_EXIST);
    assert.equal(await tagRowCount(accountId, 'rush'), 1);
    assert.equal(await attachmentCount(ok[0]?.body.id ?? ''), 1);
  });

  test('5 parallel create of one name: one 200, four Tag already exist', async () => {
    const { key, accountId } = await account();
    const results = await Promise.all(Array.from({ length: 5 }, () => createTag(key, 'rush')));
    assert.equal(results.filter((res) => res.status === 200).length, 1);
    for (const res of results.filter((r) => r.status !== 200)) assert.deepEqual(res.body, TAG_ALREADY_EXIST);
    assert.equal(await tagRowCount(accountId, 'rush'), 1);
  });

  test('tag-chat racing remove of the same tag never fails with a server error', async () => {
    const { key, chats } = await account(1);
    const [chat] = chats as [string];
    for (let round = 0; round < 10; round += 1) {
      const [tagged, removed] = await Promise.all([tagChat(key, chat, 'race'), removeTag(key, 'race')]);
      assert.ok(tagged.status === 200 || tagged.text === JSON.stringify(TAG_ALREADY_EXIST), tagged.text);
      assert.ok(removed.status === 200 || removed.text === JSON.stringify(TAG_NOT_FOUND), removed.text);
    }
    const left = (await tagsByName(key)).get('race');
    if (left) assert.deepEqual(left.chatsWithTags, [chat]);
  });
});

describe('isolation between accounts', () => {
  test("another account's tags and chats do not exist for a key", async () => {
    const a = await account(1);
    const [chatA] = a.chats as [string];
    await tagChat(a.key, chatA, 'shared');
    await createTag(a.key, 'only-a');
    const before = await listTags(a.key);

    const b = await account(1);
    const [chatB] = b.chats as [string];
    assert.deepEqual((await listTags(b.key)).body, { tags: [] });
    assert.deepEqual((await tagChat(b.key, chatA, 'shared')).body, CHAT_NOT_FOUND);
    assert.deepEqual((await tagChat(b.key, chatA, 'new')).body, CHAT_NOT_FOUND);
    assert.deepEqual((await removeFromChat(b.key, chatA, 'shared')).body, CHAT_NOT_FOUND);
    assert.deepEqual((await removeTag(b.key, 'only-a')).body, TAG_NOT_FOUND);
    assert.deepEqual((await removeTag(b.key, 'shared')).body, TAG_NOT_FOUND);
    assert.deepEqual((await removeFromChat(b.key, chatB, 'shared')).body, TAG_NOT_FOUND);
    assert.deepEqual((await listChats(b.key, { tag: 'shared' })).body, { chats: [], count: 0 });

    // The same names are free in the other account, with their own ids.
    assert.deepEqual((await createTag(b.key, 'only-a')).body, { tag: 'only-a', success: true });
    const bShared = await tagChat(b.key, chatB, 'shared');
    assert.equal(bShared.status, 200);
    assert.notEqual(bShared.body.id, (await tagsByName(a.key)).get('shared')?.id);
    assert.equal((await removeTag(b.key, 'shared')).status, 200);

    assert.deepEqual((await listTags(a.key)).body, before.body);
    assert.deepEqual(
      (await listChats(a.key, { tag: 'shared' })).body.chats.map((chat) => chat.id),
      [chatA],
    );
  });
});

describe('gateway rules on the tag routes', () => {
  const routes = Object.values(tagRoutes as Record<string, RouteContract>);

  test('a key without the tags scope: 403 Forbidden scoupe/recources on every tag route', async () => {
    const { key } = await t.createAccount({ scopes: SCOPES.filter((scope) => scope !== 'tags') });
    for (const route of routes) {
      const res = await t.request(route.method, `/api/v1${route.url}`, {
        headers: { authorization: key },
        query: { tag: 'x', id: randomUUID() },
      });
      assert.equal(res.status, 403, `${route.method} ${route.url}`);
      assert.deepEqual(res.body, { message: 'Forbidden scoupe/recources', code: 403 });
    }
  });

  test('a key with only the tags scope works', async () => {
    const { key } = await t.createAccount({ scopes: ['tags'] });
    assert.deepEqual((await createTag(key, 'x')).body, { tag: 'x', success: true });
    assert.equal((await listTags(key)).status, 200);
  });

  test('an unknown query parameter: 400 on every tag route', async () => {
    const { key, chats } = await account(1);
    const [chat] = chats as [string];
    // Otherwise valid calls, so the unknown parameter is the only reason to refuse them.
    const valid: Record<string, Record<string, string>> = {
      '/chats/chat/tags': {},
      '/chats/chat/tags/create': { tag: 'x' },
      '/chats/chat/tags/tag-chat': { id: chat, tag: 'x' },
      '/chats/chat/tags/remove-from-chat': { id: chat, tag: 'x' },
      '/chats/chat/tags/remove': { tag: 'x' },
    };
    for (const route of routes) {
      const res = await t.request(route.method, `/api/v1${route.url}`, {
        headers: { authorization: key },
        query: { ...valid[route.url], extra: '1' },
      });
      assert.equal(res.status, 400, `${route.method} ${route.url}`);
      const body = res.body as { message: string[]; statusCode: number };
      assert.equal(body.statusCode, 400);
      assert.ok(body.message.includes('property extra should not exist'), JSON.stringify(body));
    }
    assert.deepEqual((await listTags(key)).body, { tags: [] });
  });
});
