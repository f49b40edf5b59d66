// Viber end to end against a fake REST bot API on a local port: set_webhook on connect and its refusal,
// X-Viber-Content-Signature over the raw body, inbound messages through the customer-message path, replies with
// send_message, media, redeliveries (message_token, a 64-bit integer), ban, an unsubscribed user listed, delete.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { eventually } from './support/events.ts';
import { startFakeViber, type FakeViber } from './support/fake-viber.ts';
import { PUBLIC_URL, startTestApp, type TestApp } from './support/harness.ts';
import { ANSWER, fileBytes, messengerAccount, QUESTION, sendsIdle, storedFor } from './support/messenger-setup.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';
import { mp3WithId3, png } from './fixtures/files/samples.ts';

const AUTH_TOKEN = '4453b6ac12345678-e02c5f12174805f9-daec9cbb5448c51f';
let t: TestApp;
let viber: FakeViber;
let receiver: Receiver;
let account: Awaited<ReturnType<typeof messengerAccount>>;
let channelId: string;
let token = 5741311803571721000n;

before(async () => {
  viber = await startFakeViber();
  receiver = await startReceiver();
  viber.addBot(AUTH_TOKEN);
  t = await startTestApp({
    webhookAllowPrivateNetworks: true,
    messengerApis: { telegram: 'http://127.0.0.1:9', meta: 'http://127.0.0.1:9', viber: viber.url },
  });
  account = await messengerAccount(t, receiver);
  const res = await account.connect('viber', { authToken: AUTH_TOKEN });
  assert.equal(res.status, 201, res.text);
  channelId = res.body.id;
});
after(async () => {
  await t.close();
  await viber.close();
  await receiver.close();
});

/** A Viber callback as raw JSON: `message_token` is written as the 64-bit integer Viber sends. */
function callback(senderId: string, message: Record<string, unknown>, messageToken = ++token): string {
  const body = {
    event: 'message',
    timestamp: Date.now(),
    message_token: '__TOKEN__',
    sender: { id: senderId, name: 'Alan Turing', avatar: 'https://media-direct.cdn.viber.com/avatar.jpg', language: 'en', country: 'GB', api_version: 10 },
    message,
  };
  return JSON.stringify(body).replace('"__TOKEN__"', messageToken.toString());
}

const sign = (raw: string, key = AUTH_TOKEN) => createHmac('sha256', key).update(raw).digest('hex');
const post = (raw: string, signature: string | null = sign(raw)) =>
  t.request('POST', `/channels/viber/${channelId}/webhook`, { body: raw, headers: signature === null ? {} : { 'x-viber-content-signature': signature } });
const sentTo = (receiverId: string) => viber.calls('send_message').filter((call) => call.json?.receiver === receiverId);

describe('connect', () => {
  test('set_webhook with the inbound URL and the auth token; a refusal is a 400 with Viber\'s message', async () => {
    const [call] = viber.calls('set_webhook');
    assert.equal(call?.headers['x-viber-auth-token'], AUTH_TOKEN);
    assert.equal(call?.json?.url, `${PUBLIC_URL}/channels/viber/${channelId}/webhook`);
    assert.equal(viber.webhooks.get(AUTH_TOKEN), `${PUBLIC_URL}/channels/viber/${channelId}/webhook`);
    viber.refuseWebhooks('invalidUrl');
    try {
      const refused = await account.connect('viber', { authToken: AUTH_TOKEN });
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body, { message: 'The messenger refused: invalidUrl', statusCode: 400 });
    } finally {
      viber.refuseWebhooks(null);
    }
    const badToken = await account.connect('viber', { authToken: 'not-a-viber-token' });
    assert.deepEqual(badToken.body, { message: 'The messenger refused: invalidAuthToken', statusCode: 400 });
  });
});

describe('inbound', () => {
  test("a customer's text: the chat is created with the sender's name and avatar; the agent's answer is sent", async () => {
    assert.equal((await post(callback('user-1==', { type: 'text', text: QUESTION }))).status, 200);
    const chat = await account.chatOf(channelId, 'user-1==');
    assert.equal(chat.uniqueId, `user-1==_${channelId}`);
    assert.equal(chat.dialogName, 'Alan Turing');
    assert.equal(chat.photo_100, 'https://media-direct.cdn.viber.com/avatar.jpg');
    const [call] = await eventually(async () => sentTo('user-1==').length > 0 && sentTo('user-1=='), 10_000);
    assert.equal(call?.headers['x-viber-auth-token'], AUTH_TOKEN);
    assert.deepEqual(call?.json, { receiver: 'user-1==', min_api_version: 1, sender: { name: 'Shop on viber' }, type: 'text', text: ANSWER });
  });

  test('a missing or wrong signature: 401, nothing stored; other events are acknowledged and store nothing', async () => {
    const stored = await storedFor(t, channelId);
    const raw = callback('user-2==', { type: 'text', text: 'hi' });
    assert.equal((await post(raw, null)).status, 401);
    assert.equal((await post(raw, sign(raw, 'another-token'))).status, 401);
    const seen = JSON.stringify({ event: 'seen', timestamp: Date.now(), message_token: 1, user_id: 'user-2==' });
    assert.equal((await post(seen)).status, 200);
    const check = JSON.stringify({ event: 'webhook', timestamp: Date.now(), chat_hostname: 'SN-CHAT-01_', message_token: 2 });
    assert.equal((await post(check)).status, 200);
    assert.deepEqual(await storedFor(t, channelId), stored);
  });

  test('a redelivered message_token is stored once; tokens beyond 2^53 stay distinct', async () => {
    const first = callback('user-3==', { type: 'text', text: 'one' }, 5741311803571721087n);
    const second = callback('user-3==', { type: 'text', text: 'two' }, 5741311803571721088n);
    assert.equal((await post(first)).status, 200);
    assert.equal((await post(first)).status, 200);
    assert.equal((await post(second)).status, 200);
    const chat = await account.chatOf(channelId, 'user-3==');
    assert.deepEqual((await account.messages(chat.id)).filter((m) => m.role === 'user').map((m) => m.text), ['one', 'two']);
  });

  test('a banned chat ignores new messages', async () => {
    await post(callback('user-4==', { type: 'text', text: 'first' }));
    const chat = await account.chatOf(channelId, 'user-4==');
    await account.ban(chat.uniqueId);
    await eventually(() => sendsIdle(t), 10_000);
    const sent = sentTo('user-4==').length;
    assert.equal((await post(callback('user-4==', { type: 'text', text: QUESTION }))).status, 200);
    assert.deepEqual((await account.messages(chat.id)).filter((m) => m.role === 'user').map((m) => m.text), ['first']);
    await eventually(() => sendsIdle(t), 10_000);
    assert.equal(sentTo('user-4==').length, sent);
  });

  test('a picture and an audio file are downloaded and stored (Viber bots get no voice messages); a location is a note', async () => {
    await post(callback('user-5==', { type: 'picture', text: 'look', media: viber.mediaUrl('cat.png', png()), thumbnail: '' }));
    await post(callback('user-5==', { type: 'file', media: viber.mediaUrl('note.mp3', mp3WithId3()), file_name: 'note.mp3', size: mp3WithId3().length }));
    await post(callback('user-5==', { type: 'location', location: { lat: 1, lon: 2 } }));
    const chat = await account.chatOf(channelId, 'user-5==');
    const [picture, audio, location] = (await account.messages(chat.id)).filter((m) => m.role === 'user');
    assert.equal(picture?.text, 'look');
    assert.deepEqual(picture?.attachments.map((a) => [a.contentType, a.name]), [['image/png', 'picture.png']]);
    assert.deepEqual(await fileBytes(t, picture?.attachments[0]?.url ?? ''), png());
    assert.deepEqual(audio?.attachments.map((a) => [a.contentType, a.name]), [['audio/mpeg', 'note.mp3']]);
    assert.deepEqual(await fileBytes(t, audio?.attachments[0]?.url ?? ''), mp3WithId3());
    assert.equal(location?.text, '[unsupported message: location]');
  });
});

describe('outbound', () => {
  test('a team reply is sent with send_message', async () => {
    await post(callback('user-6==', { type: 'text', text: 'hello' }));
    const chat = await account.chatOf(channelId, 'user-6==');
    await eventually(() => sendsIdle(t), 10_000);
    const before = sentTo('user-6==').length;
    await account.teamReply(chat.id, 'A person here.');
    await eventually(async () => sentTo('user-6==').length === before + 1, 10_000);
    assert.equal(sentTo('user-6==').at(-1)?.json?.text, 'A person here.');
  });

  test('an unsubscribed user: the reply fails for good and is listed', async () => {
    await post(callback('user-7==', { type: 'text', text: 'hello' }));
    const chat = await account.chatOf(channelId, 'user-7==');
    await eventually(() => sendsIdle(t), 10_000);
    viber.unsubscribe('user-7==');
    const reply = await account.teamReply(chat.id, 'still there?');
    const failure = await eventually(async () => (await account.failures(channelId)).find((f) => f.messageId === reply.id), 10_000);
    assert.equal(failure.error, 'notSubscribed');
    assert.equal(failure.channelType, 'viber');
    await eventually(() => sendsIdle(t), 10_000);
  });
});

describe('delete', () => {
  test('deleting the channel removes the webhook (set_webhook with an empty url)', async () => {
    const deleted = await t.console(account.user.token, 'DELETE', `/channel/viber/${channelId}/`);
    assert.deepEqual(deleted.body, { success: true });
    assert.equal(viber.calls('set_webhook').at(-1)?.json?.url, '');
    assert.equal(viber.webhooks.has(AUTH_TOKEN), false);
  });
});

describe('clarifying choices', () => {
  test('the options go out as a keyboard beside the text; a button reply (its number) picks one', async () => {
    const auth = '5553b6ac12345678-e02c5f12174805f9-choicechoice01';
    viber.addBot(auth);
    const bases = await t.console<{ knowledgeBases: { id: string }[] }>(account.user.token, 'GET', '/knowledge-bases');
    const baseId = bases.body.knowledgeBases[0]?.id;
    const cost = { question: 'How much does shipping cost?', answer: 'Shipping is free above 50 euros.' };
    assert.equal((await t.console(account.user.token, 'POST', `/knowledge-bases/${baseId}/entries`, { body: cost })).status, 201);
    const res = await account.connect('viber', { authToken: auth }, { agentEngine: { kind: 'knowledge-base', answerThreshold: 1 } });
    assert.equal(res.status, 201, res.text);
    const postTo = (raw: string) =>
      t.request('POST', `/channels/viber/${res.body.id}/webhook`, { body: raw, headers: { 'x-viber-content-signature': sign(raw, auth) } });

    assert.equal((await postTo(callback('choice-1==', { type: 'text', text: 'shipping' }))).status, 200);
    const [asked] = await eventually(async () => sentTo('choice-1==').length > 0 && sentTo('choice-1=='), 10_000);
    const lines = String(asked?.json?.text).split('\n');
    assert.equal(lines[0], 'Did you mean one of these?');
    const labels = lines.slice(1, -1).map((line) => line.replace(/^\d\. /, ''));
    assert.deepEqual([...labels].sort(), [cost.question, QUESTION].sort());
    // The API's real shape: keyboard { Type: 'keyboard', Buttons: [{ ActionType: 'reply', ActionBody, Text }] }.
    const button = (body: string, text: string) => ({ Columns: 6, Rows: 1, ActionType: 'reply', ActionBody: body, Text: text });
    assert.deepEqual(asked?.json?.keyboard, {
      Type: 'keyboard',
      DefaultHeight: false,
      Buttons: [button('1', labels[0] as string), button('2', labels[1] as string), button('0', 'Something else')],
    });

    // A reply button sends its ActionBody as the customer's text message.
    const n = labels.indexOf(cost.question) + 1;
    assert.equal((await postTo(callback('choice-1==', { type: 'text', text: String(n) }))).status, 200);
    const calls = await eventually(async () => sentTo('choice-1==').length > 1 && sentTo('choice-1=='), 10_000);
    assert.equal(calls[1]?.json?.text, cost.answer);
    assert.equal(calls[1]?.json?.keyboard, undefined);
  });
});
