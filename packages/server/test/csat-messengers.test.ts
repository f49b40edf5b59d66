// Messenger CSAT end to end against the fake Bot API, Graph API and Viber API (docs/architecture.md, Outcomes and
// reports): when a messenger chat's conversation ends (the task marked done, or quiet time by the sweep) the customer
// is asked `How did we do?` once, with 1–5 as the messenger's native quick replies (Telegram's inline keyboard,
// WhatsApp's interactive list, Messenger's quick_replies, Viber's keyboard); their next 1–5 (a tap or the text) is the
// conversation's rating, counted in the summary (the question is a new_messages event like an auto-reply's), with no new conversation and no agent reply; anything else is an
// ordinary message; API (custom) and widget chats are not asked; the question is in the channel's language. The clock is the app's own, moved forward by the test; the
// sweep runs every 100 ms.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import type { LedgerConversation, ReportSummary } from '@parley/contracts';
import { queryRows } from '../src/db/client.ts';
import { eventually } from './support/events.ts';
import { startFakeMeta, type FakeMeta } from './support/fake-meta.ts';
import { startFakeTelegram, type FakeTelegram } from './support/fake-telegram.ts';
import { startFakeViber, type FakeViber } from './support/fake-viber.ts';
import { startTestApp, type TestApp } from './support/harness.ts';
import { ANSWER, messengerAccount, QUESTION, sendsIdle } from './support/messenger-setup.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

const QUESTION_TEXT = 'How did we do? Reply with a number from 1 to 5 (5 is best): 1, 2, 3, 4 or 5.';
const MINUTE = 60_000;
const BOT = '323456789:AAHcsatcsatcsatcsatcsatcsat_token';
const VIBER_AUTH = '6653b6ac12345678-e02c5f12174805f9-csatcsatcsat01';
const WA = { phoneNumberId: '2098', accessToken: 'wa-csat-token', appSecret: 'wa-csat-secret', verifyToken: 'wa-csat-verify' };
const FB = { pageId: '655', pageAccessToken: 'fb-csat-token', appSecret: 'fb-csat-secret', verifyToken: 'fb-csat-verify' };

let t: TestApp;
let telegram: FakeTelegram;
let meta: FakeMeta;
let viber: FakeViber;
let receiver: Receiver;
let account: Awaited<ReturnType<typeof messengerAccount>>;
const channels: Record<string, string> = {};
let offset = 0;
const clock = { now: () => new Date(Date.now() + offset) };
const today = () => clock.now().toISOString().slice(0, 10);
/** The reports' window: from before the test's first conversation (the clock moves a day forward) to today. */
const since = () => new Date(clock.now().getTime() - 3 * 24 * 60 * MINUTE).toISOString().slice(0, 10);
let sequence = 0;
let viberToken = 6741311803571721000n;

before(async () => {
  telegram = await startFakeTelegram();
  meta = await startFakeMeta();
  viber = await startFakeViber();
  receiver = await startReceiver();
  telegram.addBot(BOT, { id: 323456789, username: 'parley_csat_bot' });
  meta.addSender(WA.phoneNumberId, WA.accessToken);
  meta.addSender(FB.pageId, FB.pageAccessToken);
  viber.addBot(VIBER_AUTH);
  t = await startTestApp({
    clock,
    conversationSweepMs: 100,
    webhookAllowPrivateNetworks: true,
    messengerApis: { telegram: telegram.url, meta: meta.url, viber: viber.url },
  });
  account = await messengerAccount(t, receiver);
  for (const [kind, credentials] of [
    ['telegram', { botToken: BOT }],
    ['whatsapp', WA],
    ['facebook', FB],
    ['viber', { authToken: VIBER_AUTH }],
  ] as const) {
    const res = await account.connect(kind, credentials);
    assert.equal(res.status, 201, res.text);
    channels[kind] = res.body.id;
  }
});
after(async () => {
  await t.close();
  await telegram.close();
  await meta.close();
  await viber.close();
  await receiver.close();
});

// --- what each messenger posts, and what was sent to a customer ---

const telegramSecret = () => telegram.webhooks.get(BOT)?.secretToken ?? '';
const postTelegram = (body: unknown) =>
  t.request('POST', `/channels/telegram/${channels.telegram}/webhook`, { body, headers: { 'x-telegram-bot-api-secret-token': telegramSecret() } });
const tgFrom = (chatId: number) => ({ id: chatId, is_bot: false, first_name: 'Ada', last_name: 'Lovelace', username: 'ada' });
const tgChat = (chatId: number) => ({ id: chatId, first_name: 'Ada', last_name: 'Lovelace', type: 'private' });
const telegramText = (chatId: number, text: string) => {
  const id = ++sequence;
  return postTelegram({ update_id: id, message: { message_id: id, from: tgFrom(chatId), chat: tgChat(chatId), date: Math.floor(Date.now() / 1000), text } });
};
const telegramTap = (chatId: number, data: string) => {
  const id = ++sequence;
  return postTelegram({
    update_id: id,
    callback_query: {
      id: `cb${id}`,
      from: tgFrom(chatId),
      message: { message_id: 1, chat: tgChat(chatId), date: Math.floor(Date.now() / 1000), text: QUESTION_TEXT },
      chat_instance: '42',
      data,
    },
  });
};
const telegramSent = (chatId: number) => telegram.calls('sendMessage').filter((call) => String(call.json?.chat_id) === String(chatId));

const metaSign = (raw: string, secret: string) => `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
const postMeta = (kind: 'whatsapp' | 'facebook', body: unknown) => {
  const raw = JSON.stringify(body);
  const secret = kind === 'whatsapp' ? WA.appSecret : FB.appSecret;
  return t.request('POST', `/channels/${kind}/${channels[kind]}/webhook`, { body: raw, headers: { 'x-hub-signature-256': metaSign(raw, secret) } });
};
const whatsappMessage = (from: string, message: Record<string, unknown>) =>
  postMeta('whatsapp', {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: 'WABA-2',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550002098', phone_number_id: WA.phoneNumberId },
              contacts: [{ profile: { name: 'Grace Hopper' }, wa_id: from }],
              messages: [{ from, id: `wamid.${++sequence}`, timestamp: String(Math.floor(Date.now() / 1000)), ...message }],
            },
          },
        ],
      },
    ],
  });
const facebookMessage = (from: string, message: Record<string, unknown>) =>
  postMeta('facebook', {
    object: 'page',
    entry: [
      {
        id: FB.pageId,
        time: Date.now(),
        messaging: [{ sender: { id: from }, recipient: { id: FB.pageId }, timestamp: Date.now(), message: { mid: `m_${++sequence}`, ...message } }],
      },
    ],
  });
const metaSent = (recipient: string) =>
  meta.sends().filter((send) => String(send.body.to ?? (send.body.recipient as { id?: string } | undefined)?.id) === recipient);

const viberSign = (raw: string) => createHmac('sha256', VIBER_AUTH).update(raw).digest('hex');
const viberText = (senderId: string, text: string) => {
  const body = {
    event: 'message',
    timestamp: Date.now(),
    message_token: '__TOKEN__',
    sender: { id: senderId, name: 'Alan Turing', avatar: 'https://media-direct.cdn.viber.com/avatar.jpg', language: 'en', country: 'GB', api_version: 10 },
    message: { type: 'text', text },
  };
  const raw = JSON.stringify(body).replace('"__TOKEN__"', (++viberToken).toString());
  return t.request('POST', `/channels/viber/${channels.viber}/webhook`, { body: raw, headers: { 'x-viber-content-signature': viberSign(raw) } });
};
const viberSent = (receiverId: string) => viber.calls('send_message').filter((call) => call.json?.receiver === receiverId);

// --- the account's side ---

const ledger = async (): Promise<LedgerConversation[]> => {
  const res = await t.console<{ conversations: LedgerConversation[] }>(account.user.token, 'GET', '/reports/conversations', {
    query: { from: since(), to: today() },
  });
  assert.equal(res.status, 200, res.text);
  return res.body.conversations;
};
const summary = async (): Promise<ReportSummary> => {
  const res = await t.console<ReportSummary>(account.user.token, 'GET', '/reports/summary', { query: { from: since(), to: today() } });
  assert.equal(res.status, 200, res.text);
  return res.body;
};
const conversationsOf = async (chatId: string) => (await ledger()).filter((c) => c.chatId === chatId);
const markDone = async (chatId: string) => {
  const res = await t.console(account.user.token, 'POST', `/chat/status/${chatId}/`, { body: { status: 'done' } });
  assert.equal(res.status, 200, res.text);
};
const askedAt = async (chatId: string) =>
  (
    await queryRows<{ askedAt: string | null }>(
      t.database.db,
      sql`select csat_asked_at as "askedAt" from conversations where chat_id = ${chatId}::uuid order by started_at`,
    )
  ).map((row) => row.askedAt);
/** A customer question answered by the agent: the chat's id once the answer went out. */
async function answered(kind: string, externalChatId: string, sentCount: () => number, ask: () => Promise<{ status: number }>) {
  assert.equal((await ask()).status, 200);
  await eventually(async () => sentCount() > 0, 30_000);
  const chat = await account.chatOf(channels[kind] as string, externalChatId);
  return chat.id;
}
const RATING_LABELS = ['1', '2', '3', '4', '5'];

describe('messenger CSAT', () => {
  test('telegram: done asks once with an inline keyboard of 1–5; a tap of 5 rates it, confirms the agent, starts nothing', async () => {
    const chatId = await answered('telegram', '8001', () => telegramSent(8001).length, () => telegramText(8001, QUESTION));
    await markDone(chatId);
    const [, question] = await eventually(async () => telegramSent(8001).length > 1 && telegramSent(8001), 30_000);
    // The API's real shape, as the clarifying choices': reply_markup.inline_keyboard, rows of { text, callback_data }.
    assert.deepEqual(question?.json, {
      chat_id: '8001',
      text: QUESTION_TEXT,
      reply_markup: { inline_keyboard: RATING_LABELS.map((n) => [{ text: n, callback_data: n }]) },
    });
    assert.equal((await askedAt(chatId)).filter(Boolean).length, 1);
    // The channel's webhook hears of the question as of every auto-reply (new_messages).
    await eventually(async () => {
      const payloads = receiver.requests.map((r) => JSON.parse(r.body) as { chat?: { uniqueId: string }; messages?: { text: string }[] });
      return payloads.some((p) => p.chat?.uniqueId === `8001_${channels.telegram}` && p.messages?.some((m) => m.text === QUESTION_TEXT));
    }, 30_000);
    // Later sweeps ask no more.
    offset += 2 * MINUTE;
    await eventually(async () => (await sendsIdle(t)) && telegramSent(8001).length === 2, 30_000);

    assert.equal((await telegramTap(8001, '5')).status, 200);
    const [rated] = await eventually(async () => {
      const list = await conversationsOf(chatId);
      return list[0]?.csat === 5 && list;
    }, 30_000);
    assert.equal(rated?.outcome, 'resolved_by_agent');
    assert.equal(rated?.confirmed, true);
    assert.equal((await conversationsOf(chatId)).length, 1, 'the rating starts no conversation');
    await eventually(() => sendsIdle(t), 30_000);
    assert.equal(telegramSent(8001).length, 2, 'no agent reply to the rating');
    const messages = await account.messages(chatId);
    assert.deepEqual(
      messages.map((m) => [m.role, m.text]),
      [
        ['user', QUESTION],
        ['assistant', ANSWER],
        ['assistant', QUESTION_TEXT],
        ['user', '5'],
      ],
    );
    // A second 5 is an ordinary message: a new conversation, answered as usual.
    assert.equal((await telegramText(8001, '5')).status, 200);
    await eventually(async () => (await conversationsOf(chatId)).length === 2, 30_000);
  });

  test('whatsapp: quiet time asks with an interactive list of 1–5; the text " 4 " rates it; the summary counts it', async () => {
    const before = (await summary()).csat.agent;
    const from = '4915200001';
    const chatId = await answered('whatsapp', from, () => metaSent(from).length, () => whatsappMessage(from, { type: 'text', text: { body: QUESTION } }));
    offset += 24 * 60 * MINUTE + 2 * MINUTE; // the account's default resolution time: 24 hours
    const [, question] = await eventually(async () => metaSent(from).length > 1 && metaSent(from), 30_000);
    // More than WhatsApp's 3 reply buttons: the list the clarifying choices use, one row per number.
    assert.deepEqual(question?.body, {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: from,
      type: 'interactive',
      interactive: {
        type: 'list',
        body: { text: QUESTION_TEXT },
        action: { button: 'Choose', sections: [{ rows: RATING_LABELS.map((n) => ({ id: n, title: n })) }] },
      },
    });
    assert.equal((await whatsappMessage(from, { type: 'text', text: { body: ' 4 ' } })).status, 200);
    const [rated] = await eventually(async () => {
      const list = await conversationsOf(chatId);
      return list[0]?.csat === 4 && list;
    }, 30_000);
    assert.equal(rated?.confirmed, true);
    assert.equal((await conversationsOf(chatId)).length, 1);
    const after = (await summary()).csat.agent;
    assert.equal(after.count, before.count + 1);
    await eventually(() => sendsIdle(t), 30_000);
    assert.equal(metaSent(from).length, 2, 'no agent reply to the rating');
  });

  test('whatsapp: a tap on the list (list_reply) rates it too; 2 on an agent resolution confirms nothing', async () => {
    const from = '4915200002';
    const chatId = await answered('whatsapp', from, () => metaSent(from).length, () => whatsappMessage(from, { type: 'text', text: { body: QUESTION } }));
    await markDone(chatId);
    await eventually(async () => metaSent(from).length > 1, 30_000);
    const tap = { type: 'interactive', interactive: { type: 'list_reply', list_reply: { id: '2', title: '2' } } };
    assert.equal((await whatsappMessage(from, tap)).status, 200);
    const [rated] = await eventually(async () => {
      const list = await conversationsOf(chatId);
      return list[0]?.csat === 2 && list;
    }, 30_000);
    assert.equal(rated?.confirmed, false);
    assert.equal((await conversationsOf(chatId)).length, 1);
  });

  test('facebook: quick_replies 1–5 beside the text; a quick-reply tap (its payload) rates it', async () => {
    const from = '9100001';
    const chatId = await answered('facebook', from, () => metaSent(from).length, () => facebookMessage(from, { text: QUESTION }));
    await markDone(chatId);
    const [, question] = await eventually(async () => metaSent(from).length > 1 && metaSent(from), 30_000);
    assert.deepEqual(question?.body, {
      recipient: { id: from },
      messaging_type: 'RESPONSE',
      message: { text: QUESTION_TEXT, quick_replies: RATING_LABELS.map((n) => ({ content_type: 'text', title: n, payload: n })) },
    });
    assert.equal((await facebookMessage(from, { text: '3', quick_reply: { payload: '3' } })).status, 200);
    await eventually(async () => (await conversationsOf(chatId))[0]?.csat === 3, 30_000);
    assert.equal((await conversationsOf(chatId)).length, 1);
  });

  test('viber: a keyboard of 1–5; anything but 1–5 is an ordinary message that starts a conversation, and a 5 after it rates nothing', async () => {
    const user = 'csat-1==';
    const chatId = await answered('viber', user, () => viberSent(user).length, () => viberText(user, QUESTION));
    await markDone(chatId);
    const [, question] = await eventually(async () => viberSent(user).length > 1 && viberSent(user), 30_000);
    assert.equal(question?.json?.text, QUESTION_TEXT);
    // The API's real shape, as the clarifying choices': reply buttons whose ActionBody comes back as the text.
    assert.deepEqual(question?.json?.keyboard, {
      Type: 'keyboard',
      DefaultHeight: false,
      Buttons: RATING_LABELS.map((n) => ({ Columns: 6, Rows: 1, ActionType: 'reply', ActionBody: n, Text: n })),
    });

    assert.equal((await viberText(user, QUESTION)).status, 200);
    const calls = await eventually(async () => viberSent(user).length > 2 && viberSent(user), 30_000);
    assert.equal(calls[2]?.json?.text, ANSWER);
    await eventually(async () => (await conversationsOf(chatId)).length === 2, 30_000);
    // The question was answered by another message: this 5 belongs to the new conversation.
    assert.equal((await viberText(user, '5')).status, 200);
    await eventually(async () => {
      const list = await conversationsOf(chatId);
      const open = list.find((c) => c.endedAt === null);
      return open !== undefined && open.messages >= 3;
    }, 30_000);
    assert.deepEqual((await conversationsOf(chatId)).map((c) => c.csat), [null, null]);
  });

  test('viber: the text 5 rates the ended conversation', async () => {
    const user = 'csat-2==';
    const chatId = await answered('viber', user, () => viberSent(user).length, () => viberText(user, QUESTION));
    await markDone(chatId);
    await eventually(async () => viberSent(user).length > 1, 30_000);
    assert.equal((await viberText(user, '5')).status, 200);
    await eventually(async () => (await conversationsOf(chatId))[0]?.csat === 5, 30_000);
    assert.equal((await conversationsOf(chatId)).length, 1);
  });

  test("the question is in the channel's language (aiLang de)", async () => {
    const bot = '423456789:AAHdeutschdeutschdeutschdeu_token';
    telegram.addBot(bot, { id: 423456789, username: 'parley_de_bot' });
    const res = await account.connect('telegram', { botToken: bot }, { settings: { aiLang: 'de' } });
    assert.equal(res.status, 201, res.text);
    const secret = telegram.webhooks.get(bot)?.secretToken ?? '';
    const id = ++sequence;
    const update = { update_id: id, message: { message_id: id, from: tgFrom(8101), chat: tgChat(8101), date: Math.floor(Date.now() / 1000), text: QUESTION } };
    const posted = await t.request('POST', `/channels/telegram/${res.body.id}/webhook`, { body: update, headers: { 'x-telegram-bot-api-secret-token': secret } });
    assert.equal(posted.status, 200);
    await eventually(async () => telegramSent(8101).length > 0, 30_000);
    const chat = await account.chatOf(res.body.id, '8101');
    await markDone(chat.id);
    const [, question] = await eventually(async () => telegramSent(8101).length > 1 && telegramSent(8101), 30_000);
    assert.equal(question?.json?.text, 'Wie haben wir das gemacht? Antworten Sie mit einer Zahl von 1 bis 5 (5 ist am besten): 1, 2, 3, 4 oder 5.');
    assert.deepEqual(question?.json?.reply_markup, { inline_keyboard: RATING_LABELS.map((n) => [{ text: n, callback_data: n }]) });
  });

  test('API (custom) and widget chats are never asked', async () => {
    const created = await t.console<{ id: string }>(account.user.token, 'POST', '/channel/custom/connect/', {
      body: { name: 'API', knowledgeBaseId: account.baseId },
    });
    assert.equal(created.status, 201, created.text);
    const res = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
      headers: { authorization: account.user.key },
      body: { channel: 'custom', channelId: created.body.id, externalChatId: 'api-1', role: 'user', text: QUESTION },
    });
    assert.equal(res.status, 201, res.text);
    const chat = await account.chatOf(created.body.id, 'api-1');
    await eventually(async () => (await conversationsOf(chat.id))[0]?.messages === 2, 30_000);
    await markDone(chat.id);
    await eventually(async () => (await conversationsOf(chat.id))[0]?.endedAt !== null, 30_000);

    // A widget visitor's conversation (the widget asks in its frame, not with a message).
    const site = 'https://shop.example';
    const widget = await t.console<{ id: string }>(account.user.token, 'POST', '/channel/widget/connect/', {
      body: { name: 'Site chat', knowledgeBaseId: account.baseId, widget: { allowedOrigins: [site] } },
    });
    assert.equal(widget.status, 201, widget.text);
    const session = await t.request<{ token: string; visitorId: string }>('POST', '/widget/v1/session', { body: { origin: site, channelId: widget.body.id } });
    assert.equal(session.status, 200, session.text);
    const sent = await t.request('POST', '/widget/v1/messages', { body: { text: QUESTION }, headers: { authorization: `Bearer ${session.body.token}` } });
    assert.equal(sent.status, 201, sent.text);
    const widgetChat = await account.chatOf(widget.body.id, session.body.visitorId);
    await eventually(async () => (await conversationsOf(widgetChat.id))[0]?.messages === 2, 30_000);
    await markDone(widgetChat.id);
    await eventually(async () => (await conversationsOf(widgetChat.id))[0]?.endedAt !== null, 30_000);

    // A telegram conversation ended after them is asked: the sweep that asked it passed the API and widget chats over.
    const telegramChat = await answered('telegram', '8002', () => telegramSent(8002).length, () => telegramText(8002, QUESTION));
    await markDone(telegramChat);
    await eventually(async () => (await askedAt(telegramChat))[0] !== null, 30_000);
    assert.deepEqual(await askedAt(chat.id), [null]);
    assert.deepEqual((await account.messages(chat.id)).map((m) => m.text), [QUESTION, ANSWER]);
    assert.deepEqual(await askedAt(widgetChat.id), [null]);
    assert.deepEqual((await account.messages(widgetChat.id)).map((m) => m.text), [QUESTION, ANSWER]);
  });
});
