// The chat domain through the public API: send-message-universal (JSON), the chat list, read/unread,
// done/undone (background, events), ban/unban; exact statuses, bodies and events.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { eventsOf, eventually } from './support/events.ts';
import { startTestApp, type TestApp } from './support/harness.ts';

type Chat = Record<string, unknown> & { id: string; uniqueId: string; unreadCount: number; isTriggered: boolean };

let t: TestApp;
let key: string;
let token: string;
let channelId: string;
before(async () => {
  t = await startTestApp();
  const user = await t.createConsoleUser();
  ({ key, token } = user);
  const channel = await t.console<{ id: string }>(token, 'POST', '/channel/custom/connect/', {
    // The agent is off: these tests are about the chats themselves (agent-knowledge-base.test.ts has the agent).
    body: { name: 'API', settings: { role: 'Support', aiLang: 'en', isActive: false } },
  });
  channelId = channel.body.id;
});
after(() => t.close());

const send = (body: Record<string, unknown>, as = key) =>
  t.request('POST', '/api/v1/chats/chat/send-message-universal', { headers: { authorization: as }, body });
const message = (externalChatId: string, extra: Record<string, unknown> = {}) => ({
  channel: 'custom',
  channelId,
  externalChatId,
  role: 'user',
  text: 'Hello there',
  ...extra,
});
async function chatOf(externalChatId: string, as = key): Promise<Chat | undefined> {
  const list = await t.api<{ chats: Chat[] }>(as, '/chats/chat', { channelId, limit: '1000' });
  return list.body.chats.find((c) => c.chatId === externalChatId);
}
const countMessages = async (chatId: string) =>
  (await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from messages where chat_id = ${chatId}`))[0]?.n;

describe('send-message-universal', () => {
  test('a customer message creates the chat and a new_messages event; 201 with an empty body', async () => {
    const res = await send(message('ext-1', { senderName: 'Ada', messageId: 'm-1' }));
    assert.equal(res.status, 201);
    assert.equal(res.text, '');
    const chat = await chatOf('ext-1');
    assert.ok(chat);
    assert.deepEqual(
      { ...chat, id: undefined, createdAt: undefined, updatedAt: undefined, lastMessageDate: undefined },
      {
        id: undefined,
        uniqueId: `${channelId}:ext-1`,
        channelName: 'custom',
        channelId,
        channelSettingsName: 'API',
        chatId: 'ext-1',
        dialogName: 'Ada',
        text: 'Hello there',
        lastMessageDate: undefined,
        unreadCount: 1,
        customUnread: false,
        isTriggered: false,
        paused: false,
        isGroup: false,
        email: null,
        photo_100: null,
        userTags: [],
        createdAt: undefined,
        updatedAt: undefined,
      },
    );
    const events = (await eventsOf(t.database.db, channelId)).filter((e) => e.chat_id === chat.id);
    assert.equal(events.length, 1);
    const payload = events[0]?.payload as Record<string, unknown> & { messages: Record<string, unknown>[] };
    assert.equal(payload.event, 'new_messages');
    assert.deepEqual(payload.chat, { id: chat.id, name: 'Ada', uniqueId: `${channelId}:ext-1`, externalChatId: 'ext-1', channelName: 'custom' });
    assert.deepEqual(Object.keys(payload).sort(), ['chat', 'event', 'messages', 'settings', 'timestamp']);
    assert.equal(payload.messages.length, 1);
    assert.deepEqual({ ...payload.messages[0], id: undefined, createdAt: undefined }, {
      id: undefined,
      role: 'user',
      senderName: 'Ada',
      text: 'Hello there',
      attachments: [],
      createdAt: undefined,
    });
    assert.deepEqual(payload.settings, { behavior: '', role: 'Support', task: '', greeting: '', isActive: false, aiLang: 'en' });
  });

  test('defaults: sender "Unknown visitor"; later messages raise unreadCount and become the chat text', async () => {
    await send(message('ext-2'));
    await send(message('ext-2', { text: 'Second' }));
    const chat = await chatOf('ext-2');
    assert.equal(chat?.dialogName, 'Unknown visitor');
    assert.equal(chat?.unreadCount, 2);
    assert.equal(chat?.text, 'Second');
  });

  test('role assistant: kept in the history, no event, not unread', async () => {
    await send(message('ext-3'));
    const chat = await chatOf('ext-3');
    const before = (await eventsOf(t.database.db, channelId)).length;
    assert.equal((await send(message('ext-3', { role: 'assistant', text: 'Team says hi', senderName: 'Bob' }))).status, 201);
    assert.equal((await eventsOf(t.database.db, channelId)).length, before);
    assert.equal(await countMessages(chat?.id ?? ''), 2);
    const after = await chatOf('ext-3');
    assert.equal(after?.unreadCount, 1);
    assert.equal(after?.dialogName, 'Unknown visitor', 'a team sender does not rename the chat');
  });

  test('an unknown or foreign channelId: 201 and nothing stored', async () => {
    const other = await t.createConsoleUser();
    const foreign = await t.console<{ id: string }>(other.token, 'POST', '/channel/custom/connect/', { body: { name: 'Theirs' } });
    const chatsBefore = (await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from chats`))[0]?.n;
    assert.equal((await send({ ...message('ghost'), channelId: 'cc:does-not-exist' })).status, 201);
    assert.equal((await send({ ...message('ghost'), channelId: foreign.body.id })).status, 201);
    const chatsAfter = (await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from chats`))[0]?.n;
    assert.equal(chatsAfter, chatsBefore);
  });

  test('a repeated messageId is ignored, also under concurrent identical requests', async () => {
    await send(message('ext-dup', { messageId: 'same' }));
    assert.equal((await send(message('ext-dup', { messageId: 'same', text: 'again' }))).status, 201);
    const results = await Promise.all(Array.from({ length: 10 }, () => send(message('ext-race', { messageId: 'race-1' }))));
    assert.deepEqual(results.map((r) => r.status), Array(10).fill(201));
    const dup = await chatOf('ext-dup');
    const race = await chatOf('ext-race');
    assert.equal(await countMessages(dup?.id ?? ''), 1);
    assert.equal(await countMessages(race?.id ?? ''), 1);
    const events = await eventsOf(t.database.db, channelId);
    assert.equal(events.filter((e) => e.chat_id === race?.id).length, 1);
    assert.equal(dup?.text, 'Hello there');
    // The same messageId in another chat is another message.
    await send(message('ext-dup-2', { messageId: 'same' }));
    assert.equal(await countMessages((await chatOf('ext-dup-2'))?.id ?? ''), 1);
  });

  test('bad bodies: 400 with what is wrong, nothing stored', async () => {
    const cases: [Record<string, unknown>, string[]][] = [
      [{ ...message('bad'), uniqueId: 'x' }, ['property uniqueId should not exist']],
      [{ ...message('bad'), role: 'system' }, ['role must be one of: user, assistant']],
      [{ ...message('bad'), channel: 'widget' }, ['channel must be one of: custom']],
      [{ ...message('bad'), channelId: 'abcdef' }, ['channelId must match pattern "^cc:"']],
      [{ ...message('bad'), text: 5 }, ['text must be string']],
      [{ ...message('bad'), text: 'x'.repeat(10_001) }, ['text must NOT have more than 10000 characters']],
      [{ channel: 'custom', channelId, externalChatId: 'bad', role: 'user' }, ['text is required']],
      [{ ...message('bad'), externalChatId: '' }, ['externalChatId must NOT have fewer than 1 characters']],
    ];
    for (const [body, messages] of cases) {
      const res = await send(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.deepEqual(res.body, { message: messages, statusCode: 400 });
    }
    assert.equal(await chatOf('bad'), undefined);
  });
});

describe('chat list', () => {
  test('newest activity first, limit/offset, count; filters channelName, channelId, complitedTask', async () => {
    const user = await t.createConsoleUser();
    // Agent off: its replies would move the chats' activity while the order is checked.
    const off = { settings: { isActive: false } };
    const a = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', { body: { name: 'A', ...off } });
    const b = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', { body: { name: 'B', ...off } });
    for (const [channel, ext] of [[a.body.id, 'a1'], [b.body.id, 'b1'], [a.body.id, 'a2']] as const) {
      await send({ channel: 'custom', channelId: channel, externalChatId: ext, role: 'user', text: ext }, user.key);
    }
    const all = await t.api<{ chats: Chat[]; count: number }>(user.key, '/chats/chat');
    assert.deepEqual(all.body.chats.map((c) => c.chatId), ['a2', 'b1', 'a1']);
    assert.equal(all.body.count, 3);
    const page = await t.api<{ chats: Chat[]; count: number }>(user.key, '/chats/chat', { limit: '1', offset: '1' });
    assert.deepEqual(page.body.chats.map((c) => c.chatId), ['b1']);
    assert.equal(page.body.count, 3);
    const onlyB = await t.api<{ chats: Chat[]; count: number }>(user.key, '/chats/chat', { channelId: b.body.id });
    assert.deepEqual([onlyB.body.chats.map((c) => c.chatId), onlyB.body.count], [['b1'], 1]);
    const widgets = await t.api<{ chats: Chat[]; count: number }>(user.key, '/chats/chat', { channelName: 'widget' });
    assert.deepEqual(widgets.body, { chats: [], count: 0 });
    const a1 = all.body.chats.find((c) => c.chatId === 'a1');
    await t.api(user.key, '/chats/chat/done', { id: a1?.id ?? '' });
    await eventually(async () => (await t.api<{ count: number }>(user.key, '/chats/chat', { complitedTask: 'true' })).body.count === 1);
    const done = await t.api<{ chats: Chat[] }>(user.key, '/chats/chat', { complitedTask: 'true' });
    assert.deepEqual(done.body.chats.map((c) => c.chatId), ['a1']);
    const notDone = await t.api<{ chats: Chat[] }>(user.key, '/chats/chat', { complitedTask: 'false' });
    assert.deepEqual(notDone.body.chats.map((c) => c.chatId), ['a2', 'b1']);
  });
});

describe('read and unread', () => {
  test('read clears unreadCount and customUnread; unread flags the chat', async () => {
    await send(message('ext-read'));
    const chat = await chatOf('ext-read');
    const unread = await t.api(key, '/chats/chat/unread', { id: chat?.id ?? '' });
    assert.equal(unread.status, 200);
    assert.deepEqual(unread.body, { id: chat?.id, success: true });
    assert.equal((await chatOf('ext-read'))?.customUnread, true);
    const read = await t.api(key, '/chats/chat/read', { id: chat?.id ?? '' });
    assert.deepEqual([read.status, read.body], [200, { id: chat?.id, success: true }]);
    const after = await chatOf('ext-read');
    assert.deepEqual([after?.unreadCount, after?.customUnread], [0, false]);
  });

  test('an unknown chat: 400 Chat not found, for a random UUID and for any other text', async () => {
    for (const path of ['read', 'unread', 'done', 'undone']) {
      for (const id of ['01900000-0000-7000-8000-000000000000', 'not-a-chat']) {
        const res = await t.api(key, `/chats/chat/${path}`, { id });
        assert.equal(res.status, 400);
        assert.deepEqual(res.body, { message: 'Chat not found', statusCode: 400 });
      }
    }
  });
});

describe('task status: done and undone', () => {
  test('202 at once; applied in background with one dialog_status_changed (source api); no-ops emit nothing', async () => {
    await send(message('ext-task'));
    const chat = await chatOf('ext-task');
    const id = chat?.id ?? '';
    const statusEvents = async () =>
      (await eventsOf(t.database.db, channelId)).filter((e) => e.chat_id === id && e.kind === 'dialog_status_changed');

    const done = await t.api(key, '/chats/chat/done', { id });
    assert.deepEqual([done.status, done.body], [202, { id, success: true }]);
    await eventually(async () => (await chatOf('ext-task'))?.isTriggered);
    let events = await eventually(async () => ((await statusEvents()).length === 1 ? statusEvents() : undefined));
    const payload = events[0]?.payload as Record<string, unknown> & { status: Record<string, unknown> };
    assert.deepEqual(Object.keys(payload).sort(), ['chat', 'event', 'eventId', 'settings', 'status', 'timestamp']);
    assert.equal(payload.event, 'dialog_status_changed');
    assert.deepEqual({ ...payload.status, changedAt: undefined }, {
      type: 'task',
      previous: 'not_done',
      current: 'done',
      changedAt: undefined,
      source: { type: 'api', operatorEmail: null },
    });

    assert.equal((await t.api(key, '/chats/chat/done', { id })).status, 202);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await statusEvents()).length, 1, 'done on a done chat changes nothing');

    assert.equal((await t.api(key, '/chats/chat/undone', { id })).status, 202);
    events = await eventually(async () => ((await statusEvents()).length === 2 ? statusEvents() : undefined));
    const second = events[1]?.payload as { eventId: string; status: { previous: string; current: string } };
    assert.deepEqual([second.status.previous, second.status.current], ['done', 'not_done']);
    assert.notEqual(second.eventId, payload.eventId);
    assert.equal((await chatOf('ext-task'))?.isTriggered, false);
  });

  test('concurrent done commands change the status once and emit exactly one event', async () => {
    await send(message('ext-concurrent'));
    const id = (await chatOf('ext-concurrent'))?.id ?? '';
    const results = await Promise.all(Array.from({ length: 8 }, () => t.api(key, '/chats/chat/done', { id })));
    assert.deepEqual(results.map((r) => r.status), Array(8).fill(202));
    await eventually(async () => {
      const pending = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from jobs`);
      return pending[0]?.n === 0;
    });
    const events = (await eventsOf(t.database.db, channelId)).filter((e) => e.chat_id === id && e.kind === 'dialog_status_changed');
    assert.equal(events.length, 1);
  });

  test('503 when the command cannot be queued', async () => {
    await send(message('ext-503'));
    const id = (await chatOf('ext-503'))?.id ?? '';
    await t.database.db.execute(sql`alter table jobs rename to jobs_unavailable`);
    try {
      const res = await t.api(key, '/chats/chat/done', { id });
      assert.equal(res.status, 503);
      assert.deepEqual(res.body, { message: 'The command could not be queued; retry later', statusCode: 503 });
    } finally {
      await t.database.db.execute(sql`alter table jobs_unavailable rename to jobs`);
    }
    assert.equal((await chatOf('ext-503'))?.isTriggered, false);
  });
});

describe('ban and unban', () => {
  test('the transitions and their errors; a banned chat ignores new messages', async () => {
    await send(message('ext-ban'));
    const chat = await chatOf('ext-ban');
    const uniqueId = chat?.uniqueId ?? '';
    assert.deepEqual((await t.api(key, '/chats/chat/ban', { uniqueId })).body, { success: true });
    assert.deepEqual((await t.api(key, '/chats/chat/ban', { uniqueId })).body, { message: 'Chat already banned', statusCode: 400 });
    const eventsBefore = (await eventsOf(t.database.db, channelId)).length;
    assert.equal((await send(message('ext-ban', { text: 'let me in' }))).status, 201);
    assert.equal(await countMessages(chat?.id ?? ''), 1, 'not stored');
    assert.equal((await eventsOf(t.database.db, channelId)).length, eventsBefore, 'no event');
    assert.deepEqual((await t.api(key, '/chats/chat/unban', { uniqueId })).body, { success: true });
    assert.deepEqual((await t.api(key, '/chats/chat/unban', { uniqueId })).body, { message: 'Chat not banned', statusCode: 400 });
    await send(message('ext-ban', { text: 'back' }));
    assert.equal(await countMessages(chat?.id ?? ''), 2);
    for (const path of ['ban', 'unban']) {
      assert.deepEqual((await t.api(key, `/chats/chat/${path}`, { uniqueId: 'cc:x:nobody' })).body, {
        message: 'Chat not found',
        statusCode: 400,
      });
    }
  });
});

describe('isolation', () => {
  test("another account's chats do not exist for a key", async () => {
    await send(message('ext-mine'));
    const chat = await chatOf('ext-mine');
    const intruder = await t.createAccount();
    assert.deepEqual((await t.api(intruder.key, '/chats/chat')).body, { chats: [], count: 0 });
    for (const path of ['read', 'unread', 'done', 'undone']) {
      assert.deepEqual((await t.api(intruder.key, `/chats/chat/${path}`, { id: chat?.id ?? '' })).body, {
        message: 'Chat not found',
        statusCode: 400,
      });
    }
    for (const path of ['ban', 'unban']) {
      assert.equal((await t.api(intruder.key, `/chats/chat/${path}`, { uniqueId: chat?.uniqueId ?? '' })).status, 400);
    }
    const after = await chatOf('ext-mine');
    assert.deepEqual(after, chat);
  });
});

describe('ingest under concurrency (one statement per batch, group commit)', () => {
  test('concurrent messages to many chats and bursts into one chat: every message stored once, in order, with its event', async () => {
    const chatsCount = 40;
    const burst = 5;
    const sends: ReturnType<typeof send>[] = [];
    for (let i = 0; i < chatsCount; i += 1) sends.push(send(message(`group-${i}`, { text: `only message ${i}`, senderName: `Customer ${i}` })));
    for (let i = 0; i < burst; i += 1) sends.push(send(message('group-burst', { text: `burst ${i}`, messageId: `burst-${i}` })));
    const statuses = (await Promise.all(sends)).map((res) => res.status);
    assert.deepEqual(new Set(statuses), new Set([201]));
    // A repeated messageId beside new messages of other chats is ignored (rule 3).
    const repeats = await Promise.all([
      send(message('group-burst', { text: 'burst 0 again', messageId: 'burst-0' })),
      send(message('group-0', { text: 'only message 0 again' })),
    ]);
    assert.deepEqual(repeats.map((res) => res.status), [201, 201]);

    for (let i = 0; i < chatsCount; i += 1) {
      const chat = await chatOf(`group-${i}`);
      assert.ok(chat, `chat group-${i}`);
      assert.equal(chat.dialogName, `Customer ${i}`);
      assert.equal(chat.unreadCount, i === 0 ? 2 : 1);
      assert.equal(await countMessages(chat.id), i === 0 ? 2 : 1);
    }
    const burstChat = await chatOf('group-burst');
    assert.ok(burstChat);
    assert.equal(burstChat.unreadCount, burst);
    const texts = await queryRows<{ text: string }>(
      t.database.db,
      sql`select text from messages where chat_id = ${burstChat.id} order by created_at, id`,
    );
    // Requests on several connections may arrive in any order; the chat shows the last one stored.
    assert.deepEqual(texts.map((row) => row.text).sort(), [0, 1, 2, 3, 4].map((i) => `burst ${i}`));
    assert.equal(burstChat.text, texts.at(-1)?.text);
    const events = await queryRows<{ n: number }>(
      t.database.db,
      sql`select count(*)::int as n from events where chat_id = ${burstChat.id} and kind = 'new_messages'`,
    );
    assert.equal(events[0]?.n, burst);
    const counts = await queryRows<{ n: number }>(
      t.database.db,
      sql`select coalesce(sum(chats), 0)::int as n from chat_counts where channel_id = ${channelId}`,
    );
    const listed = await t.api<{ count: number }>(key, '/chats/chat', { channelId, limit: '1' });
    assert.equal(counts[0]?.n, listed.body.count);
  });
});

describe('ingest of a chat this process knows', () => {
  test('later messages update the chat without inserting it; a chat removed meanwhile is created again', async () => {
    assert.equal((await send(message('known-1', { text: 'first' }))).status, 201);
    assert.equal((await send(message('known-1', { text: 'second' }))).status, 201);
    const chat = await chatOf('known-1');
    assert.ok(chat);
    assert.equal(chat.unreadCount, 2);
    assert.equal(chat.text, 'second');
    // Removed beside the app (as a channel's deletion would): this process still remembers the chat.
    await t.database.db.execute(sql`delete from chats where id = ${chat.id}`);
    assert.equal((await send(message('known-1', { text: 'third' }))).status, 201);
    const again = await chatOf('known-1');
    assert.ok(again);
    assert.notEqual(again.id, chat.id);
    assert.equal(again.unreadCount, 1);
    assert.equal(again.text, 'third');
    assert.equal(await countMessages(again.id), 1);
  });
});
