// Telegram end to end against a fake Bot API on a local port: connect (setWebhook with the inbound URL and a
// secret), validate-tg-token, inbound messages through the customer-message path, the agent's and the team's
// replies sent with sendMessage, media, redeliveries, ban, 429 retry_after, a blocked bot, delete.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually } from './support/events.ts';
import { startFakeTelegram, type FakeTelegram } from './support/fake-telegram.ts';
import { PUBLIC_URL, startTestApp, type TestApp } from './support/harness.ts';
import { ANSWER, fileBytes, messengerAccount, QUESTION, sendsIdle, storedFor } from './support/messenger-setup.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';
import { oggOpus, png } from './fixtures/files/samples.ts';

const TOKEN = '123456789:AAHtesttesttesttesttesttest_token';
let t: TestApp;
let telegram: FakeTelegram;
let receiver: Receiver;
let account: Awaited<ReturnType<typeof messengerAccount>>;
let channelId: string;
let secret: string;
let updateId = 1000;

before(async () => {
  telegram = await startFakeTelegram();
  receiver = await startReceiver();
  telegram.addBot(TOKEN, { id: 123456789, username: 'parley_test_bot' });
  t = await startTestApp({
    webhookAllowPrivateNetworks: true,
    messengerApis: { telegram: telegram.url, meta: 'http://127.0.0.1:9', viber: 'http://127.0.0.1:9' },
  });
  account = await messengerAccount(t, receiver);
  const res = await account.connect('telegram', { botToken: TOKEN });
  assert.equal(res.status, 201, res.text);
  channelId = res.body.id;
  secret = telegram.webhooks.get(TOKEN)?.secretToken ?? '';
});
after(async () => {
  await t.close();
  await telegram.close();
  await receiver.close();
});

/** A Telegram update as Bot API posts it to the webhook. */
function update(chatId: number, message: Record<string, unknown>, id = ++updateId) {
  return {
    update_id: id,
    message: {
      message_id: id,
      from: { id: chatId, is_bot: false, first_name: 'Ada', last_name: 'Lovelace', username: 'ada' },
      chat: { id: chatId, first_name: 'Ada', last_name: 'Lovelace', username: 'ada', type: 'private' },
      date: Math.floor(Date.now() / 1000),
      ...message,
    },
  };
}

const post = (body: unknown, headers: Record<string, string> = { 'x-telegram-bot-api-secret-token': secret }, id = channelId) =>
  t.request('POST', `/channels/telegram/${id}/webhook`, { body, headers });

/** sendMessage calls to a chat, in order. */
const sentTo = (chatId: number) => telegram.calls('sendMessage').filter((call) => String(call.json?.chat_id) === String(chatId));

describe('connect', () => {
  test('setWebhook with the inbound URL and a generated secret; the view shows the URL, never the token', async () => {
    const [call] = telegram.calls('setWebhook');
    assert.ok(call);
    assert.equal(call.path, `/bot${TOKEN}/setWebhook`);
    assert.equal(call.json?.url, `${PUBLIC_URL}/channels/telegram/${channelId}/webhook`);
    assert.match(String(call.json?.secret_token), /^[A-Za-z0-9_-]{32,256}$/);
    assert.deepEqual(call.json?.allowed_updates, ['message', 'callback_query']);
    const view = await t.console<Record<string, unknown>>(account.user.token, 'GET', `/channel/telegram/${channelId}/`);
    assert.equal(view.status, 200);
    assert.equal(view.body.inboundUrl, `${PUBLIC_URL}/channels/telegram/${channelId}/webhook`);
    assert.equal(view.body.verifyToken, null);
    assert.equal(view.body.connectorError, null);
    assert.equal(view.body.credentialsSet, true);
    assert.ok(!view.text.includes(TOKEN.split(':')[1] as string) && !view.text.includes(secret), 'no secret in the view');
  });

  test("a refusal is a 400 with Telegram's description, and no channel is kept", async () => {
    telegram.refuseWebhooks('Bad Request: bad webhook: An HTTPS URL must be provided for webhook');
    try {
      const before = (await t.console<{ channels: unknown[] }>(account.user.token, 'GET', '/channels/all/')).body.channels.length;
      const res = await account.connect('telegram', { botToken: TOKEN });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, {
        message: 'The messenger refused: Bad Request: bad webhook: An HTTPS URL must be provided for webhook',
        statusCode: 400,
      });
      const after = (await t.console<{ channels: unknown[] }>(account.user.token, 'GET', '/channels/all/')).body.channels.length;
      assert.equal(after, before);
    } finally {
      telegram.refuseWebhooks(null);
    }
    // An unknown token: Telegram's 401 "Unauthorized".
    const unknown = await account.connect('telegram', { botToken: '999999999:AAHunknownunknownunknownunknown' });
    assert.equal(unknown.status, 400);
    assert.deepEqual(unknown.body, { message: 'The messenger refused: Unauthorized', statusCode: 400 });
  });

  test('validate-tg-token: getMe says valid or not; a malformed token is not sent; console login required', async () => {
    const validate = (token: string, as = account.user.token) =>
      t.console(as, 'POST', '/connect/validate-tg-token/', { body: { token } });
    const valid = await validate(TOKEN);
    assert.equal(valid.status, 200);
    assert.deepEqual(valid.body, { valid: true, bot: { id: 123456789, username: 'parley_test_bot' } });
    const calls = telegram.calls('getMe').length;
    assert.deepEqual((await validate('111111111:AAHnotabotnotabotnotabotnotabot')).body, { valid: false });
    assert.equal(telegram.calls('getMe').length, calls + 1);
    assert.deepEqual((await validate('not a token/../x')).body, { valid: false });
    assert.equal(telegram.calls('getMe').length, calls + 1, 'a malformed token never reaches Telegram');
    assert.equal((await validate(TOKEN, '')).status, 401);
    assert.equal((await t.console(account.user.token, 'POST', '/connect/validate-tg-token/', { body: { token: TOKEN, x: 1 } })).status, 400);
  });
});

describe('inbound', () => {
  test("a customer's text: the chat is created, the agent's answer is sent with sendMessage", async () => {
    const res = await post(update(5001, { text: QUESTION }));
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { ok: true });
    const chat = await account.chatOf(channelId, '5001');
    assert.equal(chat.uniqueId, `5001_${channelId}`);
    assert.equal(chat.dialogName, 'Ada Lovelace');
    assert.equal(chat.channelName, 'telegram');
    assert.equal(chat.isGroup, false);
    const [call] = await eventually(async () => sentTo(5001).length > 0 && sentTo(5001), 10_000);
    assert.deepEqual(call?.json, { chat_id: '5001', text: ANSWER });
    const messages = await account.messages(chat.id);
    assert.deepEqual(
      messages.map((m) => [m.role, m.text, m.senderName]),
      [
        ['user', QUESTION, 'Ada Lovelace'],
        ['assistant', ANSWER, null],
      ],
    );
    // The channel's webhook got both as new_messages, like any channel's.
    await eventually(async () => {
      const texts = receiver.requests.map((r) => JSON.parse(r.body) as { chat: { uniqueId: string }; messages: { text: string }[] });
      const ofChat = texts.filter((p) => p.chat.uniqueId === `5001_${channelId}`).flatMap((p) => p.messages.map((m) => m.text));
      return ofChat.includes(QUESTION) && ofChat.includes(ANSWER);
    }, 10_000);
  });

  test('a missing or wrong secret token: 401 and nothing stored; an unknown channel: 404', async () => {
    const stored = await storedFor(t, channelId);
    const missing = await post(update(5002, { text: 'hi' }), {});
    assert.equal(missing.status, 401);
    assert.deepEqual(missing.body, { message: 'Unauthorized', statusCode: 401 });
    const wrong = await post(update(5002, { text: 'hi' }), { 'x-telegram-bot-api-secret-token': `${secret}x` });
    assert.equal(wrong.status, 401);
    assert.deepEqual(await storedFor(t, channelId), stored);
    assert.equal((await post(update(5002, { text: 'hi' }), undefined, 'no-such-channel')).status, 404);
    assert.equal((await t.request('POST', `/channels/viber/${channelId}/webhook`, { body: {} })).status, 404, 'another kind');
    assert.equal((await t.request('POST', `/channels/fax/${channelId}/webhook`, { body: {} })).status, 400);
  });

  test('a redelivered update is stored once and answered once', async () => {
    const repeated = update(5003, { text: QUESTION });
    assert.equal((await post(repeated)).status, 200);
    assert.equal((await post(repeated)).status, 200);
    const chat = await account.chatOf(channelId, '5003');
    await eventually(async () => sentTo(5003).length === 1, 10_000);
    await eventually(() => sendsIdle(t), 10_000);
    assert.equal((await account.messages(chat.id)).filter((m) => m.role === 'user').length, 1);
    assert.equal(sentTo(5003).length, 1);
  });

  test("a banned chat's messages are ignored: not stored, not answered", async () => {
    assert.equal((await post(update(5004, { text: 'first' }))).status, 200);
    const chat = await account.chatOf(channelId, '5004');
    await account.ban(chat.uniqueId);
    await eventually(() => sendsIdle(t), 10_000);
    const sent = sentTo(5004).length;
    assert.equal((await post(update(5004, { text: QUESTION }))).status, 200);
    assert.deepEqual((await account.messages(chat.id)).map((m) => m.text).filter((text) => text === QUESTION), []);
    await eventually(() => sendsIdle(t), 10_000);
    assert.equal(sentTo(5004).length, sent);
  });

  test('a photo and a voice message are downloaded with getFile and stored as attachments; a location is a note', async () => {
    telegram.addFile('photo-big', 'photos/file_1.png', png());
    telegram.addFile('voice-1', 'voice/file_2.oga', oggOpus());
    await post(update(5005, { photo: [{ file_id: 'photo-small', width: 90, height: 90 }, { file_id: 'photo-big', width: 800, height: 800 }], caption: 'my cat' }));
    await post(update(5005, { voice: { file_id: 'voice-1', duration: 2, mime_type: 'audio/ogg' } }));
    await post(update(5005, { location: { latitude: 1, longitude: 2 } }));
    const chat = await account.chatOf(channelId, '5005');
    const messages = (await account.messages(chat.id)).filter((m) => m.role === 'user');
    assert.equal(messages.length, 3);
    const [photo, voice, location] = messages;
    assert.equal(photo?.text, 'my cat');
    assert.deepEqual(photo?.attachments.map((a) => [a.contentType, a.name, a.fileSize]), [['image/png', 'photo.png', png().length]]);
    assert.deepEqual(await fileBytes(t, photo?.attachments[0]?.url ?? ''), png());
    assert.equal(voice?.text, '');
    assert.deepEqual(voice?.attachments.map((a) => [a.contentType, a.name]), [['audio/ogg', 'voice.ogg']]);
    assert.deepEqual(await fileBytes(t, voice?.attachments[0]?.url ?? ''), oggOpus());
    assert.equal(location?.text, '[unsupported message: location]');
    assert.ok(telegram.calls('getFile').some((call) => call.json?.file_id === 'photo-big'), 'the largest size is taken');
  });
});

describe('outbound', () => {
  test('a team reply from the Inbox is sent; a long one in parts of at most 4096 characters', async () => {
    await post(update(5006, { text: 'hello' }));
    const chat = await account.chatOf(channelId, '5006');
    await eventually(() => sendsIdle(t), 10_000);
    const before = sentTo(5006).length;
    await account.teamReply(chat.id, 'A person here: how can I help?');
    await eventually(async () => sentTo(5006).length === before + 1, 10_000);
    assert.deepEqual(sentTo(5006).at(-1)?.json, { chat_id: '5006', text: 'A person here: how can I help?' });

    const long = Array.from({ length: 900 }, (_, i) => `word${i}`).join(' ') + '\n\n' + 'x'.repeat(500);
    assert.ok(long.length > 4096);
    await account.teamReply(chat.id, long);
    await eventually(async () => sentTo(5006).length >= before + 3, 10_000);
    const parts = sentTo(5006).slice(before + 1).map((call) => String(call.json?.text));
    assert.ok(parts.length >= 2 && parts.every((part) => part.length <= 4096));
    assert.equal(parts.join(' ').replace(/\s+/g, ' '), long.replace(/\s+/g, ' '));
  });

  test("429: the send waits Telegram's retry_after and then goes out", async () => {
    await post(update(5007, { text: 'hello' }));
    const chat = await account.chatOf(channelId, '5007');
    await eventually(() => sendsIdle(t), 10_000);
    const before = sentTo(5007).length;
    telegram.rateLimitNext(1, 1);
    await account.teamReply(chat.id, 'after the pause');
    await eventually(async () => sentTo(5007).length === before + 2, 15_000);
    const [limited, sent] = sentTo(5007).slice(before);
    assert.ok((sent?.at ?? 0) - (limited?.at ?? 0) >= 1000, 'retried after retry_after');
    assert.equal(sent?.json?.text, 'after the pause');
    await eventually(() => sendsIdle(t), 10_000);
    assert.deepEqual(await account.failures(channelId), []);
  });

  test('a blocked bot: the reply fails for good, is listed with the description, never retried', async () => {
    await post(update(5008, { text: 'bye' }));
    const chat = await account.chatOf(channelId, '5008');
    await eventually(() => sendsIdle(t), 10_000);
    telegram.block('5008');
    const before = sentTo(5008).length;
    const reply = await account.teamReply(chat.id, 'are you there?');
    const [failure] = await eventually(async () => {
      const list = await account.failures(channelId);
      return list.length > 0 && list;
    }, 10_000);
    assert.deepEqual(
      { ...failure, id: undefined },
      {
        id: undefined,
        channelId,
        channelType: 'telegram',
        chatId: chat.id,
        messageId: reply.id,
        error: 'Forbidden: bot was blocked by the user',
        attempts: 1,
        partsSent: 0,
        createdAt: failure?.createdAt,
        failedAt: failure?.failedAt,
      },
    );
    await eventually(() => sendsIdle(t), 10_000); // the job is gone: no retry queued
    assert.equal(sentTo(5008).length, before + 1);
    const view = await t.console<{ connectorError: { message: string; at: string } | null }>(account.user.token, 'GET', `/channel/telegram/${channelId}/`);
    assert.equal(view.body.connectorError?.message, 'Reply to chat 5008 not sent: Forbidden: bot was blocked by the user');

    // Another account sees none of it.
    const other = await t.createConsoleUser();
    const foreign = await t.console<{ failures: unknown[] }>(other.token, 'GET', '/channels/failures/', { query: { channelId } });
    assert.deepEqual(foreign.body, { failures: [] });
  });
});

describe('delete', () => {
  test('deleting the channel unregisters the webhook', async () => {
    const res = await account.connect('telegram', { botToken: TOKEN });
    assert.equal(res.status, 201);
    const deleted = await t.console(account.user.token, 'DELETE', `/channel/telegram/${res.body.id}/`);
    assert.deepEqual(deleted.body, { success: true });
    assert.equal(telegram.calls('deleteWebhook').length, 1);
    assert.equal(telegram.webhooks.has(TOKEN), false);
  });
});

describe('clarifying choices', () => {
  test('the options go out as an inline keyboard beside the text; a tap (callback_query) picks one', async () => {
    const bot = '223456789:AAHchoicechoicechoicechoice_token';
    telegram.addBot(bot, { id: 223456789, username: 'parley_choice_bot' });
    const bases = await t.console<{ knowledgeBases: { id: string }[] }>(account.user.token, 'GET', '/knowledge-bases');
    const baseId = bases.body.knowledgeBases[0]?.id;
    const cost = { question: 'How much does shipping cost?', answer: 'Shipping is free above 50 euros.' };
    assert.equal((await t.console(account.user.token, 'POST', `/knowledge-bases/${baseId}/entries`, { body: cost })).status, 201);
    const res = await account.connect('telegram', { botToken: bot }, { agentEngine: { kind: 'knowledge-base', answerThreshold: 1 } });
    assert.equal(res.status, 201, res.text);
    const choiceChannel = res.body.id;
    const choiceSecret = telegram.webhooks.get(bot)?.secretToken ?? '';
    const postTo = (body: unknown) => post(body, { 'x-telegram-bot-api-secret-token': choiceSecret }, choiceChannel);

    assert.equal((await postTo(update(7001, { text: 'shipping' }))).status, 200);
    const [asked] = await eventually(async () => sentTo(7001).length > 0 && sentTo(7001), 10_000);
    const text = String(asked?.json?.text);
    const lines = text.split('\n');
    assert.equal(lines[0], 'Did you mean one of these?');
    const labels = lines.slice(1, -1).map((line) => line.replace(/^\d\. /, ''));
    assert.deepEqual([...labels].sort(), [cost.question, QUESTION].sort());
    // The API's real shape: reply_markup.inline_keyboard, rows of { text, callback_data }.
    assert.deepEqual(asked?.json?.reply_markup, {
      inline_keyboard: [
        [{ text: labels[0], callback_data: '1' }],
        [{ text: labels[1], callback_data: '2' }],
        [{ text: 'Something else', callback_data: '0' }],
      ],
    });

    // The customer taps the cost option: Telegram posts a callback_query with the message it belongs to.
    const n = labels.indexOf(cost.question) + 1;
    const id = ++updateId;
    const tap = {
      update_id: id,
      callback_query: {
        id: `cb${id}`,
        from: { id: 7001, is_bot: false, first_name: 'Ada', last_name: 'Lovelace', username: 'ada' },
        message: { message_id: 1, chat: { id: 7001, first_name: 'Ada', last_name: 'Lovelace', type: 'private' }, date: Math.floor(Date.now() / 1000), text },
        chat_instance: '42',
        data: String(n),
      },
    };
    assert.equal((await postTo(tap)).status, 200);
    const calls = await eventually(async () => sentTo(7001).length > 1 && sentTo(7001), 10_000);
    assert.deepEqual(calls[1]?.json, { chat_id: '7001', text: cost.answer });
    const chat = await account.chatOf(choiceChannel, '7001');
    const messages = await account.messages(chat.id);
    assert.deepEqual(messages.map((m) => [m.role, m.text]).slice(-2), [['user', String(n)], ['assistant', cost.answer]]);
  });
});
