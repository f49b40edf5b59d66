// The agent with the default knowledge-base engine, end to end through the public API: the reply arrives at a
// local webhook receiver, the correction loop (dislike → the next customer gets the corrected answer), the
// greeting and the fallback, and every silent case of rule 3 of send-message-universal, each with its test.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import type { Clock } from '../src/lib/clock.ts';
import { eventsOf, eventually, type StoredEvent } from './support/events.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';
import { startTestApp, type TestApp } from './support/harness.ts';

interface WebhookPayload {
  event: string;
  chat: { id: string; uniqueId: string };
  messages: { id: string; role: string; text: string; senderName: string | null }[];
}

const FALLBACK = "I'm not sure I understood. Could you put it another way? You can also ask for a person.";
const ENTRIES = [
  { question: 'How long does shipping take?', answer: 'Shipping takes 3 to 5 business days.' },
  { question: 'How do I reset my password?', synonyms: ['I forgot my password'], answer: 'Use the "Forgot password" link on the login page.' },
  { question: 'What payment methods do you accept?', answer: 'We accept cards, PayPal and bank transfer.' },
];

/** A clock that runs with real time from a chosen start (working hours are decided on it). */
function movableClock(start: Date): Clock & { jumpTo(at: Date): void } {
  let offset = start.getTime() - Date.now();
  return {
    now: () => new Date(Date.now() + offset),
    jumpTo(at: Date) {
      offset = at.getTime() - Date.now();
    },
  };
}

async function setUp(t: TestApp, receiver: Receiver, channel: Record<string, unknown> = {}, entries = ENTRIES) {
  const user = await t.createConsoleUser();
  const base = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ', language: 'en' } });
  assert.equal(base.status, 201, base.text);
  for (const entry of entries) {
    const res = await t.console(user.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, { body: entry });
    assert.equal(res.status, 201, res.text);
  }
  const created = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
    body: { name: 'Support', webhookUrl: `${receiver.url}/hook`, knowledgeBaseId: base.body.id, ...channel },
  });
  assert.equal(created.status, 201, created.text);
  const channelId = created.body.id;
  const send = async (externalChatId: string, text: string, extra: Record<string, unknown> = {}) => {
    const res = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
      headers: { authorization: user.key },
      body: { channel: 'custom', channelId, externalChatId, role: 'user', text, ...extra },
    });
    assert.equal(res.status, 201, res.text);
  };
  /** new_messages payloads the receiver got for a chat, in arrival order. */
  const received = (externalChatId: string): WebhookPayload[] =>
    receiver.requests
      .map((request) => JSON.parse(request.body) as WebhookPayload)
      .filter((payload) => payload.event === 'new_messages' && payload.chat.uniqueId === `${channelId}:${externalChatId}`);
  const replies = (externalChatId: string) =>
    received(externalChatId)
      .flatMap((payload) => payload.messages)
      .filter((message) => message.role === 'assistant');
  /** Waits for the n-th assistant message of the chat at the webhook. */
  const reply = (externalChatId: string, n = 1) =>
    eventually(async () => replies(externalChatId).length >= n && replies(externalChatId)[n - 1], 8000);
  const chatEvents = async (externalChatId: string): Promise<StoredEvent[]> =>
    (await eventsOf(t.database.db, channelId)).filter(
      (event) => (event.payload as { chat?: { uniqueId?: string } }).chat?.uniqueId === `${channelId}:${externalChatId}`,
    );
  return { user, baseId: base.body.id, channelId, send, reply, replies, received, chatEvents };
}

/** Nothing is left for the agent: no reply job queued or running, no message waiting. */
async function agentIdle(t: TestApp): Promise<boolean> {
  const [row] = await queryRows<{ jobs: number; waiting: number }>(
    t.database.db,
    sql`select (select count(*) from jobs where kind = 'agent.reply')::int as jobs,
               (select count(*) from messages where awaiting_agent)::int as waiting`,
  );
  return row?.jobs === 0 && row.waiting === 0;
}

/** A test app (private webhook URLs allowed) and a receiver, started before a suite's tests, closed after them. */
function appWithReceiver(options: { clock?: Clock } = {}): { readonly t: TestApp; readonly receiver: Receiver } {
  let app: TestApp | undefined;
  let server: Receiver | undefined;
  before(async () => {
    app = await startTestApp({ webhookAllowPrivateNetworks: true, ...options });
    server = await startReceiver();
  });
  after(async () => {
    await app?.close();
    await server?.close();
  });
  return {
    get t() {
      if (!app) throw new Error('the app starts before the tests');
      return app;
    },
    get receiver() {
      if (!server) throw new Error('the receiver starts before the tests');
      return server;
    },
  };
}

describe('the knowledge-base agent answers', () => {
  const env = appWithReceiver();

  test('a customer message: new_messages role user, then the reply as new_messages role assistant', async () => {
    const s = await setUp(env.t, env.receiver);
    await s.send('c1', 'how long does shipping take');
    const answer = await s.reply('c1');
    assert.equal(answer.text, 'Shipping takes 3 to 5 business days.');
    assert.equal(answer.senderName, null);
    const kinds = (await s.chatEvents('c1')).map((event) => [
      event.kind,
      (event.payload as unknown as WebhookPayload).messages[0]?.role,
    ]);
    assert.deepEqual(kinds, [
      ['new_messages', 'user'],
      ['new_messages', 'assistant'],
    ]);
    // The reply is an agent reply: it can be rated, and the Inbox shows it after the question.
    const like = await env.t.request('GET', '/api/v1/chats/chat/like', { headers: { authorization: s.user.key }, query: { messageId: answer.id } });
    assert.deepEqual(like.body, { message: 'Message liked' });
    const chat = (await env.t.api(s.user.key, '/chats/chat', { channelId: s.channelId })).body as { chats: { id: string; text: string }[] };
    assert.equal(chat.chats[0]?.text, 'Shipping takes 3 to 5 business days.');
    const inbox = await env.t.console<{ messages: { role: string; text: string; rating: string | null }[] }>(
      s.user.token,
      'GET',
      `/chat/messages/${chat.chats[0]?.id}/`,
    );
    assert.deepEqual(
      inbox.body.messages.map((m) => [m.role, m.text, m.rating]),
      [
        ['user', 'how long does shipping take', null],
        ['assistant', 'Shipping takes 3 to 5 business days.', 'liked'],
      ],
    );
  });

  test('an exact question wins whatever the case and punctuation; synonyms and paraphrases match', async () => {
    const s = await setUp(env.t, env.receiver);
    await s.send('exact', 'HOW do I reset my password???');
    assert.equal((await s.reply('exact')).text, 'Use the "Forgot password" link on the login page.');
    await s.send('synonym', 'i forgot my password!');
    assert.equal((await s.reply('synonym')).text, 'Use the "Forgot password" link on the login page.');
    await s.send('paraphrase', 'Which payment methods can I use?');
    assert.equal((await s.reply('paraphrase')).text, 'We accept cards, PayPal and bank transfer.');
  });

  test('nothing matches: the greeting on the first message, the fallback later', async () => {
    const s = await setUp(env.t, env.receiver, { settings: { greeting: 'Hi! I am the Parley Shop assistant.' } });
    await s.send('g', 'Do you sell bicycles on the moon?');
    assert.equal((await s.reply('g')).text, 'Hi! I am the Parley Shop assistant.');
    await s.send('g', 'And submarines?');
    assert.equal((await s.reply('g', 2)).text, FALLBACK);
    // A match on the first message is an answer, not the greeting.
    await s.send('g2', 'How long does shipping take?');
    assert.equal((await s.reply('g2')).text, 'Shipping takes 3 to 5 business days.');
  });

  test('without a knowledge base: the fallback in the channel language', async () => {
    const s = await setUp(env.t, env.receiver, { knowledgeBaseId: null, settings: { aiLang: 'ru' } });
    await s.send('ru', 'Привет');
    assert.equal(
      (await s.reply('ru')).text,
      'Я не уверен, что правильно понял. Не могли бы вы сформулировать иначе? Вы также можете попросить позвать человека.',
    );
  });

  test('the correction loop: a disliked reply’s textEdit is what the next customer asking gets', async () => {
    const s = await setUp(env.t, env.receiver, {}, [{ question: 'Do you ship to Norway?', answer: 'No, we do not ship to Norway.' }]);
    await s.send('first', 'Do you ship to Norway?');
    const wrong = await s.reply('first');
    assert.equal(wrong.text, 'No, we do not ship to Norway.');
    const dislike = await env.t.request('POST', '/api/v1/chats/chat/dislike', {
      headers: { authorization: s.user.key },
      body: { messageId: wrong.id, textEdit: 'Yes: Norway gets our parcels in 5 to 7 days.' },
    });
    assert.deepEqual(dislike.body, { message: 'Message disliked' });
    await s.send('second', 'do you ship to norway');
    assert.equal((await s.reply('second')).text, 'Yes: Norway gets our parcels in 5 to 7 days.');
    // Asked another way, the corrected entry answers too (the original one is superseded by it).
    await s.send('third', 'Do you ship orders to Norway?');
    assert.equal((await s.reply('third')).text, 'Yes: Norway gets our parcels in 5 to 7 days.');
  });

  test('a burst of messages in one chat: answered in order, one reply at a time, none left waiting', async () => {
    const s = await setUp(env.t, env.receiver);
    await Promise.all([
      s.send('burst', 'hello there'),
      s.send('burst', 'how long does shipping take?'),
      s.send('burst', 'thanks'),
    ]);
    await eventually(async () => (await agentIdle(env.t)) && s.replies('burst').length > 0, 8000);
    const stored = await queryRows<{ role: string; origin: string }>(
      env.t.database.db,
      sql`select m.role, m.origin from messages m join chats c on c.id = m.chat_id
          where c.unique_id = ${`${s.channelId}:burst`} order by m.created_at, m.id`,
    );
    const agentReplies = stored.filter((m) => m.origin === 'agent').length;
    assert.ok(agentReplies >= 1 && agentReplies <= 3, `${agentReplies} replies`);
    // The last message of the chat is a reply: every customer message was seen by the agent before it.
    assert.equal(stored.at(-1)?.origin, 'agent');
    assert.equal(stored.filter((m) => m.origin === 'customer').length, 3);
  });
});

describe('the agent stays silent (rule 3 of send-message-universal)', () => {
  const env = appWithReceiver();

  /** The customer's message reached the webhook, nothing was queued for the agent, and no reply came after a while. */
  async function assertSilent(s: Awaited<ReturnType<typeof setUp>>, externalChatId: string, customerMessages = 1) {
    await eventually(async () => s.received(externalChatId).length >= customerMessages);
    assert.equal(await agentIdle(env.t), true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(
      (await s.chatEvents(externalChatId)).map((event) => (event.payload as unknown as WebhookPayload).messages[0]?.role),
      Array.from({ length: customerMessages }, () => 'user'),
    );
    assert.equal(s.replies(externalChatId).length, 0);
  }

  test('the agent is switched off (settings.isActive false)', async () => {
    const s = await setUp(env.t, env.receiver, { settings: { isActive: false } });
    await s.send('off', 'How long does shipping take?');
    await assertSilent(s, 'off');
  });

  test('Disable agent responses is on', async () => {
    const s = await setUp(env.t, env.receiver, { disableAgentResponses: true });
    await s.send('disabled', 'How long does shipping take?');
    await assertSilent(s, 'disabled');
  });

  test('the chat is paused; after resume the agent answers again', async () => {
    const s = await setUp(env.t, env.receiver);
    await s.send('paused', 'How long does shipping take?');
    await s.reply('paused');
    const chat = (await env.t.api(s.user.key, '/chats/chat', { channelId: s.channelId })).body as { chats: { id: string }[] };
    const chatId = chat.chats[0]?.id ?? '';
    assert.equal((await env.t.console(s.user.token, 'POST', `/chat/pause-chat/${chatId}/`)).status, 200);
    await s.send('paused', 'How do I reset my password?');
    await eventually(async () => s.received('paused').length >= 3);
    assert.equal(await agentIdle(env.t), true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(s.replies('paused').length, 1);
    assert.equal((await env.t.console(s.user.token, 'POST', `/chat/resume-chat/${chatId}/`)).status, 200);
    await s.send('paused', 'How do I reset my password?');
    assert.equal((await s.reply('paused', 2)).text, 'Use the "Forgot password" link on the login page.');
  });

  test('the chat is banned: the message is ignored, so nothing is answered', async () => {
    const s = await setUp(env.t, env.receiver);
    await s.send('banned', 'hello');
    await s.reply('banned');
    const ban = await env.t.request('GET', '/api/v1/chats/chat/ban', {
      headers: { authorization: s.user.key },
      query: { uniqueId: `${s.channelId}:banned` },
    });
    assert.equal(ban.status, 200, ban.text);
    await s.send('banned', 'How long does shipping take?');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await agentIdle(env.t), true);
    assert.equal((await s.chatEvents('banned')).length, 2);
  });

  test('a repeated messageId: no second message, no second reply', async () => {
    const s = await setUp(env.t, env.receiver);
    await s.send('repeat', 'How long does shipping take?', { messageId: 'm-1' });
    await s.reply('repeat');
    await s.send('repeat', 'How long does shipping take?', { messageId: 'm-1' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await agentIdle(env.t), true);
    assert.equal((await s.chatEvents('repeat')).length, 2);
    assert.equal(s.replies('repeat').length, 1);
  });

  test('role assistant (a team reply through the API): saved as context, no event, no reply', async () => {
    const s = await setUp(env.t, env.receiver);
    await s.send('ctx', 'We will call you tomorrow.', { role: 'assistant' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await agentIdle(env.t), true);
    assert.equal((await s.chatEvents('ctx')).length, 0);
  });
});

describe('working hours and the auto-reply', () => {
  // Monday 2026-11-23 09:00–17:00 in Europe/Berlin (UTC+1 in November).
  const hours = { timeZone: 'Europe/Berlin', intervals: [{ day: 'mon', from: '09:00', to: '17:00' }] };
  const sunday = new Date('2026-11-22T12:00:00Z');
  const mondayOpen = new Date('2026-11-23T09:30:00Z'); // 10:30 in Berlin
  const mondayEvening = new Date('2026-11-23T17:00:00Z'); // 18:00 in Berlin
  const clock = movableClock(sunday);
  const env = appWithReceiver({ clock });

  test('outside the hours the agent is silent and the auto-reply goes once per off-hours period', async () => {
    clock.jumpTo(sunday);
    const s = await setUp(env.t, env.receiver, { workingHours: hours, autoReply: 'We are closed; we answer on Monday from 9:00.' });
    await s.send('h', 'How long does shipping take?');
    const auto = await s.reply('h');
    assert.equal(auto.text, 'We are closed; we answer on Monday from 9:00.');
    // The auto-reply is not an agent reply: it cannot be rated.
    const like = await env.t.request('GET', '/api/v1/chats/chat/like', { headers: { authorization: s.user.key }, query: { messageId: auto.id } });
    assert.deepEqual(like.body, { message: 'Message not found', statusCode: 400 });
    await s.send('h', 'Hello?');
    await eventually(async () => s.received('h').length >= 3);
    assert.equal(await agentIdle(env.t), true);
    assert.equal(s.replies('h').length, 1);

    clock.jumpTo(mondayOpen);
    await s.send('h', 'How long does shipping take?');
    assert.equal((await s.reply('h', 2)).text, 'Shipping takes 3 to 5 business days.');

    clock.jumpTo(mondayEvening);
    await s.send('h', 'One more question');
    assert.equal((await s.reply('h', 3)).text, 'We are closed; we answer on Monday from 9:00.');
    await s.send('h', 'Anyone?');
    await eventually(async () => s.received('h').length >= 8);
    assert.equal(await agentIdle(env.t), true);
    assert.equal(s.replies('h').length, 3);
  });

  test('outside the hours without an auto-reply: silent', async () => {
    clock.jumpTo(sunday);
    const s = await setUp(env.t, env.receiver, { workingHours: hours });
    await s.send('quiet', 'How long does shipping take?');
    await eventually(async () => s.received('quiet').length >= 1);
    assert.equal(await agentIdle(env.t), true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(s.replies('quiet').length, 0);
  });
});

describe('the console test chat', () => {
  const env = appWithReceiver();

  test("answers as the channel's agent would, storing no chat and sending no event", async () => {
    const s = await setUp(env.t, env.receiver, { disableAgentResponses: true, settings: { greeting: 'Hello from Parley Shop!' } });
    const test1 = await env.t.console(s.user.token, 'POST', `/chat/test/${s.channelId}/`, { body: { text: 'how long does shipping take' } });
    assert.equal(test1.status, 200);
    assert.deepEqual(test1.body, { reply: 'Shipping takes 3 to 5 business days.', taskComplete: false, summary: null, passages: [] });
    const greeting = await env.t.console(s.user.token, 'POST', `/chat/test/${s.channelId}/`, { body: { text: 'Tell me a joke' } });
    assert.deepEqual(greeting.body, { reply: 'Hello from Parley Shop!', taskComplete: false, summary: null, passages: [] });
    const list = await env.t.api(s.user.key, '/chats/chat');
    assert.deepEqual(list.body, { chats: [], count: 0 });
    assert.deepEqual(await eventsOf(env.t.database.db, s.channelId), []);
  });

  test('unknown or foreign channel: 404; bad body: 400; no token: 401', async () => {
    const s = await setUp(env.t, env.receiver);
    const other = await env.t.createConsoleUser();
    assert.deepEqual((await env.t.console(other.token, 'POST', `/chat/test/${s.channelId}/`, { body: { text: 'hi' } })).body, {
      message: 'Channel not found',
      statusCode: 404,
    });
    assert.equal((await env.t.console(s.user.token, 'POST', '/chat/test/cc:nope/', { body: { text: 'hi' } })).status, 404);
    const bad = await env.t.console(s.user.token, 'POST', `/chat/test/${s.channelId}/`, { body: { text: 'hi', extra: 1 } });
    assert.equal(bad.status, 400);
    assert.equal((await env.t.console(s.user.token, 'POST', `/chat/test/${s.channelId}/`, { body: {} })).status, 400);
    assert.equal((await env.t.console(undefined, 'POST', `/chat/test/${s.channelId}/`, { body: { text: 'hi' } })).status, 401);
  });

  test('the failures list is empty for a fresh account, and 401 without a token', async () => {
    const user = await env.t.createConsoleUser();
    assert.deepEqual((await env.t.console(user.token, 'GET', '/agent/failures/')).body, { failures: [] });
    assert.equal((await env.t.console(undefined, 'GET', '/agent/failures/')).status, 401);
    assert.equal((await env.t.console(user.token, 'GET', '/agent/failures/', { query: { limit: '0' } })).status, 400);
  });
});
