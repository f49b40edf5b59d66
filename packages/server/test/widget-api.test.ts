// The chat widget's console settings and visitor API over HTTP and WebSocket, against a real database: sessions and
// identity verification, the one ingest path (webhook events, the agent's answer, ban), abuse limits, the live
// stream's resume after a dropped connection, and tenant isolation.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { WebSocket } from 'ws';
import { queryRows } from '../src/db/client.ts';
import { eventsOf, eventually } from './support/events.ts';
import { reply, startFakeLlm } from './support/fake-llm.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';
import { PUBLIC_URL, startTestApp, type TestApp } from './support/harness.ts';
import { hoursTwoDaysAhead, WEEKDAYS } from './support/working-hours.ts';

const SITE = 'https://shop.example';
const SECRET = 'widget-identity-secret-0123456789';

interface WidgetView {
  allowedOrigins: string[];
  title: string;
  color: string;
  position: string;
  launcherText: string;
  greeting: string;
  requireVerifiedIdentity: boolean;
  messagesPerMinute: number;
  newVisitorsPerIpPerMinute: number;
  maxMessageLength: number;
  preChatForm: { enabled: boolean; name: string; email: string };
  identitySecretSet: boolean;
  snippet: string;
}
interface ChannelView {
  id: string;
  type: string;
  widget?: WidgetView;
}
interface Session {
  token: string;
  visitorId: string;
  verified: boolean;
  name: string | null;
  email: string | null;
  look: { title: string; color: string; position: string; launcherText: string; greeting: string };
  preChatForm: { name: string; email: string } | null;
  away: { backAt: string | null } | null;
}
interface WidgetMessage {
  id: string;
  role: string;
  from: string;
  name: string | null;
  text: string;
  attachments: unknown[];
  createdAt: string;
}

let t: TestApp;
let receiver: Receiver;

before(async () => {
  t = await startTestApp({ webhookAllowPrivateNetworks: true });
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  await t.close();
});

async function widgetChannel(token: string, widget: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  const res = await t.console<ChannelView>(token, 'POST', '/channel/widget/connect/', {
    body: { name: 'Site chat', webhookUrl: `${receiver.url}/hook`, widget: { allowedOrigins: [SITE], ...widget }, ...extra },
  });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

function session(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return t.request<Session>('POST', '/widget/v1/session', { body: { origin: SITE, ...body }, headers });
}

function visitor(token: string) {
  const auth = { authorization: `Bearer ${token}` };
  return {
    send: (text: string, headers: Record<string, string> = {}) =>
      t.request<{ message: WidgetMessage | null }>('POST', '/widget/v1/messages', { body: { text }, headers: { ...auth, ...headers } }),
    history: (query: Record<string, string> = {}) => t.request<{ messages: WidgetMessage[] }>('GET', '/widget/v1/messages', { headers: auth, query }),
  };
}

const hashOf = (identifier: string) => createHmac('sha256', SECRET).update(identifier).digest('hex');

async function chatCount(channelId: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from chats where channel_id = ${channelId}`);
  return row?.n ?? 0;
}

async function visitorCount(channelId: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from widget_visitors where channel_id = ${channelId}`);
  return row?.n ?? 0;
}

describe('console settings of a widget channel', () => {
  test('connect gives the defaults and the snippet; the identity secret is write-only', async () => {
    const user = await t.createConsoleUser();
    const channel = await widgetChannel(user.token);
    assert.equal(channel.type, 'widget');
    assert.deepEqual(channel.widget, {
      allowedOrigins: [SITE],
      title: 'Chat with us',
      color: '#2563eb',
      position: 'right',
      launcherText: 'Chat',
      greeting: '',
      requireVerifiedIdentity: false,
      messagesPerMinute: 10,
      newVisitorsPerIpPerMinute: 20,
      maxMessageLength: 2000,
      preChatForm: { enabled: false, name: 'optional', email: 'required' },
      identitySecretSet: false,
      snippet: `<script src="${PUBLIC_URL}/widget.js" data-channel="${channel.id}" async></script>`,
    });

    const changed = await t.console<ChannelView>(user.token, 'PUT', `/channel/widget/${channel.id}/`, {
      body: { widget: { identitySecret: SECRET, requireVerifiedIdentity: true, title: 'Help', color: '#112233', position: 'left', allowedOrigins: ['https://Shop.Example:443', 'http://localhost:8080'] } },
    });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.text.includes(SECRET), false);
    assert.equal(changed.body.widget?.identitySecretSet, true);
    assert.equal(changed.body.widget?.requireVerifiedIdentity, true);
    assert.equal(changed.body.widget?.title, 'Help');
    assert.equal(changed.body.widget?.position, 'left');
    assert.deepEqual(changed.body.widget?.allowedOrigins, [SITE, 'http://localhost:8080']);
    // Other changes keep the secret.
    const renamed = await t.console<ChannelView>(user.token, 'PUT', `/channel/widget/${channel.id}/`, { body: { widget: { greeting: 'Hi!' } } });
    assert.equal(renamed.body.widget?.identitySecretSet, true);
    assert.equal(renamed.body.widget?.greeting, 'Hi!');
    const got = await t.console<ChannelView>(user.token, 'GET', `/channel/widget/${channel.id}/`);
    assert.equal(got.text.includes(SECRET), false);
    const listed = await t.console<{ channels: ChannelView[] }>(user.token, 'GET', '/channels/all/');
    assert.equal(listed.body.channels.find((c) => c.id === channel.id)?.widget?.identitySecretSet, true);
  });

  test('invalid settings are 400; widget settings belong to widget channels only', async () => {
    const user = await t.createConsoleUser();
    const channel = await widgetChannel(user.token);
    const noSecret = await t.console(user.token, 'PUT', `/channel/widget/${channel.id}/`, { body: { widget: { requireVerifiedIdentity: true } } });
    assert.deepEqual([noSecret.status, noSecret.body], [
      400,
      { message: 'widget.identitySecret is needed when widget.requireVerifiedIdentity is true', statusCode: 400 },
    ]);
    const invalid = [
      { allowedOrigins: ['https://shop.example/path'] },
      { color: 'red' },
      { position: 'top' },
      { messagesPerMinute: 0 },
      { unknown: 1 },
      { preChatForm: { name: 'sometimes' } },
      { preChatForm: { enabled: 'yes' } },
      { preChatForm: { phone: 'required' } },
    ];
    for (const widget of invalid) {
      const res = await t.console(user.token, 'PUT', `/channel/widget/${channel.id}/`, { body: { widget } });
      assert.equal(res.status, 400, JSON.stringify(widget));
    }
    const custom = await t.console(user.token, 'POST', '/channel/custom/connect/', { body: { name: 'API', widget: { title: 'x' } } });
    assert.equal(custom.status, 400);
    const plain = await t.console<ChannelView>(user.token, 'POST', '/channel/custom/connect/', { body: { name: 'API' } });
    assert.equal(plain.body.widget, undefined);
  });

  test('the pre-chat form: off by default; its fields change one at a time', async () => {
    const user = await t.createConsoleUser();
    const channel = await widgetChannel(user.token);
    const on = await t.console<ChannelView>(user.token, 'PUT', `/channel/widget/${channel.id}/`, { body: { widget: { preChatForm: { enabled: true } } } });
    assert.equal(on.status, 200, on.text);
    assert.deepEqual(on.body.widget?.preChatForm, { enabled: true, name: 'optional', email: 'required' });
    const named = await t.console<ChannelView>(user.token, 'PUT', `/channel/widget/${channel.id}/`, {
      body: { widget: { preChatForm: { name: 'required', email: 'optional' } } },
    });
    assert.deepEqual(named.body.widget?.preChatForm, { enabled: true, name: 'required', email: 'optional' });
    const other = await t.console<ChannelView>(user.token, 'PUT', `/channel/widget/${channel.id}/`, { body: { widget: { title: 'Help' } } });
    assert.deepEqual(other.body.widget?.preChatForm, { enabled: true, name: 'required', email: 'optional' });
  });

  test("another account's widget channel is not found", async () => {
    const owner = await t.createConsoleUser();
    const other = await t.createConsoleUser();
    const channel = await widgetChannel(owner.token);
    const read = await t.console(other.token, 'GET', `/channel/widget/${channel.id}/`);
    assert.equal(read.status, 404);
    const write = await t.console(other.token, 'PUT', `/channel/widget/${channel.id}/`, { body: { widget: { allowedOrigins: ['https://evil.example'] } } });
    assert.equal(write.status, 404);
    const after = await t.console<ChannelView>(owner.token, 'GET', `/channel/widget/${channel.id}/`);
    assert.deepEqual(after.body.widget?.allowedOrigins, [SITE]);
  });
});

describe('visitor sessions', () => {
  test('only allowed origins get a session; a kept token resumes the same visitor', async () => {
    const user = await t.createConsoleUser();
    const channel = await widgetChannel(user.token, { title: 'Shop help', greeting: 'Hello there' });
    const refused = await session({ channelId: channel.id, origin: 'https://evil.example' });
    assert.deepEqual([refused.status, refused.body], [403, { message: 'This website is not allowed to show this chat', statusCode: 403 }]);
    const missing = await session({ channelId: '0198f5b4-0000-7000-8000-000000000000' });
    assert.deepEqual([missing.status, missing.body], [404, { message: 'Chat widget not found', statusCode: 404 }]);
    const custom = await t.console<ChannelView>(user.token, 'POST', '/channel/custom/connect/', { body: { name: 'API' } });
    assert.equal((await session({ channelId: custom.body.id })).status, 404);
    assert.equal((await session({ channelId: channel.id, extra: 1 })).status, 400);
    assert.equal(await visitorCount(channel.id), 0);

    const first = await session({ channelId: channel.id });
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.body.look, { title: 'Shop help', color: '#2563eb', position: 'right', launcherText: 'Chat', greeting: 'Hello there' });
    assert.equal(first.body.verified, false);
    const again = await session({ channelId: channel.id, token: first.body.token });
    assert.equal(again.body.visitorId, first.body.visitorId);
    const forged = await session({ channelId: channel.id, token: `${first.body.token}x` });
    assert.notEqual(forged.body.visitorId, first.body.visitorId);
    // A token of this channel is nobody on another account's channel.
    const stranger = await t.createConsoleUser();
    const elsewhere = await widgetChannel(stranger.token);
    const crossed = await session({ channelId: elsewhere.id, token: first.body.token });
    assert.equal(crossed.status, 200);
    assert.notEqual(crossed.body.visitorId, first.body.visitorId);
    await visitor(first.body.token).send('mine');
    assert.deepEqual((await visitor(crossed.body.token).history()).body.messages, []);
    // A browser request from a page that is not allowed is refused even with a valid token.
    const evil = await visitor(first.body.token).send('hi', { origin: 'https://evil.example' });
    assert.equal(evil.status, 403);
    const bad = await t.request('GET', '/widget/v1/messages', { headers: { authorization: 'Bearer nope' } });
    assert.deepEqual([bad.status, bad.body], [401, { message: 'Your chat session is no longer valid; reload the page to start again', statusCode: 401 }]);
    // Removing the origin cuts its visitors off.
    await t.console(user.token, 'PUT', `/channel/widget/${channel.id}/`, { body: { widget: { allowedOrigins: ['https://other.example'] } } });
    const cut = await visitor(first.body.token).history();
    assert.equal(cut.status, 403);
  });

  test('required identity: no identity and a wrong identifierHash are refused with nothing stored; a right one links the customer', async () => {
    const user = await t.createConsoleUser();
    const channel = await widgetChannel(user.token, { identitySecret: SECRET, requireVerifiedIdentity: true }, { disableAgentResponses: true });
    const anonymous = await session({ channelId: channel.id });
    assert.deepEqual([anonymous.status, anonymous.body], [
      403,
      { message: 'This chat is only for signed-in customers: a verified identity is required', statusCode: 403 },
    ]);
    const wrong = await session({ channelId: channel.id, identity: { identifier: 'cust-1', identifierHash: hashOf('cust-2') } });
    assert.deepEqual([wrong.status, wrong.body], [
      403,
      { message: 'Identity verification failed: identifierHash does not match identifier', statusCode: 403 },
    ]);
    const unsigned = await session({ channelId: channel.id, identity: { identifier: 'cust-1', name: 'Ann' } });
    assert.equal(unsigned.status, 403);
    assert.equal(await visitorCount(channel.id), 0);
    assert.equal((await eventsOf(t.database.db, channel.id)).length, 0);

    const identity = { identifier: 'cust-1', name: 'Ann Lee', email: 'ann@example.com', identifierHash: hashOf('cust-1') };
    const ok = await session({ channelId: channel.id, identity });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual([ok.body.verified, ok.body.name, ok.body.email], [true, 'Ann Lee', 'ann@example.com']);
    const sent = await visitor(ok.body.token).send('Hello from Ann');
    assert.equal(sent.status, 201, sent.text);
    // Another device, same verified customer: the same visitor and conversation.
    const elsewhere = await session({ channelId: channel.id, identity: { identifier: 'cust-1', identifierHash: hashOf('cust-1').toUpperCase() } });
    assert.equal(elsewhere.body.visitorId, ok.body.visitorId);
    const seen = await visitor(elsewhere.body.token).history();
    assert.deepEqual(seen.body.messages.map((m) => m.text), ['Hello from Ann']);
    const chats = await t.api<{ chats: { chatId: string; dialogName: string; email: string | null; channelName: string; uniqueId: string }[] }>(
      user.key,
      '/chats/chat',
      { channelId: channel.id },
    );
    assert.equal(chats.status, 200, chats.text);
    const [chat] = chats.body.chats;
    assert.deepEqual(
      chat && { chatId: chat.chatId, name: chat.dialogName, email: chat.email, channelName: chat.channelName, uniqueId: chat.uniqueId },
      { chatId: ok.body.visitorId, name: 'Ann Lee', email: 'ann@example.com', channelName: 'widget', uniqueId: `${ok.body.visitorId}_${channel.id}` },
    );
  });

  test('unverified details never link to a known customer when verification is optional', async () => {
    const user = await t.createConsoleUser();
    const channel = await widgetChannel(user.token, { identitySecret: SECRET });
    const known = await session({ channelId: channel.id, identity: { identifier: 'vip', identifierHash: hashOf('vip') } });
    await visitor(known.body.token).send('private question');
    const pretender = await session({ channelId: channel.id, identity: { identifier: 'vip', name: 'Not VIP' } });
    assert.equal(pretender.status, 200);
    assert.equal(pretender.body.verified, false);
    assert.notEqual(pretender.body.visitorId, known.body.visitorId);
    assert.deepEqual((await visitor(pretender.body.token).history()).body.messages, []);
  });
});

describe('away mode', () => {
  test("outside the channel's working hours the session says when they next begin; messages are still taken", async () => {
    const user = await t.createConsoleUser();
    const { workingHours, backAt } = hoursTwoDaysAhead();
    const closed = await widgetChannel(user.token, {}, { workingHours, autoReply: 'We are closed; we answer tomorrow.' });
    const start = await session({ channelId: closed.id });
    assert.equal(start.status, 200, start.text);
    assert.deepEqual(start.body.away, { backAt });
    const me = visitor(start.body.token);
    assert.equal((await me.send('Anyone there?')).status, 201);
    const replies = await eventually(async () => {
      const { messages } = (await me.history()).body;
      return messages.length === 2 && messages;
    }, 10_000);
    assert.deepEqual(replies.map((m) => [m.from, m.text]), [['visitor', 'Anyone there?'], ['agent', 'We are closed; we answer tomorrow.']]);

    const always = WEEKDAYS.map((day) => ({ day, from: '00:00', to: '24:00' }));
    const open = await widgetChannel(user.token, {}, { workingHours: { timeZone: 'UTC', intervals: always } });
    assert.equal((await session({ channelId: open.id })).body.away, null);
    const noHours = await widgetChannel(user.token);
    assert.equal((await session({ channelId: noHours.id })).body.away, null);
    const never = await widgetChannel(user.token, {}, { workingHours: { timeZone: 'UTC', intervals: [] } });
    assert.deepEqual((await session({ channelId: never.id })).body.away, { backAt: null });
  });
});

describe('visitor messages', () => {
  test('a question goes through the ingest path: webhook user and assistant events, the knowledge-base answer, a team reply', async () => {
    const user = await t.createConsoleUser();
    const base = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ' } });
    await t.console(user.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, {
      body: { question: 'How long does shipping take?', answer: 'Shipping takes 3 to 5 business days.' },
    });
    const channel = await widgetChannel(user.token, {}, { knowledgeBaseId: base.body.id });
    const start = await session({ channelId: channel.id, identity: { identifier: 'u1', name: 'Bob' } });
    const me = visitor(start.body.token);
    const sent = await me.send('How long does shipping take?');
    assert.equal(sent.status, 201, sent.text);
    assert.deepEqual(sent.body.message && { role: sent.body.message.role, from: sent.body.message.from, text: sent.body.message.text }, {
      role: 'user',
      from: 'visitor',
      text: 'How long does shipping take?',
    });
    const answered = await eventually(async () => {
      const { messages } = (await me.history()).body;
      return messages.length === 2 && messages;
    }, 10_000);
    assert.deepEqual(answered.map((m) => [m.role, m.from, m.text]), [
      ['user', 'visitor', 'How long does shipping take?'],
      ['assistant', 'agent', 'Shipping takes 3 to 5 business days.'],
    ]);
    const hooks = await eventually(async () => {
      const payloads = receiver.requests
        .map((r) => JSON.parse(r.body) as { event: string; chat: { uniqueId: string; channelName: string; externalChatId: string; name: string }; messages: { role: string; text: string }[] })
        .filter((p) => p.chat.uniqueId === `${start.body.visitorId}_${channel.id}`);
      return payloads.length >= 2 && payloads;
    }, 10_000);
    // Deliveries go out concurrently (no order between a chat's events is promised): the customer's comes first here.
    hooks.sort((a, b) => Number(a.messages[0]?.role === 'assistant') - Number(b.messages[0]?.role === 'assistant'));
    assert.deepEqual(hooks.map((p) => [p.event, p.chat.channelName, p.chat.externalChatId, p.chat.name, p.messages[0]?.role, p.messages[0]?.text]), [
      ['new_messages', 'widget', start.body.visitorId, 'Bob', 'user', 'How long does shipping take?'],
      ['new_messages', 'widget', start.body.visitorId, 'Bob', 'assistant', 'Shipping takes 3 to 5 business days.'],
    ]);

    // The team answers from the Inbox; another account cannot.
    const chats = await t.console<{ chats: { id: string; chatId: string }[] }>(user.token, 'GET', '/chat/all-chats/');
    const chatId = chats.body.chats.find((c) => c.chatId === start.body.visitorId)?.id ?? '';
    const stranger = await t.createConsoleUser();
    assert.equal((await t.console(stranger.token, 'POST', `/chat/messages/${chatId}/`, { body: { text: 'spam' } })).status, 404);
    const team = await t.console(user.token, 'POST', `/chat/messages/${chatId}/`, { body: { text: 'Anything else?' } });
    assert.equal(team.status, 201, team.text);
    const last = (await me.history()).body.messages.at(-1);
    assert.deepEqual(last && [last.role, last.from, last.name, last.text], ['assistant', 'team', null, 'Anything else?']);
    assert.equal(answered[1]?.name, null);
    // A team reply signed with the member's name (not an e-mail address) shows it.
    await queryRows(t.database.db, sql`update messages set sender_name = 'Alex' where id = ${last?.id ?? ''}`);
    assert.equal((await me.history()).body.messages.at(-1)?.name, 'Alex');
    assert.equal(JSON.stringify((await me.history()).body).includes(user.email), false, "a team member's e-mail is not shown");
  });

  test("the pre-chat form's answers are the chat's name and e-mail; a required one missing refuses messages", async () => {
    const user = await t.createConsoleUser();
    const channel = await widgetChannel(user.token, { preChatForm: { enabled: true, name: 'optional', email: 'required' } }, { disableAgentResponses: true });
    const start = await session({ channelId: channel.id });
    assert.equal(start.status, 200, start.text);
    assert.deepEqual(start.body.preChatForm, { name: 'optional', email: 'required' });
    const auth = { authorization: `Bearer ${start.body.token}` };
    const me = visitor(start.body.token);

    const early = await me.send('Hello?');
    assert.deepEqual([early.status, early.body], [400, { message: 'Fill in the form first: email is required', statusCode: 400 }]);
    const nameOnly = await t.request('PUT', '/widget/v1/visitor', { body: { name: 'Dana' }, headers: auth });
    assert.deepEqual([nameOnly.status, nameOnly.body], [400, { message: 'Fill in the form first: email is required', statusCode: 400 }]);
    const badEmail = await t.request('PUT', '/widget/v1/visitor', { body: { email: 'not an address' }, headers: auth });
    assert.equal(badEmail.status, 400);
    assert.equal(await chatCount(channel.id), 0);

    const given = await t.request('PUT', '/widget/v1/visitor', { body: { name: ' Dana ', email: 'dana@example.com' }, headers: auth });
    assert.deepEqual([given.status, given.body], [200, { name: 'Dana', email: 'dana@example.com' }]);
    const sent = await me.send('Hello?');
    assert.equal(sent.status, 201, sent.text);
    const [chat] = await queryRows<{ dialog_name: string; email: string | null }>(
      t.database.db,
      sql`select dialog_name, email from chats where channel_id = ${channel.id}`,
    );
    assert.deepEqual(chat, { dialog_name: 'Dana', email: 'dana@example.com' });
    // Changed later, the chat follows; the session says who the visitor is.
    const changed = await t.request('PUT', '/widget/v1/visitor', { body: { email: 'dana@shop.example' }, headers: auth });
    assert.equal(changed.status, 200, changed.text);
    const [after] = await queryRows<{ email: string | null }>(t.database.db, sql`select email from chats where channel_id = ${channel.id}`);
    assert.equal(after?.email, 'dana@shop.example');
    const again = await session({ channelId: channel.id, token: start.body.token });
    assert.deepEqual([again.body.name, again.body.email], ['Dana', 'dana@shop.example']);

    // Off: no form, and nothing is required.
    const off = await widgetChannel(user.token, {}, { disableAgentResponses: true });
    const plain = await session({ channelId: off.id });
    assert.equal(plain.body.preChatForm, null);
    assert.equal((await visitor(plain.body.token).send('Hi')).status, 201);
  });

  test('disabled agent responses: the message is stored and sent to the webhook, no reply', async () => {
    const user = await t.createConsoleUser();
    const channel = await widgetChannel(user.token, {}, { disableAgentResponses: true });
    const start = await session({ channelId: channel.id });
    await visitor(start.body.token).send('anyone?');
    await eventually(async () => (await eventsOf(t.database.db, channel.id)).length === 1);
    const [row] = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from jobs where kind = 'agent.reply'`);
    assert.equal(row?.n ?? 0, 0);
    assert.equal((await visitor(start.body.token).history()).body.messages.length, 1);
  });

  test("a banned visitor's messages are ignored: not stored, no event", async () => {
    const user = await t.createConsoleUser();
    const channel = await widgetChannel(user.token, {}, { disableAgentResponses: true });
    const start = await session({ channelId: channel.id });
    const me = visitor(start.body.token);
    await me.send('first');
    const ban = await t.api(user.key, '/chats/chat/ban', { uniqueId: `${start.body.visitorId}_${channel.id}` });
    assert.equal(ban.status, 200, ban.text);
    const before = (await eventsOf(t.database.db, channel.id)).length;
    const ignored = await me.send('second');
    assert.deepEqual([ignored.status, ignored.body], [201, { message: null }]);
    assert.equal((await eventsOf(t.database.db, channel.id)).length, before);
    assert.deepEqual((await me.history()).body.messages.map((m) => m.text), ['first']);
  });

  test('abuse limits: messages per minute, message length, new visitors per address, files', async () => {
    const user = await t.createConsoleUser();
    const channel = await widgetChannel(user.token, { messagesPerMinute: 2, maxMessageLength: 10, newVisitorsPerIpPerMinute: 2 }, { disableAgentResponses: true });
    const start = await session({ channelId: channel.id });
    const me = visitor(start.body.token);
    const long = await me.send('x'.repeat(11));
    assert.deepEqual([long.status, long.body], [400, { message: 'Message too long: at most 10 characters', statusCode: 400 }]);
    const empty = await me.send('  ');
    assert.deepEqual([empty.status, empty.body], [400, { message: 'Type a message or attach a file', statusCode: 400 }]);
    assert.equal((await me.send('one')).status, 201);
    assert.equal((await me.send('two')).status, 201);
    const third = await me.send('three');
    assert.deepEqual([third.status, third.body], [429, { message: 'Too many messages: at most 2 a minute; wait a moment and try again', statusCode: 429 }]);

    assert.equal((await session({ channelId: channel.id })).status, 200); // the second new visitor of this address
    const flood = await session({ channelId: channel.id });
    assert.deepEqual([flood.status, flood.body], [429, { message: 'Too many new conversations from your network; try again in a minute', statusCode: 429 }]);
    assert.equal((await session({ channelId: channel.id, token: start.body.token })).status, 200, 'a returning visitor is not new');

    // Files: the same rules as send-message-universal.
    const other = await widgetChannel(user.token, {}, { disableAgentResponses: true });
    const fileVisitor = (await session({ channelId: other.id })).body.token;
    const upload = (files: { name: string; bytes: Buffer }[], text = 'see file') => {
      const form = new FormData();
      form.append('text', text);
      for (const file of files) form.append('files', new Blob([file.bytes]), file.name);
      return fetch(`${t.url}/widget/v1/messages`, { method: 'POST', headers: { authorization: `Bearer ${fileVisitor}` }, body: form });
    };
    const exe = await upload([{ name: 'setup.exe', bytes: Buffer.from('MZ\x90\x00\x03\x00\x00\x00', 'latin1') }]);
    assert.deepEqual([exe.status, await exe.json()], [400, { message: 'File type not accepted: setup.exe', statusCode: 400 }]);
    const many = await upload(Array.from({ length: 11 }, (_, i) => ({ name: `n${i}.txt`, bytes: Buffer.from('hello') })));
    assert.deepEqual([many.status, await many.json()], [400, { message: 'At most 10 files per message', statusCode: 400 }]);
    const good = await upload([{ name: 'notes.txt', bytes: Buffer.from('hello world') }], '');
    assert.equal(good.status, 201);
    const body = (await good.json()) as { message: WidgetMessage };
    assert.deepEqual(body.message.attachments.map((a) => (a as { name: string; contentType: string }).contentType), ['text/plain']);
  });
});

describe('several conversations per visitor', () => {
  test('a new conversation is a chat of its own; history, sending and the live stream follow the chosen one', async () => {
    const user = await t.createConsoleUser();
    const channel = await widgetChannel(user.token, {}, { disableAgentResponses: true });
    const start = (await session({ channelId: channel.id, identity: { identifier: 'x', name: 'Kim' } })).body;
    const auth = { authorization: `Bearer ${start.token}` };
    const list = () => t.request<{ conversations: { id: string; lastText: string | null }[] }>('GET', '/widget/v1/conversations', { headers: auth });
    assert.deepEqual((await list()).body.conversations.map((c) => [c.id, c.lastText]), [[start.visitorId, null]]);
    // While the newest conversation is empty, "new" gives it back.
    const same = await t.request<{ conversation: { id: string } }>('POST', '/widget/v1/conversations', { headers: auth });
    assert.deepEqual([same.status, same.body.conversation.id], [201, start.visitorId]);
    await visitor(start.token).send('about order 1');
    const fresh = await t.request<{ conversation: { id: string } }>('POST', '/widget/v1/conversations', { headers: auth });
    assert.equal(fresh.status, 201);
    const second = fresh.body.conversation.id;
    assert.notEqual(second, start.visitorId);
    // Without `conversation`, the newest one is used.
    assert.equal((await visitor(start.token).send('about order 2')).status, 201);
    const inFirst = await t.request<{ messages: WidgetMessage[] }>('GET', '/widget/v1/messages', { headers: auth, query: { conversation: start.visitorId } });
    assert.deepEqual(inFirst.body.messages.map((m) => m.text), ['about order 1']);
    const inSecond = await visitor(start.token).history();
    assert.deepEqual(inSecond.body.messages.map((m) => m.text), ['about order 2']);
    assert.deepEqual((await list()).body.conversations.map((c) => [c.id, c.lastText]), [
      [start.visitorId, 'about order 1'],
      [second, 'about order 2'],
    ]);
    const chats = await t.api<{ chats: { chatId: string; uniqueId: string; dialogName: string }[] }>(user.key, '/chats/chat', { channelId: channel.id });
    assert.deepEqual(
      chats.body.chats.map((c) => [c.chatId, c.uniqueId, c.dialogName]).sort(),
      [
        [start.visitorId, `${start.visitorId}_${channel.id}`, 'Kim'],
        [second, `${second}_${channel.id}`, 'Kim'],
      ].sort(),
    );
    // Someone else's conversation is not found.
    const other = (await session({ channelId: channel.id })).body;
    const foreign = await t.request('GET', '/widget/v1/messages', { headers: { authorization: `Bearer ${other.token}` }, query: { conversation: second } });
    assert.deepEqual([foreign.status, foreign.body], [404, { message: 'Conversation not found', statusCode: 404 }]);
    const sendForeign = await t.request('POST', '/widget/v1/messages', {
      headers: { authorization: `Bearer ${other.token}` },
      query: { conversation: second },
      body: { text: 'hijack' },
    });
    assert.equal(sendForeign.status, 404);
  });
});

describe('widget chats are chats of the spec', () => {
  test('pause and resume, off-hours auto-reply, tags, read, rating', async () => {
    const user = await t.createConsoleUser();
    const base = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ' } });
    await t.console(user.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, { body: { question: 'Where are you?', answer: 'In Berlin.' } });
    const channel = await widgetChannel(user.token, {}, { knowledgeBaseId: base.body.id });
    const start = await session({ channelId: channel.id });
    const me = visitor(start.body.token);
    await me.send('Where are you?');
    await eventually(async () => (await me.history()).body.messages.length === 2, 10_000);
    const chats = await t.console<{ chats: { id: string; chatId: string }[] }>(user.token, 'GET', '/chat/all-chats/');
    const chatId = chats.body.chats.find((c) => c.chatId === start.body.visitorId)?.id ?? '';

    // Paused: the agent stays silent.
    assert.equal((await t.console(user.token, 'POST', `/chat/pause-chat/${chatId}/`)).status, 200);
    await me.send('Where are you?');
    await eventually(async () => (await eventsOf(t.database.db, channel.id)).length === 3);
    const [idle] = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from jobs where kind = 'agent.reply'`);
    assert.equal(idle?.n ?? 0, 0);
    assert.equal((await me.history()).body.messages.length, 3);
    assert.equal((await t.console(user.token, 'POST', `/chat/resume-chat/${chatId}/`)).status, 200);

    // Tags, read, and a rating of the agent's reply through the public API.
    assert.equal((await t.api(user.key, '/chats/chat/tags/create', { tag: 'vip' })).status, 200);
    const tagged = await t.api(user.key, '/chats/chat/tags/tag-chat', { id: chatId, tag: 'vip' });
    assert.equal(tagged.status, 200, tagged.text);
    const listed = await t.api<{ chats: { id: string; unreadCount: number }[] }>(user.key, '/chats/chat', { tag: 'vip' });
    assert.deepEqual(listed.body.chats.map((c) => c.id), [chatId]);
    assert.equal((await t.api(user.key, '/chats/chat/read', { id: chatId })).status, 200);
    const read = await t.api<{ chats: { id: string; unreadCount: number }[] }>(user.key, '/chats/chat', { tag: 'vip' });
    assert.equal(read.body.chats[0]?.unreadCount, 0);
    const reply = (await me.history()).body.messages.find((m) => m.from === 'agent');
    const liked = await t.api(user.key, '/chats/chat/like', { messageId: reply?.id ?? '' });
    assert.equal(liked.status, 200, liked.text);

    // Outside working hours the auto-reply is sent instead.
    const closed = await widgetChannel(user.token, {}, {
      knowledgeBaseId: base.body.id,
      workingHours: { timeZone: 'UTC', intervals: [] },
      autoReply: 'We are closed; we answer tomorrow.',
    });
    const night = visitor((await session({ channelId: closed.id })).body.token);
    await night.send('Where are you?');
    const texts = (await night.history()).body.messages.map((m) => [m.from, m.text]);
    assert.deepEqual(texts, [['visitor', 'Where are you?'], ['agent', 'We are closed; we answer tomorrow.']]);
  });
});

describe('live stream', () => {
  function openLive(token: string, after?: string) {
    const socket = new WebSocket(`${t.url.replace('http', 'ws')}/widget/v1/live`);
    const frames: { type: string; message?: WidgetMessage; statusCode?: number; typing?: boolean }[] = [];
    socket.on('message', (data) => frames.push(JSON.parse(String(data)) as (typeof frames)[number]));
    const opened = new Promise<void>((resolve, reject) => {
      socket.once('open', () => {
        socket.send(JSON.stringify({ type: 'auth', token, ...(after ? { after } : {}) }));
        resolve();
      });
      socket.once('error', reject);
    });
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    const texts = () => frames.filter((f) => f.type === 'message').map((f) => f.message?.text);
    return { socket, frames, opened, closed, texts };
  }

  test('replies arrive live; after the server drops the socket, a reconnect gets the reply sent meanwhile', async () => {
    const user = await t.createConsoleUser();
    const channel = await widgetChannel(user.token, {}, { disableAgentResponses: true });
    const start = await session({ channelId: channel.id });
    const me = visitor(start.body.token);
    const first = await me.send('hello?');
    const chats = await t.console<{ chats: { id: string; chatId: string }[] }>(user.token, 'GET', '/chat/all-chats/');
    const chatId = chats.body.chats.find((c) => c.chatId === start.body.visitorId)?.id ?? '';

    const live = openLive(start.body.token, first.body.message?.id);
    await live.opened;
    await eventually(async () => live.frames.some((f) => f.type === 'ready'), 10_000);
    live.socket.send(JSON.stringify({ type: 'ping' }));
    await eventually(async () => live.frames.some((f) => f.type === 'pong'), 10_000);
    await t.console(user.token, 'POST', `/chat/messages/${chatId}/`, { body: { text: 'Live reply' } });
    await eventually(async () => live.texts().includes('Live reply'), 10_000);

    // The server drops every widget socket; a reply is sent while the visitor is away.
    for (const client of t.app.widgetConnections) client.terminate();
    await live.closed;
    await t.console(user.token, 'POST', `/chat/messages/${chatId}/`, { body: { text: 'Sent while away' } });
    const lastSeen = live.frames.filter((f) => f.type === 'message').at(-1)?.message?.id;
    const resumed = openLive(start.body.token, lastSeen);
    await resumed.opened;
    await eventually(async () => resumed.texts().includes('Sent while away'), 10_000);
    assert.equal(resumed.texts().filter((text) => text === 'Sent while away').length, 1);
    resumed.socket.close();
    await resumed.closed;
  });

  test('typing: the reply job says when the agent starts and stops preparing a reply, to the followed conversation only', async () => {
    const llm = await startFakeLlm();
    try {
      let release = () => {};
      const gate = new Promise<void>((resolve) => (release = resolve));
      llm.script('/v1/chat/completions', reply.after(gate, reply.text('Soon.')), reply.status(500));
      const user = await t.createConsoleUser();
      const engine = { kind: 'openai-compatible', baseUrl: `${llm.url}/v1`, model: 'test-model', timeoutSeconds: 120 };
      const channel = await widgetChannel(user.token, {}, { agentEngine: engine });
      const start = await session({ channelId: channel.id });
      const other = await session({ channelId: channel.id });
      const live = openLive(start.body.token);
      const elsewhere = openLive(other.body.token);
      await Promise.all([live.opened, elsewhere.opened]);
      await eventually(async () => live.frames.some((f) => f.type === 'ready') && elsewhere.frames.some((f) => f.type === 'ready'), 10_000);
      const kinds = () => live.frames.filter((f) => f.type !== 'ready').map((f) => (f.type === 'message' ? `message: ${f.message?.text}` : `typing: ${f.typing}`));

      await visitor(start.body.token).send('When?');
      await eventually(async () => kinds().includes('typing: true'), 10_000);
      await eventually(async () => llm.to('/v1/chat/completions').length === 1, 10_000);
      release();
      await eventually(async () => kinds().at(-1) === 'typing: false', 10_000);
      assert.deepEqual(kinds(), ['message: When?', 'typing: true', 'message: Soon.', 'typing: false']);
      // A reply that fails stops the indicator too.
      await visitor(start.body.token).send('And?');
      await eventually(async () => kinds().length === 7, 10_000);
      assert.deepEqual(kinds().slice(4), ['message: And?', 'typing: true', 'typing: false']);
      assert.equal(elsewhere.frames.some((f) => f.type === 'typing'), false);
      for (const socket of [live, elsewhere]) {
        socket.socket.close();
        await socket.closed;
      }
    } finally {
      await llm.close();
    }
  });

  test('a bad token is refused and closed; another visitor of the account sees nothing of this chat', async () => {
    const user = await t.createConsoleUser();
    const channel = await widgetChannel(user.token, {}, { disableAgentResponses: true });
    const bad = openLive('not-a-token');
    await bad.opened;
    assert.equal(await bad.closed, 4401);
    assert.deepEqual(bad.frames, [{ type: 'error', message: 'Your chat session is no longer valid; reload the page to start again', statusCode: 401 }]);

    const alice = (await session({ channelId: channel.id })).body;
    const eve = (await session({ channelId: channel.id })).body;
    const watching = openLive(eve.token);
    await watching.opened;
    await eventually(async () => watching.frames.some((f) => f.type === 'ready'), 10_000);
    await visitor(alice.token).send('my secret order');
    const aliceEvents = await eventually(async () => (await eventsOf(t.database.db, channel.id)).length === 1);
    assert.ok(aliceEvents);
    await visitor(eve.token).send('eve here');
    await eventually(async () => watching.texts().includes('eve here'), 10_000);
    assert.deepEqual(watching.texts(), ['eve here']);
    watching.socket.close();
    await watching.closed;
  });
});

describe('served files', () => {
  test('the loader, the frame page with frame-ancestors of the allowed origins, and the OpenAPI document', async () => {
    const user = await t.createConsoleUser();
    const channel = await widgetChannel(user.token, { allowedOrigins: [SITE, 'http://127.0.0.1:5555'] });
    const loader = await t.request('GET', '/widget.js');
    assert.equal(loader.status, 200);
    assert.match(loader.headers.get('content-type') ?? '', /javascript/);
    assert.ok(loader.text.includes('Open chat'));
    const frame = await t.request('GET', '/widget/frame', { query: { channel: channel.id } });
    assert.equal(frame.status, 200);
    assert.match(frame.headers.get('content-security-policy') ?? '', /frame-ancestors https:\/\/shop\.example http:\/\/127\.0\.0\.1:5555(;|$)/);
    // The frame talks (and takes the visitor token) only from these origins.
    assert.ok(frame.text.includes('<div id="app" data-origins="https://shop.example http://127.0.0.1:5555"></div>'), frame.text);
    const none = await widgetChannel(user.token, { allowedOrigins: [] });
    const closed = await t.request('GET', '/widget/frame', { query: { channel: none.id } });
    assert.match(closed.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    assert.ok(closed.text.includes('<div id="app" data-origins=""></div>'));
    assert.equal((await t.request('GET', '/widget/frame', { query: { channel: 'nope' } })).status, 404);
    const doc = await t.request<{ openapi: string; paths: Record<string, unknown> }>('GET', '/widget/v1/openapi.json');
    assert.equal(doc.status, 200);
    assert.deepEqual(Object.keys(doc.body.paths).sort(), ['/conversations', '/csat', '/embed', '/messages', '/session', '/visitor']);
  });
});
