// A correctly signed messenger update carrying text PostgreSQL cannot store (a lone UTF-16 surrogate, a NUL) on
// each of the five kinds: the messenger would re-send an update answered with an error forever, so it is stored
// with U+FFFD in place of each such character, answered 200, and logged once without its content.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { eventsOf, eventually } from './support/events.ts';
import { startFakeMeta, type FakeMeta } from './support/fake-meta.ts';
import { startFakeTelegram, type FakeTelegram } from './support/fake-telegram.ts';
import { startFakeViber, type FakeViber } from './support/fake-viber.ts';
import { startTestApp, type TestApp } from './support/harness.ts';
import { messengerAccount, sendsIdle } from './support/messenger-setup.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

const TELEGRAM_TOKEN = '123456789:AAHtesttesttesttesttesttest_token';
const VIBER_TOKEN = '4453b6ac12345678-e02c5f12174805f9-daec9cbb5448c51f';
const META = {
  whatsapp: { credentials: { phoneNumberId: '1098', accessToken: 'wa-token', appSecret: 'wa-secret', verifyToken: 'wa-verify' } },
  facebook: { credentials: { pageId: '555', pageAccessToken: 'fb-token', appSecret: 'fb-secret', verifyToken: 'fb-verify' } },
  instagram: { credentials: { accountId: '777', accessToken: 'ig-token', appSecret: 'ig-secret', verifyToken: 'ig-verify' } },
};

/** A lone high surrogate, a NUL and a lone low surrogate: JSON.stringify writes them as the escapes \ud800, \u0000, \udfff. */
const TEXT = 'Hi \ud800 there\u0000, \udfff bye';
const NAME = 'Ada\u0000 Love\ud800lace';
const STORED_TEXT = 'Hi \ufffd there\ufffd, \ufffd bye';
const STORED_NAME = 'Ada\ufffd Love\ufffdlace';
const WARNING = 'messenger update had text the database cannot store';

let t: TestApp;
let telegram: FakeTelegram;
let meta: FakeMeta;
let viber: FakeViber;
let receiver: Receiver;
let account: Awaited<ReturnType<typeof messengerAccount>>;

before(async () => {
  [telegram, meta, viber, receiver] = await Promise.all([startFakeTelegram(), startFakeMeta(), startFakeViber(), startReceiver()]);
  telegram.addBot(TELEGRAM_TOKEN, { id: 123456789, username: 'parley_test_bot' });
  viber.addBot(VIBER_TOKEN);
  meta.addSender('1098', 'wa-token');
  meta.addSender('555', 'fb-token');
  meta.addSender('777', 'ig-token');
  t = await startTestApp({
    webhookAllowPrivateNetworks: true,
    messengerApis: { telegram: telegram.url, meta: meta.url, viber: viber.url },
  });
  account = await messengerAccount(t, receiver);
});
after(async () => {
  await t.close();
  await Promise.all([telegram.close(), meta.close(), viber.close(), receiver.close()]);
});

interface Kind {
  credentials: Record<string, string>;
  /** The raw update (text, sender name) and the headers that sign it. */
  update(channelId: string, chatId: string, text: string, name: string): { raw: string; headers: Record<string, string> };
  /** The chat's id and the names stored for a sender name: Messenger and Instagram updates carry no name, only the sender's id. */
  expected(name: string): { chatId: (sent: string) => string; dialogName: string; senderName: string };
}

const metaSignature = (secret: string, raw: string) => ({ 'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}` });
const messagingUpdate = (object: string, pageId: string, secret: string) => (_channelId: string, chatId: string, text: string, name: string) => {
  // The sender's id is all Messenger and Instagram say about the sender: it carries the bad characters here.
  const raw = JSON.stringify({
    object,
    entry: [{ id: pageId, time: Date.now(), messaging: [{ sender: { id: `${chatId}${name}` }, recipient: { id: pageId }, timestamp: Date.now(), message: { mid: `m_${chatId}`, text } }] }],
  });
  return { raw, headers: metaSignature(secret, raw) };
};

const KINDS: Record<'telegram' | 'whatsapp' | 'facebook' | 'instagram' | 'viber', Kind> = {
  telegram: {
    credentials: { botToken: TELEGRAM_TOKEN },
    update(_channelId, chatId, text, name) {
      const [first, last] = name.split(' ');
      const person = { first_name: first, last_name: last, username: 'ada' };
      const raw = JSON.stringify({
        update_id: Number(chatId),
        message: { message_id: 1, from: { id: Number(chatId), is_bot: false, ...person }, chat: { id: Number(chatId), ...person, type: 'private' }, date: 1, text },
      });
      return { raw, headers: { 'x-telegram-bot-api-secret-token': telegram.webhooks.get(TELEGRAM_TOKEN)?.secretToken ?? '' } };
    },
    expected: (name) => ({ chatId: (sent) => sent, dialogName: name, senderName: name }),
  },
  whatsapp: {
    credentials: META.whatsapp.credentials,
    update(_channelId, chatId, text, name) {
      const value = {
        messaging_product: 'whatsapp',
        metadata: { display_phone_number: '15550001098', phone_number_id: '1098' },
        contacts: [{ profile: { name }, wa_id: chatId }],
        messages: [{ from: chatId, id: `wamid.${chatId}`, timestamp: '1', type: 'text', text: { body: text } }],
      };
      const raw = JSON.stringify({ object: 'whatsapp_business_account', entry: [{ id: 'WABA-1', changes: [{ field: 'messages', value }] }] });
      return { raw, headers: metaSignature('wa-secret', raw) };
    },
    expected: (name) => ({ chatId: (sent) => sent, dialogName: name, senderName: name }),
  },
  facebook: {
    credentials: META.facebook.credentials,
    update: messagingUpdate('page', '555', 'fb-secret'),
    expected: (name) => ({ chatId: (sent) => `${sent}${name}`, dialogName: 'Unknown visitor', senderName: 'Unknown visitor' }),
  },
  instagram: {
    credentials: META.instagram.credentials,
    update: messagingUpdate('instagram', '777', 'ig-secret'),
    expected: (name) => ({ chatId: (sent) => `${sent}${name}`, dialogName: 'Unknown visitor', senderName: 'Unknown visitor' }),
  },
  viber: {
    credentials: { authToken: VIBER_TOKEN },
    update(_channelId, chatId, text, name) {
      const raw = JSON.stringify({
        event: 'message',
        timestamp: Date.now(),
        message_token: Number(chatId),
        sender: { id: chatId, name, avatar: 'https://media-direct.cdn.viber.com/avatar.jpg', api_version: 10 },
        message: { type: 'text', text },
      });
      return { raw, headers: { 'x-viber-content-signature': createHmac('sha256', VIBER_TOKEN).update(raw).digest('hex') } };
    },
    expected: (name) => ({ chatId: (sent) => sent, dialogName: name, senderName: name }),
  },
};

let sequence = 700_000;
for (const [kind, setup] of Object.entries(KINDS)) {
  describe(kind, () => {
    let channelId: string;
    let warnings = 0;
    before(async () => {
      const res = await account.connect(kind, setup.credentials);
      assert.equal(res.status, 201, res.text);
      channelId = res.body.id;
    });

    // Lone surrogates alone pass the driver's UTF-8 encoding and fail in PostgreSQL's json type (22P02, was a 500);
    // a NUL fails in text columns (22021, was a 400). Either answer makes the messenger send the update again.
    const variants = [
      { label: 'lone surrogates', text: 'Hi \ud800 there, \udfff bye', name: 'Ada Love\ud800lace', storedText: 'Hi \ufffd there, \ufffd bye', storedName: 'Ada Love\ufffdlace' },
      { label: 'a lone surrogate and a NUL', text: TEXT, name: NAME, storedText: STORED_TEXT, storedName: STORED_NAME },
    ];
    for (const variant of variants) {
      test(`${variant.label} in the text and the sender: 200, stored with U+FFFD, one warning without the content`, async () => {
        const chatId = String(++sequence);
        const { raw, headers } = setup.update(channelId, chatId, variant.text, variant.name);
        assert.ok(raw.includes('\\ud800'), 'the raw body carries the escapes');

        const res = await t.request('POST', `/channels/${kind}/${channelId}/webhook`, { body: raw, headers });
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.body, { ok: true });

        const expected = setup.expected(variant.storedName);
        const chat = await account.chatOf(channelId, expected.chatId(chatId));
        assert.equal(chat.dialogName, expected.dialogName);
        const [message, ...others] = (await account.messages(chat.id)).filter((m) => m.role === 'user');
        assert.equal(message?.text, variant.storedText);
        assert.equal(message?.senderName, expected.senderName);
        assert.equal(others.length, 0);
        const events = await eventsOf(t.database.db, channelId);
        assert.ok(JSON.stringify(events.map((e) => e.payload)).includes(JSON.stringify(variant.storedText)), 'the new_messages event carries the stored text');

        const warningsOf = () => t.logs.filter((line) => line.includes(WARNING) && line.includes(channelId));
        const before = warnings;
        assert.equal(warningsOf().length, before + 1, warningsOf().join('\n'));
        const warning = JSON.parse(warningsOf().at(-1) ?? '{}') as Record<string, unknown>;
        assert.equal(warning.level, 40);
        assert.equal(warning.kind, kind);
        assert.ok(!/Hi |there|Ada|Love|\\u|\ufffd/.test(warningsOf().at(-1) ?? ''), `no content in the warning: ${warningsOf().at(-1)}`);

        // A redelivery (messengers may send one anyway) is stored once; a clean update draws no warning.
        assert.equal((await t.request('POST', `/channels/${kind}/${channelId}/webhook`, { body: raw, headers })).status, 200);
        assert.equal((await account.messages(chat.id)).filter((m) => m.role === 'user').length, 1);
        warnings = warningsOf().length;
        const cleanId = String(++sequence);
        const clean = setup.update(channelId, cleanId, 'plain text', 'Grace Hopper');
        assert.equal((await t.request('POST', `/channels/${kind}/${channelId}/webhook`, { body: clean.raw, headers: clean.headers })).status, 200);
        await account.chatOf(channelId, setup.expected('Grace Hopper').chatId(cleanId));
        assert.equal(warningsOf().length, warnings);
        await eventually(() => sendsIdle(t), 10_000);
      });
    }
  });
}
