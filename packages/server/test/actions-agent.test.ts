// Agent actions with no model (issue #43), end to end over HTTP with a fake shop API on a local port: a widget visitor
// verified with `identifierHash` and a Telegram user (their user id) ask "where's my order 10482?" and get its real
// status; the verified identity is the only customer id ever sent (another customer's order is not theirs); a missing
// number is asked for, a wrong one asked again, then the fallback; a write is confirmed before it happens, or declined;
// a chat with no verified identity is handed to the team; the question survives a restart; the team sees each run in
// the chat's history, the customer and the webhooks never do; the reports count the conversations resolved with an
// action; a replay never runs a write and runs reads only when asked.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { eventually } from './support/events.ts';
import { openTestDatabase } from './support/database.ts';
import { startFakeShop, type FakeShop } from './support/fake-shop.ts';
import { startFakeTelegram, type FakeTelegram } from './support/fake-telegram.ts';
import { startTestApp, type TestApp } from './support/harness.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

const SITE = 'https://shop.example';
const IDENTITY_SECRET = 'widget-identity-secret-0123456789';
const SHOP_KEY = 'shop-key-abcdef0123456789';
const BOT_TOKEN = '123456789:AAHtesttesttesttesttesttest_token';
const ASK_NUMBER = 'What is your order number? It has 5 digits.';
const FALLBACK = "I'm not sure I understood. Could you put it another way? You can also ask for a person.";
const HANDOFF = 'I am passing your conversation to a member of our team; they will reply here as soon as they can.';

interface WidgetMessage {
  id: string;
  from: string;
  text: string;
}
interface HistoryItem {
  kind: string;
  id: string;
  role?: string;
  text?: string;
  action?: { id: string; name: string };
  actionKind?: string;
  parameters?: Record<string, unknown>;
  status?: number | null;
  outcome?: string;
  error?: string | null;
}

const hashOf = (identifier: string) => createHmac('sha256', IDENTITY_SECRET).update(identifier).digest('hex');

/** The shop's actions (the customer is the verified identity) and a knowledge base whose entries answer with them. */
async function setUpShop(t: TestApp, token: string, shop: FakeShop) {
  const create = async (body: Record<string, unknown>) => {
    const res = await t.console<{ id: string }>(token, 'POST', '/actions/', { body });
    assert.equal(res.status, 201, res.text);
    return res.body.id;
  };
  const parameters = [
    { name: 'customer', description: 'the customer', type: 'string', required: true, source: 'verified' },
    { name: 'order_number', description: 'the order number', type: 'string', pattern: '\\d{5}', required: true, prompt: ASK_NUMBER, source: 'customer' },
  ];
  const headers = { Authorization: { secret: `Bearer ${SHOP_KEY}` } };
  const status = await create({
    name: 'order_status',
    description: 'Look up where an order is',
    kind: 'read',
    method: 'GET',
    url: `${shop.url}/api/customers/{{customer}}/orders/{{order_number}}`,
    headers,
    parameters,
    answer: 'Order {{id}} is {{status}}, arriving {{eta}}.',
    errorAnswer: "I couldn't find that order in your account.",
  });
  const cancel = await create({
    name: 'cancel_order',
    description: 'Cancel the order',
    kind: 'write',
    method: 'POST',
    url: `${shop.url}/api/customers/{{customer}}/orders/{{order_number}}/cancel`,
    headers,
    body: { by: 'chat' },
    parameters,
    answer: 'Order {{id}} is now {{status}}.',
    errorAnswer: null,
  });
  const base = await t.console<{ id: string }>(token, 'POST', '/knowledge-bases', { body: { name: 'Shop', language: 'en' } });
  const entry = (body: Record<string, unknown>) => t.console(token, 'POST', `/knowledge-bases/${base.body.id}/entries`, { body });
  await entry({
    question: 'Where is my order?',
    synonyms: ["Where's my order?", 'Track my order', 'Order status', 'What is the status of my order?', 'Has my order shipped?', 'When will my order arrive?'],
    answer: 'Let me look.',
    actionId: status,
  });
  await entry({ question: 'Cancel my order', synonyms: ['I want to cancel my order', 'Please cancel my order', 'Can I cancel my order?'], answer: 'Let me cancel it.', actionId: cancel });
  // The rest of a shop's knowledge base: questions answered by their entries, no action.
  for (const [question, answer] of [
    ['How long does shipping take?', 'Shipping takes 3 to 5 business days.'],
    ['How do I return an item?', 'Send it back within 30 days with the label from your account.'],
    ['What payment methods do you accept?', 'Cards, PayPal and bank transfer.'],
    ['Do you ship abroad?', 'We ship to the EU and the UK.'],
    ['Do you have gift cards?', 'Yes, from 10 to 200 euros.'],
    ['How do I reset my password?', 'Use the "Forgot password" link on the login page.'],
    ['What are your opening hours?', 'Monday to Friday, 9:00 to 18:00.'],
  ]) {
    await entry({ question, answer });
  }
  return { status, cancel, knowledgeBaseId: base.body.id };
}

describe('no model: a widget visitor and a Telegram user', () => {
  let t: TestApp;
  let shop: FakeShop;
  let receiver: Receiver;
  let telegram: FakeTelegram;
  let owner: Awaited<ReturnType<TestApp['createConsoleUser']>>;
  let ids: Awaited<ReturnType<typeof setUpShop>>;
  let widgetId: string;

  before(async () => {
    shop = await startFakeShop();
    receiver = await startReceiver();
    telegram = await startFakeTelegram();
    telegram.addBot(BOT_TOKEN, { id: 123456789, username: 'shop_bot' });
    // The built-in sentence encoder, as a server runs by default: customers' questions are whole sentences.
    t = await startTestApp({
      webhookAllowPrivateNetworks: true,
      knowledgeEncoder: true,
      messengerApis: { telegram: telegram.url, meta: 'http://127.0.0.1:9', viber: 'http://127.0.0.1:9' },
    });
    owner = await t.createConsoleUser();
    ids = await setUpShop(t, owner.token, shop);
    const widget = await t.console<{ id: string }>(owner.token, 'POST', '/channel/widget/connect/', {
      body: {
        name: 'Shop chat',
        webhookUrl: `${receiver.url}/hook`,
        knowledgeBaseId: ids.knowledgeBaseId,
        actionIds: [ids.status, ids.cancel],
        widget: { allowedOrigins: [SITE], identitySecret: IDENTITY_SECRET, messagesPerMinute: 120 },
      },
    });
    assert.equal(widget.status, 201, widget.text);
    widgetId = widget.body.id;
    // The entries' sentence vectors are computed in the background: the questions are asked once they are there.
    await eventually(async () => {
      const [row] = await queryRows<{ pending: number }>(t.database.db, sql`select count(*)::int as pending from knowledge_entries where vectors_model is null`);
      return row?.pending === 0;
    }, 60_000);
  });
  after(async () => {
    await t.close();
    await shop.close();
    await receiver.close();
    await telegram.close();
  });

  /** A widget visitor (verified as `identifier` when given): sends a message and waits for the agent's next reply. */
  async function visitor(identifier?: string) {
    const identity = identifier ? { identifier, identifierHash: hashOf(identifier) } : undefined;
    const session = await t.request<{ token: string; visitorId: string; verified: boolean }>('POST', '/widget/v1/session', {
      body: { channelId: widgetId, origin: SITE, ...(identity ? { identity } : {}) },
    });
    assert.equal(session.status, 200, session.text);
    assert.equal(session.body.verified, identifier !== undefined);
    const auth = { authorization: `Bearer ${session.body.token}` };
    // A verified customer is the same visitor everywhere: each test talks in a conversation (a chat) of its own.
    const started = await t.request<{ conversation: { id: string } }>('POST', '/widget/v1/conversations', { headers: auth });
    assert.equal(started.status, 201, started.text);
    const conversation = started.body.conversation.id;
    const history = async () =>
      (await t.request<{ messages: WidgetMessage[] }>('GET', '/widget/v1/messages', { headers: auth, query: { conversation } })).body.messages;
    return {
      history,
      async ask(text: string): Promise<string> {
        const before = (await history()).filter((m) => m.from === 'agent').length;
        const sent = await t.request('POST', '/widget/v1/messages', { body: { text }, headers: auth });
        assert.equal(sent.status, 201, sent.text);
        const replies = await eventually(async () => {
          const agent = (await history()).filter((m) => m.from === 'agent');
          return agent.length > before && agent;
        });
        return replies.at(-1)?.text ?? '';
      },
      async chatId(): Promise<string> {
        const list = await t.console<{ chats: { id: string; chatId: string }[] }>(owner.token, 'GET', '/chat/all-chats/', { query: { channelId: widgetId } });
        const chat = list.body.chats.find((c) => c.chatId === conversation);
        assert.ok(chat, 'the visitor has a chat');
        return chat.id;
      },
    };
  }

  const consoleHistory = async (chatId: string) => {
    const res = await t.console<{ messages: HistoryItem[] }>(owner.token, 'GET', `/chat/messages/${chatId}/`);
    assert.equal(res.status, 200, res.text);
    return res.body.messages;
  };

  test("a verified visitor's \"where's my order 10482?\" gets its real status; the team sees the run, the customer and the webhook never do", async () => {
    const ada = await visitor('cust-ada');
    const reply = await ada.ask("Where's my order 10482?");
    assert.equal(reply, 'Order 10482 is shipped, arriving 2026-12-01.');
    const call = shop.to('/api/customers/').at(-1);
    assert.equal(call?.rawPath, '/api/customers/cust-ada/orders/10482');
    assert.equal(call?.headers.authorization, `Bearer ${SHOP_KEY}`);

    const chatId = await ada.chatId();
    const history = await consoleHistory(chatId);
    assert.deepEqual(history.map((item) => item.kind), ['message', 'action', 'message']);
    const run = history[1];
    assert.deepEqual(
      { action: run?.action?.name, kind: run?.actionKind, parameters: run?.parameters, status: run?.status, outcome: run?.outcome, error: run?.error },
      { action: 'order_status', kind: 'read', parameters: { customer: 'cust-ada', order_number: '10482' }, status: 200, outcome: 'ok', error: null },
    );
    // The customer's own view and the webhook have the messages only.
    assert.deepEqual((await ada.history()).map((m) => [m.from, m.text]), [
      ['visitor', "Where's my order 10482?"],
      ['agent', 'Order 10482 is shipped, arriving 2026-12-01.'],
    ]);
    await eventually(async () => receiver.requests.filter((r) => r.body.includes('Order 10482 is shipped')).length > 0);
    for (const request of receiver.requests) {
      assert.ok(!request.body.includes('order_status') && !request.body.includes(SHOP_KEY) && !request.body.includes('"action"'), request.body);
    }
    const runs = await t.console<{ runs: { chatId: string; outcome: string }[] }>(owner.token, 'GET', `/actions/${ids.status}/runs`);
    assert.equal(runs.body.runs[0]?.chatId, chatId);
    assert.ok(!JSON.stringify(history).includes(SHOP_KEY));
  });

  test('after a clarifying pick, the entry\'s action reads its values in the question that led to the choice', async () => {
    const ada = await visitor('cust-ada');
    const choices = await ada.ask("Hi! Where's my order 20001?");
    assert.match(choices, /^Did you mean one of these\?\n1\. Where is my order\?\n/);
    assert.equal(await ada.ask('1'), 'Order 20001 is delivered, arriving 2026-11-20.');
    assert.equal(shop.requests.at(-1)?.rawPath, '/api/customers/cust-ada/orders/20001');
  });

  test("another customer's order: the verified identity is sent (the shop finds no such order of theirs)", async () => {
    const ada = await visitor('cust-ada');
    const before = shop.requests.length;
    const reply = await ada.ask('What is the status of order 10483?');
    assert.equal(reply, "I couldn't find that order in your account.");
    const calls = shop.requests.slice(before);
    assert.deepEqual(calls.map((c) => c.rawPath), ['/api/customers/cust-ada/orders/10483']);
    assert.ok(!shop.requests.some((r) => r.rawPath.includes('cust-bob')), 'cust-bob was never sent');
  });

  test('a missing number is asked for (the prompt), read in the answer; a wrong one is asked again, then the fallback', async () => {
    const ada = await visitor('cust-ada');
    assert.equal(await ada.ask('Where is my order?'), ASK_NUMBER);
    assert.equal(await ada.ask('It is number 20001, thanks'), 'Order 20001 is delivered, arriving 2026-11-20.');

    const bea = await visitor('cust-ada');
    const before = shop.requests.length;
    assert.equal(await bea.ask('Track my order'), ASK_NUMBER);
    assert.equal(await bea.ask('I think it was 1234'), `Sorry, I couldn't read that. ${ASK_NUMBER}`);
    assert.equal(await bea.ask('no idea, sorry'), FALLBACK);
    assert.equal(shop.requests.length, before, 'no call with a wrong value');
  });

  test('a write is confirmed before it happens: yes runs it, no (or anything else) declines it', async () => {
    const ada = await visitor('cust-ada');
    const before = shop.requests.length;
    assert.equal(await ada.ask('I want to cancel my order 20001'), 'Shall I cancel the order for order number 20001? Reply yes or no.');
    assert.equal(shop.requests.length, before, 'nothing is sent before the yes');
    assert.equal(await ada.ask('Yes, please!'), 'Order 20001 is now cancelled.');
    const cancel = shop.requests.at(-1);
    assert.deepEqual([cancel?.method, cancel?.rawPath, cancel?.body], ['POST', '/api/customers/cust-ada/orders/20001/cancel', '{"by":"chat"}']);

    const again = await visitor('cust-ada');
    const count = shop.requests.length;
    assert.equal(await again.ask('Please cancel my order 10482'), 'Shall I cancel the order for order number 10482? Reply yes or no.');
    assert.equal(await again.ask('no'), 'All right, I have not done it.');
    assert.equal(await again.ask('Cancel my order 10482'), 'Shall I cancel the order for order number 10482? Reply yes or no.');
    assert.equal(await again.ask('what is the weather like?'), 'All right, I have not done it.');
    assert.equal(shop.requests.length, count, 'a declined write is never sent');
    assert.equal(shop.orders.get('10482')?.status, 'shipped');
    const history = await consoleHistory(await again.chatId());
    assert.deepEqual(history.filter((item) => item.kind === 'action').map((item) => [item.action?.name, item.outcome, item.status]), [
      ['cancel_order', 'declined', null],
      ['cancel_order', 'declined', null],
    ]);
  });

  test('a chat with no verified identity never runs an action needing one: it is handed to the team', async () => {
    const anonymous = await visitor();
    const before = shop.requests.length;
    assert.equal(await anonymous.ask("Where's my order 10482?"), HANDOFF);
    assert.equal(shop.requests.length, before);
    const chatId = await anonymous.chatId();
    const chat = await t.console<{ needsHuman: boolean; paused: boolean }>(owner.token, 'GET', `/chat/info/${chatId}/`);
    assert.deepEqual([chat.body.needsHuman, chat.body.paused], [true, true]);
    const notes = (await consoleHistory(chatId)).filter((item) => item.kind === 'note');
    assert.match(notes[0]?.text ?? '', /order_status needs a verified customer/);
  });

  test("Telegram: the user's id is the verified identity; the real status goes back with sendMessage", async () => {
    const connected = await t.console<{ id: string }>(owner.token, 'POST', '/channel/telegram/connect/', {
      body: { name: 'Shop bot', credentials: { botToken: BOT_TOKEN }, knowledgeBaseId: ids.knowledgeBaseId, actionIds: [ids.status] },
    });
    assert.equal(connected.status, 201, connected.text);
    shop.orders.set('30001', { id: '30001', customer: '777001', status: 'out for delivery', eta: 'today', items: [] });
    const secret = telegram.webhooks.get(BOT_TOKEN)?.secretToken ?? '';
    const update = (text: string, id: number) => ({
      update_id: id,
      message: {
        message_id: id,
        from: { id: 777001, is_bot: false, first_name: 'Tom' },
        chat: { id: 777001, first_name: 'Tom', type: 'private' },
        date: Math.floor(Date.now() / 1000),
        text,
      },
    });
    const post = (text: string, id: number) =>
      t.request('POST', `/channels/telegram/${connected.body.id}/webhook`, { body: update(text, id), headers: { 'x-telegram-bot-api-secret-token': secret } });
    assert.equal((await post("where's my order 30001?", 9001)).status, 200);
    const sent = await eventually(async () => telegram.calls('sendMessage').find((call) => String(call.json?.chat_id) === '777001'));
    assert.equal(sent.json?.text, 'Order 30001 is out for delivery, arriving today.');
    assert.equal(shop.requests.at(-1)?.rawPath, '/api/customers/777001/orders/30001');
  });

  test('reports: a conversation the agent resolved with an action counts as resolved with an action', async () => {
    const ada = await visitor('cust-ada');
    assert.equal(await ada.ask("Where's my order 10482?"), 'Order 10482 is shipped, arriving 2026-12-01.');
    const chatId = await ada.chatId();
    assert.equal((await t.console(owner.token, 'POST', `/chat/status/${chatId}/`, { body: { status: 'done' } })).status, 200);
    const today = new Date().toISOString().slice(0, 10);
    const summary = await t.console<{ resolvedWithAction: number; outcomes: { resolvedByAgent: number } }>(owner.token, 'GET', '/reports/summary', {
      query: { from: today, to: today, channelId: widgetId },
    });
    assert.equal(summary.status, 200, summary.text);
    assert.equal(summary.body.resolvedWithAction, 1);
    const ledger = await t.console<{ conversations: { chatId: string }[] }>(owner.token, 'GET', '/reports/conversations', {
      query: { from: today, to: today, only: 'with_action' },
    });
    assert.deepEqual(ledger.body.conversations.map((c) => c.chatId), [chatId]);
  });
});

describe('no model: the question about an action survives a restart', () => {
  test('the prompt asked by one process is answered in the next', async () => {
    const shop = await startFakeShop();
    const database = await openTestDatabase();
    try {
      const first = await startTestApp({ webhookAllowPrivateNetworks: true, database });
      const owner = await first.createConsoleUser();
      const order = await first.console<{ id: string }>(owner.token, 'POST', '/actions/', {
        body: {
          name: 'order_lookup',
          description: 'Look up an order',
          kind: 'read',
          method: 'GET',
          url: `${shop.url}/api/orders/{{order_number}}`,
          parameters: [{ name: 'order_number', description: 'order number', type: 'string', pattern: '\\d{5}', required: true, prompt: ASK_NUMBER, source: 'customer' }],
          answer: 'Order {{id}}: {{status}}.',
        },
      });
      const base = await first.console<{ id: string }>(owner.token, 'POST', '/knowledge-bases', { body: { name: 'Shop' } });
      await first.console(owner.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, {
        body: { question: 'Where is my order?', answer: 'Let me look.', actionId: order.body.id },
      });
      const channel = await first.console<{ id: string }>(owner.token, 'POST', '/channel/custom/connect/', {
        body: { name: 'API', knowledgeBaseId: base.body.id, actionIds: [order.body.id] },
      });
      const send = (app: TestApp, text: string, messageId: string) =>
        app.request('POST', '/api/v1/chats/chat/send-message-universal', {
          headers: { authorization: owner.key },
          body: { channel: 'custom', channelId: channel.body.id, externalChatId: 'restart-chat', role: 'user', text, messageId },
        });
      const replies = async (app: TestApp) => {
        const chats = await app.console<{ chats: { id: string }[] }>(owner.token, 'GET', '/chat/all-chats/', { query: { channelId: channel.body.id } });
        const chatId = chats.body.chats[0]?.id ?? '';
        const history = await app.console<{ messages: HistoryItem[] }>(owner.token, 'GET', `/chat/messages/${chatId}/`);
        return history.body.messages.filter((m) => m.kind === 'message' && m.role === 'assistant').map((m) => m.text);
      };
      assert.equal((await send(first, 'Where is my order?', 'm1')).status, 201);
      await eventually(async () => (await replies(first)).length === 1);
      assert.deepEqual(await replies(first), [ASK_NUMBER]);
      await first.close();

      const second = await startTestApp({ webhookAllowPrivateNetworks: true, database });
      try {
        assert.equal((await send(second, '10483', 'm2')).status, 201);
        await eventually(async () => (await replies(second)).length === 2);
        assert.deepEqual(await replies(second), [ASK_NUMBER, 'Order 10483: processing.']);
      } finally {
        await second.close();
      }
    } finally {
      await database.close();
      await shop.close();
    }
  });
});

describe('replay', () => {
  let t: TestApp;
  let shop: FakeShop;
  before(async () => {
    shop = await startFakeShop();
    t = await startTestApp({ webhookAllowPrivateNetworks: true });
  });
  after(async () => {
    await t.close();
    await shop.close();
  });

  test('a write is never run (wouldCall), a read only with callReadActions (a JSON field or a form field)', async () => {
    const owner = await t.createConsoleUser();
    const create = async (body: Record<string, unknown>) => (await t.console<{ id: string }>(owner.token, 'POST', '/actions/', { body })).body.id;
    const parameters = [{ name: 'order_number', description: 'order number', type: 'string', pattern: '\\d{5}', required: true, source: 'customer' }];
    const headers = { 'X-Api-Key': { secret: SHOP_KEY } };
    const lookup = await create({ name: 'order_lookup', description: 'Look up an order', kind: 'read', method: 'GET', url: `${shop.url}/api/orders/{{order_number}}`, headers, parameters, answer: 'Order {{id}} is {{status}}.' });
    const cancel = await create({ name: 'cancel_any', description: 'Cancel the order', kind: 'write', method: 'POST', url: `${shop.url}/echo/cancel/{{order_number}}`, parameters, answer: 'Cancelled.' });
    const base = await t.console<{ id: string }>(owner.token, 'POST', '/knowledge-bases', { body: { name: 'Shop' } });
    await t.console(owner.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, { body: { question: 'Where is my order?', answer: 'Let me look.', actionId: lookup } });
    await t.console(owner.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, { body: { question: 'Cancel my order', answer: 'Let me cancel.', actionId: cancel } });
    const channel = await t.console<{ id: string }>(owner.token, 'POST', '/channel/custom/connect/', {
      body: { name: 'API', knowledgeBaseId: base.body.id, actionIds: [lookup, cancel] },
    });
    const rows = [
      { question: 'Where is my order 10482?', answer: 'It has shipped.' },
      { question: 'Cancel my order 10482', answer: 'Done, cancelled.' },
    ];
    /** A replay of `rows` uploaded as a file (the form field `callReadActions` when given), done: its items. */
    const replay = async (callReadActions: boolean | undefined) => {
      const form = new FormData();
      form.append('channelId', channel.body.id);
      if (callReadActions !== undefined) form.append('callReadActions', String(callReadActions));
      form.append('file', new Blob([JSON.stringify(rows)], { type: 'application/json' }), 'past.json');
      const res = await fetch(`${t.url}/console/v1/replays/`, { method: 'POST', headers: { authorization: `Bearer ${owner.token}` }, body: form });
      const started = (await res.json()) as { id: string };
      assert.equal(res.status, 202, JSON.stringify(started));
      await eventually(async () => (await t.console<{ status: string }>(owner.token, 'GET', `/replays/${started.id}`)).body.status === 'done');
      const items = await t.console<{ items: { agentReply: string | null; verdict: string; wouldCall: string[] }[] }>(owner.token, 'GET', `/replays/${started.id}/items`);
      return items.body.items;
    };

    const before = shop.requests.length;
    const dry = await replay(undefined);
    assert.deepEqual(dry.map((item) => [item.agentReply, item.verdict, item.wouldCall]), [
      [null, 'differs', ['order_lookup']],
      ['Shall I cancel the order for order number 10482? Reply yes or no.', 'clarified', ['cancel_any']],
    ]);
    assert.equal(shop.requests.length, before, 'nothing was called');

    assert.ok(!JSON.stringify(dry).includes(SHOP_KEY));
    const reading = await replay(true);
    assert.ok(!JSON.stringify(reading).includes(SHOP_KEY), 'no secret in a replay');
    assert.equal(shop.requests.at(-1)?.headers['x-api-key'], SHOP_KEY);
    assert.deepEqual(reading.map((item) => [item.agentReply, item.wouldCall]), [
      ['Order 10482 is shipped.', []],
      ['Shall I cancel the order for order number 10482? Reply yes or no.', ['cancel_any']],
    ]);
    assert.deepEqual(shop.requests.slice(before).map((r) => `${r.method} ${r.rawPath}`), ['GET /api/orders/10482'], 'the read only, never the write');
    const runs = await t.console<{ runs: { chatId: string | null }[] }>(owner.token, 'GET', `/actions/${lookup}/runs`);
    assert.deepEqual(runs.body.runs.map((run) => run.chatId), [null]);

    // A history replay with the JSON field: no past conversations here, so nothing to replay, but the field is taken.
    const empty = await t.console(owner.token, 'POST', '/replays/', { body: { channelId: channel.body.id, source: 'history', callReadActions: true } });
    assert.equal(empty.status, 202, empty.text);
    const bad = await t.console(owner.token, 'POST', '/replays/', { body: { channelId: channel.body.id, source: 'history', callReadActions: 'yes' } });
    assert.equal(bad.status, 400);
  });
});
