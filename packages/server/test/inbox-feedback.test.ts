// The console Inbox (team replies, pause, manual status) and answer feedback (like, dislike → knowledge base).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { newId } from '../src/lib/ids.ts';
import { eventsOf } from './support/events.ts';
import { startTestApp, type TestApp } from './support/harness.ts';

type InboxMessage = { id: string; role: string; senderName: string | null; text: string; rating: string | null };

let t: TestApp;
let user: Awaited<ReturnType<TestApp['createConsoleUser']>>;
let channelId: string;
before(async () => {
  t = await startTestApp();
  user = await t.createConsoleUser();
  // The agent is off: agent replies are put in place by the tests (agent-knowledge-base.test.ts has the agent).
  channelId = (
    await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', { body: { name: 'API', settings: { isActive: false } } })
  ).body.id;
});
after(() => t.close());

async function newChat(externalChatId: string, text = 'How do I reset my password?'): Promise<string> {
  const res = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
    headers: { authorization: user.key },
    body: { channel: 'custom', channelId, externalChatId, role: 'user', text },
  });
  assert.equal(res.status, 201);
  const list = await t.api<{ chats: { id: string; chatId: string }[] }>(user.key, '/chats/chat', { channelId });
  return list.body.chats.find((c) => c.chatId === externalChatId)?.id ?? '';
}

/** An agent reply (the agent itself arrives with its own issue; its replies are stored like this). */
async function agentReply(chatId: string, text: string): Promise<string> {
  const id = newId();
  await new Promise((resolve) => setTimeout(resolve, 5)); // after the question, in time order
  await t.database.db.execute(
    sql`insert into messages (id, account_id, chat_id, role, origin, sender_name, text) values (${id}, ${user.accountId}, ${chatId}, 'assistant', 'agent', 'Agent', ${text})`,
  );
  return id;
}

describe('Inbox', () => {
  test('all-chats lists with the public filters; messages come oldest first with ratings', async () => {
    const chatId = await newChat('inbox-1');
    const list = await t.console<{ chats: { id: string }[]; count: number }>(user.token, 'GET', '/chat/all-chats/', { query: { channelId } });
    assert.equal(list.status, 200);
    assert.ok(list.body.chats.some((c) => c.id === chatId));
    assert.equal((await t.console(user.token, 'GET', '/chat/all-chats/', { query: { bogus: '1' } })).status, 400);
    const replyId = await agentReply(chatId, 'Use the reset link.');
    await t.request('GET', '/api/v1/chats/chat/like', { headers: { authorization: user.key }, query: { messageId: replyId } });
    const messages = await t.console<{ messages: InboxMessage[] }>(user.token, 'GET', `/chat/messages/${chatId}/`);
    assert.deepEqual(
      messages.body.messages.map((m) => [m.role, m.text, m.rating]),
      [
        ['user', 'How do I reset my password?', null],
        ['assistant', 'Use the reset link.', 'liked'],
      ],
    );
  });

  test('a team reply: 201 message, stored as assistant from the member, and a new_messages event', async () => {
    const chatId = await newChat('inbox-2');
    const res = await t.console<InboxMessage & { attachments: unknown[] }>(user.token, 'POST', `/chat/messages/${chatId}/`, {
      body: { text: 'A human here!' },
    });
    assert.equal(res.status, 201);
    assert.deepEqual({ ...res.body, id: undefined, createdAt: undefined }, {
      kind: 'message',
      id: undefined,
      role: 'assistant',
      // The owner's name: its e-mail (issue #25 migration).
      senderName: user.email,
      text: 'A human here!',
      attachments: [],
      createdAt: undefined,
      rating: null,
      fromAgent: false,
      agentOutcome: null,
    });
    const events = (await eventsOf(t.database.db, channelId)).filter((e) => e.chat_id === chatId && e.kind === 'new_messages');
    const last = events.at(-1)?.payload as { messages: { id: string; role: string; senderName: string }[] };
    assert.deepEqual([last.messages[0]?.id, last.messages[0]?.role, last.messages[0]?.senderName], [res.body.id, 'assistant', user.email]);
    assert.equal((await t.console(user.token, 'POST', `/chat/messages/${chatId}/`, { body: { text: '' } })).status, 400);
  });

  test('pause and resume', async () => {
    const chatId = await newChat('inbox-3');
    assert.deepEqual((await t.console(user.token, 'POST', `/chat/pause-chat/${chatId}/`)).body, { id: chatId, paused: true });
    const list = await t.api<{ chats: { id: string; paused: boolean }[] }>(user.key, '/chats/chat', { channelId });
    assert.equal(list.body.chats.find((c) => c.id === chatId)?.paused, true);
    assert.deepEqual((await t.console(user.token, 'POST', `/chat/resume-chat/${chatId}/`)).body, { id: chatId, paused: false });
  });

  test('manual status: a real change emits dialog_status_changed with source manual and the member e-mail', async () => {
    const chatId = await newChat('inbox-4');
    const statusEvents = async () =>
      (await eventsOf(t.database.db, channelId)).filter((e) => e.chat_id === chatId && e.kind === 'dialog_status_changed');
    const res = await t.console(user.token, 'POST', `/chat/status/${chatId}/`, { body: { status: 'done' } });
    assert.deepEqual([res.status, res.body], [200, { id: chatId, status: 'done' }]);
    const events = await statusEvents();
    assert.equal(events.length, 1);
    assert.deepEqual((events[0]?.payload as { status: { source: unknown } }).status.source, { type: 'manual', operatorEmail: user.email });
    await t.console(user.token, 'POST', `/chat/status/${chatId}/`, { body: { status: 'done' } });
    assert.equal((await statusEvents()).length, 1, 'no change, no event');
    assert.equal((await t.console(user.token, 'POST', `/chat/status/${chatId}/`, { body: { status: 'closed' } })).status, 400);
  });

  test('unknown or foreign chats: 404 on every Inbox route', async () => {
    const chatId = await newChat('inbox-5');
    const intruder = await t.createConsoleUser();
    const calls: [string, string, unknown][] = [
      ['GET', `/chat/messages/${chatId}/`, undefined],
      ['POST', `/chat/messages/${chatId}/`, { text: 'hi' }],
      ['POST', `/chat/pause-chat/${chatId}/`, undefined],
      ['POST', `/chat/resume-chat/${chatId}/`, undefined],
      ['POST', `/chat/status/${chatId}/`, { status: 'done' }],
    ];
    for (const [method, path, body] of calls) {
      const res = await t.console(intruder.token, method, path, { body });
      assert.deepEqual([res.status, res.body], [404, { message: 'Chat not found', statusCode: 404 }], `${method} ${path}`);
      assert.equal((await t.console(user.token, method, path.replace(chatId, 'nope'), { body })).status, 404);
    }
    assert.deepEqual((await t.console(intruder.token, 'GET', '/chat/all-chats/')).body, { chats: [], count: 0 });
    const mine = await t.console<{ messages: unknown[] }>(user.token, 'GET', `/chat/messages/${chatId}/`);
    assert.equal(mine.body.messages.length, 1, 'nothing was added by the intruder');
  });
});

describe('answer feedback', () => {
  const like = (messageId: string, key = user.key) =>
    t.request('GET', '/api/v1/chats/chat/like', { headers: { authorization: key }, query: { messageId } });
  const dislike = (messageId: string, textEdit: string, key = user.key) =>
    t.request('POST', '/api/v1/chats/chat/dislike', { headers: { authorization: key }, body: { messageId, textEdit } });

  test('like: 200 Message liked, twice too; then dislike is refused', async () => {
    const replyId = await agentReply(await newChat('fb-1'), 'An answer');
    assert.deepEqual([(await like(replyId)).status, (await like(replyId)).body], [200, { message: 'Message liked' }]);
    assert.deepEqual((await dislike(replyId, 'x')).body, { message: 'Message already liked', statusCode: 400 });
  });

  test('dislike needs a knowledge base; then stores question and correction, once', async () => {
    const chatId = await newChat('fb-2', 'What are your opening hours?');
    const replyId = await agentReply(chatId, 'We never close.');
    assert.deepEqual((await dislike(replyId, 'Mon–Fri 9–18')).body, { message: 'Knowledge base not connected', statusCode: 400 });
    const kb = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ' } });
    await t.console(user.token, 'PUT', `/channel/custom/${channelId}/`, { body: { knowledgeBaseId: kb.body.id } });
    const res = await dislike(replyId, 'Mon–Fri 9–18');
    assert.deepEqual([res.status, res.body], [200, { message: 'Message disliked' }]);
    const entries = await t.console<{ entries: Record<string, unknown>[] }>(user.token, 'GET', `/knowledge-bases/${kb.body.id}/entries`);
    assert.deepEqual(
      entries.body.entries.map((e) => [e.question, e.answer, e.source, e.messageId]),
      [['What are your opening hours?', 'Mon–Fri 9–18', 'correction', replyId]],
    );
    assert.deepEqual((await dislike(replyId, 'again')).body, { message: 'Message already disliked', statusCode: 400 });
    assert.deepEqual((await like(replyId)).body, { message: 'Message already disliked', statusCode: 400 });
    const rows = await queryRows<{ rating: string }>(t.database.db, sql`select rating from messages where id = ${replyId}`);
    assert.equal(rows[0]?.rating, 'disliked');
  });

  test('a correction is audited as its author’s: the API key (named by its prefix) through the public API, the member in the Inbox', async () => {
    const kb = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name: 'Corrections' } });
    await t.console(user.token, 'PUT', `/channel/custom/${channelId}/`, { body: { knowledgeBaseId: kb.body.id } });
    const [key] = await queryRows<{ id: string; prefix: string }>(t.database.db, sql`select id, prefix from api_keys where account_id = ${user.accountId}`);
    assert.ok(key);
    const corrections = async (kind: string) => {
      const res = await t.console<{ events: { actor: unknown; kind: string; target: { type: string; name: string }; changes: unknown }[] }>(user.token, 'GET', '/audit', {
        query: { kind },
      });
      assert.equal(res.status, 200, res.text);
      return res.body.events.filter((e) => e.target.name === 'Do you deliver on Sundays?').map(({ actor, target, changes }) => ({ actor, target: target.type, changes }));
    };

    const first = await agentReply(await newChat('fb-audit-1', 'Do you deliver on Sundays?'), 'Every day.');
    assert.equal((await dislike(first, 'No, Monday to Saturday.')).status, 200);
    assert.deepEqual(await corrections('knowledge_entry.created'), [
      {
        actor: { kind: 'api_key', id: key.id, name: key.prefix },
        target: 'knowledge_entry',
        changes: { question: [null, 'Do you deliver on Sundays?'], synonyms: [null, []], answer: [null, 'No, Monday to Saturday.'] },
      },
    ]);
    // The same answer for another phrasing: the phrasing joins the entry, by the member who corrected in the Inbox.
    const second = await agentReply(await newChat('fb-audit-2', 'Sunday delivery?'), 'Sure.');
    const corrected = await t.console(user.token, 'POST', `/chat/answer/${second}/correction/`, { body: { text: 'No, Monday to Saturday.' } });
    assert.equal(corrected.status, 200, corrected.text);
    const [member] = await queryRows<{ id: string; name: string }>(t.database.db, sql`select id, name from members where account_id = ${user.accountId}`);
    assert.deepEqual(await corrections('knowledge_entry.updated'), [
      { actor: { kind: 'member', id: member?.id, name: member?.name }, target: 'knowledge_entry', changes: { synonyms: [[], ['Sunday delivery?']] } },
    ]);
  });

  test('only agent replies can be rated; unknown or foreign ids are Message not found', async () => {
    const chatId = await newChat('fb-3');
    const customer = await queryRows<{ id: string }>(t.database.db, sql`select id from messages where chat_id = ${chatId}`);
    const replyId = await agentReply(chatId, 'Mine');
    const stranger = await t.createAccount();
    for (const id of [customer[0]?.id ?? '', newId(), 'not-an-id']) {
      assert.deepEqual((await like(id)).body, { message: 'Message not found', statusCode: 400 });
      assert.deepEqual((await dislike(id, 'x')).body, { message: 'Message not found', statusCode: 400 });
    }
    assert.deepEqual((await like(replyId, stranger.key)).body, { message: 'Message not found', statusCode: 400 });
    assert.deepEqual((await dislike(replyId, 'x', stranger.key)).body, { message: 'Message not found', statusCode: 400 });
    assert.equal((await dislike(replyId, '')).status, 400);
  });
});
