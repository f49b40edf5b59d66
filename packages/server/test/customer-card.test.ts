// The customer card's extras over HTTP against a real database (issue #34, item 5): the host page a widget session
// records (origin and path only, on the session's own origin), and `GET /console/v1/chat/customer/{chatId}/` — the
// visitor's other conversations in the channel and the account's other chats with the same e-mail, newest first, at
// most 10, and another account's chat a 404.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChatCustomer } from '@parley/contracts';
import { startReceiver, type Receiver } from './support/receiver.ts';
import { startTestApp, type TestApp } from './support/harness.ts';

const SITE = 'https://shop.example';

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

type User = Awaited<ReturnType<TestApp['createConsoleUser']>>;

async function widgetChannel(user: User, name: string): Promise<string> {
  const res = await t.console<{ id: string }>(user.token, 'POST', '/channel/widget/connect/', {
    body: { name, webhookUrl: `${receiver.url}/hook`, disableAgentResponses: true, widget: { allowedOrigins: [SITE], messagesPerMinute: 60 } },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.id;
}

async function startSession(body: Record<string, unknown>) {
  const res = await t.request<{ token: string; visitorId: string }>('POST', '/widget/v1/session', { body: { origin: SITE, ...body } });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

/** The visitor sends a message (in their newest conversation) and the chat it lands in is found by its text. */
async function say(user: User, token: string, text: string): Promise<string> {
  const sent = await t.request('POST', '/widget/v1/messages', { body: { text }, headers: { authorization: `Bearer ${token}` } });
  assert.equal(sent.status, 201, sent.text);
  const inbox = await t.console<{ chats: { id: string; text: string }[] }>(user.token, 'GET', '/chat/all-chats/');
  const chat = inbox.body.chats.find((c) => c.text === text);
  assert.ok(chat, `no chat for ${text}`);
  return chat.id;
}

async function newConversation(token: string): Promise<void> {
  const res = await t.request('POST', '/widget/v1/conversations', { headers: { authorization: `Bearer ${token}` } });
  assert.equal(res.status, 201, res.text);
}

const customerOf = (user: User, chatId: string) => t.console<ChatCustomer>(user.token, 'GET', `/chat/customer/${chatId}/`);

describe('the customer card', () => {
  test("a widget chat: the page without its query or fragment, the visitor's other conversations and the e-mail's chats", async () => {
    const user = await t.createConsoleUser();
    const site = await widgetChannel(user, 'Site chat');
    const help = await widgetChannel(user, 'Help centre');
    const identity = { identifier: 'ann-1', name: 'Ann', email: 'ann@example.com' };
    const visit = await startSession({ channelId: site, identity, page: `${SITE}/pricing/plans?token=secret#reset=1` });
    const first = await say(user, visit.token, 'first question');
    await newConversation(visit.token);
    const second = await say(user, visit.token, 'second question');
    // The same e-mail on another channel of the account: another visitor, another chat.
    const elsewhere = await startSession({ channelId: help, identity: { identifier: 'ann-2', name: 'A. N.', email: 'ann@example.com' }, page: `${SITE}/help` });
    const third = await say(user, elsewhere.token, 'third question');
    // Someone else on the same site: not listed.
    const stranger = await startSession({ channelId: site, page: `${SITE}/` });
    const strangers = await say(user, stranger.token, 'unrelated');

    const card = await customerOf(user, second);
    assert.equal(card.status, 200, card.text);
    assert.equal(card.body.page, `${SITE}/pricing/plans`);
    assert.deepEqual(
      card.body.otherChats.map((c) => [c.id, c.channelName, c.channelSettingsName, c.dialogName, c.text]),
      [
        [third, 'widget', 'Help centre', 'A. N.', 'third question'],
        [first, 'widget', 'Site chat', 'Ann', 'first question'],
      ],
    );
    assert.ok(card.body.otherChats.every((c) => !Number.isNaN(Date.parse(c.lastMessageDate))));
    assert.deepEqual((await customerOf(user, first)).body.otherChats.map((c) => c.id), [third, second]);
    const thirdCard = (await customerOf(user, third)).body;
    assert.deepEqual([thirdCard.page, thirdCard.otherChats.map((c) => c.id)], [`${SITE}/help`, [second, first]]);
    assert.deepEqual((await customerOf(user, strangers)).body, { page: `${SITE}/`, otherChats: [] });
  });

  test('a later session records its page; a page on another origin, not http(s) or too long is refused or ignored', async () => {
    const user = await t.createConsoleUser();
    const site = await widgetChannel(user, 'Site chat');
    const visit = await startSession({ channelId: site, page: `${SITE}/a` });
    const chat = await say(user, visit.token, 'hello');
    assert.equal((await customerOf(user, chat)).body.page, `${SITE}/a`);
    await startSession({ channelId: site, token: visit.token, page: `${SITE}/b#x` });
    assert.equal((await customerOf(user, chat)).body.page, `${SITE}/b`);
    // Another origin than the session's: kept as it was.
    await startSession({ channelId: site, token: visit.token, page: 'https://evil.example/phish' });
    assert.equal((await customerOf(user, chat)).body.page, `${SITE}/b`);
    for (const page of ['javascript:alert(1)', 'ftp://shop.example/x', `${SITE}/${'a'.repeat(2048)}`, '']) {
      const res = await t.request('POST', '/widget/v1/session', { body: { origin: SITE, channelId: site, token: visit.token, page } });
      assert.equal(res.status, 400, `${page.slice(0, 30)}: ${res.text}`);
    }
    assert.equal((await customerOf(user, chat)).body.page, `${SITE}/b`);
  });

  test('at most 10 other chats, newest activity first', async () => {
    const user = await t.createConsoleUser();
    const site = await widgetChannel(user, 'Site chat');
    const visit = await startSession({ channelId: site, identity: { identifier: 'busy', email: 'busy@example.com' } });
    const chats: string[] = [];
    for (let n = 0; n < 12; n += 1) {
      if (n > 0) await newConversation(visit.token);
      chats.push(await say(user, visit.token, `question ${n}`));
    }
    const card = await customerOf(user, chats[0] ?? '');
    assert.deepEqual(card.body.otherChats.map((c) => c.text), [11, 10, 9, 8, 7, 6, 5, 4, 3, 2].map((n) => `question ${n}`));
  });

  test("another account's chat is 404, as is an unknown id; no session is 401", async () => {
    const owner = await t.createConsoleUser();
    const other = await t.createConsoleUser();
    const site = await widgetChannel(owner, 'Site chat');
    const visit = await startSession({ channelId: site, page: `${SITE}/x` });
    const chat = await say(owner, visit.token, 'mine');
    const foreign = await customerOf(other, chat);
    assert.deepEqual([foreign.status, foreign.body], [404, { message: 'Chat not found', statusCode: 404 }]);
    assert.equal((await customerOf(owner, 'not-a-uuid')).status, 404);
    assert.equal((await customerOf(owner, '01900000-0000-7000-8000-000000000000')).status, 404);
    assert.equal((await t.console(undefined, 'GET', `/chat/customer/${chat}/`)).status, 401);
  });
});
