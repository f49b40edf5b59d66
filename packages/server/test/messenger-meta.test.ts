// The three Meta kinds (WhatsApp, Messenger, Instagram) end to end against a fake Graph API on a local port: the
// GET verification, X-Hub-Signature-256 over the raw body, inbound messages through the customer-message path,
// the agent's and the team's replies sent with each kind's body and token, media, redeliveries (mid), ban, 429
// with Retry-After, the closed 24-hour window listed as a failed send.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { eventually } from './support/events.ts';
import { startFakeMeta, type FakeMeta } from './support/fake-meta.ts';
import { PUBLIC_URL, startTestApp, type TestApp } from './support/harness.ts';
import { ANSWER, fileBytes, messengerAccount, QUESTION, sendsIdle, storedFor } from './support/messenger-setup.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';
import { mp4, oggOpus, png } from './fixtures/files/samples.ts';

type MetaKind = 'whatsapp' | 'facebook' | 'instagram';
type Content = { text: string } | { image: true } | { voice: true };

let t: TestApp;
let meta: FakeMeta;
let receiver: Receiver;
let account: Awaited<ReturnType<typeof messengerAccount>>;
let sequence = 0;

interface KindSetup {
  senderId: string;
  token: string;
  appSecret: string;
  verifyToken: string;
  credentials: Record<string, string>;
  /** The update Meta posts for one customer message. */
  update(from: string, mid: string, content: Content): unknown;
  /** The body Parley must send for a text. */
  expectedSend(to: string, text: string): unknown;
  dialogName: string;
  voice: { contentType: string; name: string; bytes: Buffer };
}

function messagingUpdate(object: string, pageId: string, from: string, mid: string, content: Content) {
  let message: Record<string, unknown>;
  if ('text' in content) message = { mid, text: content.text };
  else if ('image' in content) message = { mid, attachments: [{ type: 'image', payload: { url: meta.cdnUrl(`img-${mid}`, png()) } }] };
  else message = { mid, attachments: [{ type: 'audio', payload: { url: meta.cdnUrl(`voice-${mid}`, mp4('M4A ')) } }] };
  return {
    object,
    entry: [{ id: pageId, time: Date.now(), messaging: [{ sender: { id: from }, recipient: { id: pageId }, timestamp: Date.now(), message }] }],
  };
}

const KINDS: Record<MetaKind, () => KindSetup> = {
  whatsapp: () => ({
    senderId: '1098',
    token: 'wa-access-token',
    appSecret: 'wa-app-secret',
    verifyToken: 'wa-verify-token',
    credentials: { phoneNumberId: '1098', accessToken: 'wa-access-token', appSecret: 'wa-app-secret', verifyToken: 'wa-verify-token' },
    update(from, mid, content) {
      let message: Record<string, unknown>;
      if ('text' in content) message = { type: 'text', text: { body: content.text } };
      else if ('image' in content) {
        meta.addMedia(`img-${mid}`, png(), 'image/png');
        message = { type: 'image', image: { id: `img-${mid}`, mime_type: 'image/png', caption: 'my cat' } };
      } else {
        meta.addMedia(`voice-${mid}`, oggOpus(), 'audio/ogg; codecs=opus');
        message = { type: 'audio', audio: { id: `voice-${mid}`, mime_type: 'audio/ogg; codecs=opus', voice: true } };
      }
      return {
        object: 'whatsapp_business_account',
        entry: [
          {
            id: 'WABA-1',
            changes: [
              {
                field: 'messages',
                value: {
                  messaging_product: 'whatsapp',
                  metadata: { display_phone_number: '15550001098', phone_number_id: '1098' },
                  contacts: [{ profile: { name: 'Grace Hopper' }, wa_id: from }],
                  messages: [{ from, id: mid, timestamp: String(Math.floor(Date.now() / 1000)), ...message }],
                },
              },
            ],
          },
        ],
      };
    },
    expectedSend: (to, text) => ({ messaging_product: 'whatsapp', recipient_type: 'individual', to, type: 'text', text: { body: text } }),
    dialogName: 'Grace Hopper',
    voice: { contentType: 'audio/ogg', name: 'voice.ogg', bytes: oggOpus() },
  }),
  facebook: () => ({
    senderId: '555',
    token: 'fb-page-token',
    appSecret: 'fb-app-secret',
    verifyToken: 'fb-verify-token',
    credentials: { pageId: '555', pageAccessToken: 'fb-page-token', appSecret: 'fb-app-secret', verifyToken: 'fb-verify-token' },
    update: (from, mid, content) => messagingUpdate('page', '555', from, mid, content),
    expectedSend: (id, text) => ({ recipient: { id }, messaging_type: 'RESPONSE', message: { text } }),
    dialogName: 'Unknown visitor',
    voice: { contentType: 'audio/mp4', name: 'voice.m4a', bytes: mp4('M4A ') },
  }),
  instagram: () => ({
    senderId: '777',
    token: 'ig-access-token',
    appSecret: 'ig-app-secret',
    verifyToken: 'ig-verify-token',
    credentials: { accountId: '777', accessToken: 'ig-access-token', appSecret: 'ig-app-secret', verifyToken: 'ig-verify-token' },
    update: (from, mid, content) => messagingUpdate('instagram', '777', from, mid, content),
    expectedSend: (id, text) => ({ recipient: { id }, message: { text } }),
    dialogName: 'Unknown visitor',
    voice: { contentType: 'audio/mp4', name: 'voice.m4a', bytes: mp4('M4A ') },
  }),
};

before(async () => {
  meta = await startFakeMeta();
  receiver = await startReceiver();
  t = await startTestApp({
    webhookAllowPrivateNetworks: true,
    messengerApis: { telegram: 'http://127.0.0.1:9', meta: meta.url, viber: 'http://127.0.0.1:9' },
  });
  account = await messengerAccount(t, receiver);
});
after(async () => {
  await t.close();
  await meta.close();
  await receiver.close();
});

for (const kind of ['whatsapp', 'facebook', 'instagram'] as const) {
  describe(kind, () => {
    const setup = KINDS[kind]();
    let channelId: string;
    const customer = () => `${kind === 'whatsapp' ? '4915' : ''}${100000 + ++sequence}`;
    const mid = () => `m_${kind}_${++sequence}`;
    const sign = (raw: string, secret = setup.appSecret) => `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
    const post = (body: unknown, signature?: string | null) => {
      const raw = JSON.stringify(body);
      const headers: Record<string, string> = signature === null ? {} : { 'x-hub-signature-256': signature ?? sign(raw) };
      return t.request('POST', `/channels/${kind}/${channelId}/webhook`, { body: raw, headers });
    };
    const sendsTo = (recipient: string) =>
      meta.sends().filter((send) => String(send.body.to ?? (send.body.recipient as { id?: string } | undefined)?.id) === recipient);

    before(async () => {
      meta.addSender(setup.senderId, setup.token);
      const res = await account.connect(kind, setup.credentials);
      assert.equal(res.status, 201, res.text);
      channelId = res.body.id;
    });

    test('clarifying choices: native quick replies beside the text (the API\'s real shapes); a tap picks one', async () => {
      const cost = { question: 'How much does shipping cost?', answer: 'Shipping is free above 50 euros.' };
      const bases = await t.console<{ knowledgeBases: { id: string }[] }>(account.user.token, 'GET', '/knowledge-bases');
      const baseId = bases.body.knowledgeBases[0]?.id;
      const listed = await t.console<{ entries: { question: string }[] }>(account.user.token, 'GET', `/knowledge-bases/${baseId}/entries`);
      if (!listed.body.entries.some((e) => e.question === cost.question)) {
        assert.equal((await t.console(account.user.token, 'POST', `/knowledge-bases/${baseId}/entries`, { body: cost })).status, 201);
      }
      const strict = { agentEngine: { kind: 'knowledge-base', answerThreshold: 1 } };
      assert.equal((await t.console(account.user.token, 'PUT', `/channel/${kind}/${channelId}/`, { body: strict })).status, 200);
      try {
        const from = customer();
        assert.equal((await post(setup.update(from, mid(), { text: 'shipping' }))).status, 200);
        const [asked] = await eventually(async () => sendsTo(from).length > 0 && sendsTo(from), 10_000);
        const body = asked?.body as { message?: { text?: string; quick_replies?: unknown }; interactive?: { body?: { text?: string } } };
        const text = String(kind === 'whatsapp' ? body.interactive?.body?.text : body.message?.text);
        const lines = String(text).split('\n');
        assert.equal(lines[0], 'Did you mean one of these?');
        const labels = lines.slice(1, -1).map((line) => line.replace(/^\d\. /, ''));
        assert.deepEqual([...labels].sort(), [cost.question, QUESTION].sort());
        const options = [...labels.map((label, i) => [label, String(i + 1)]), ['Something else', '0']] as [string, string][];
        if (kind === 'whatsapp') {
          assert.deepEqual(body, {
            messaging_product: 'whatsapp',
            recipient_type: 'individual',
            to: from,
            type: 'interactive',
            interactive: {
              type: 'list',
              body: { text },
              action: {
                button: 'Choose',
                sections: [{ rows: options.map(([label, id]) => ({ id, title: label.slice(0, 24), ...(label.length > 24 ? { description: label } : {}) })) }],
              },
            },
          });
        } else {
          assert.deepEqual(body.message?.quick_replies, options.map(([label, payload]) => ({ content_type: 'text', title: label.slice(0, 20), payload })));
        }
        // The customer taps the cost option: its number comes back (WhatsApp list_reply.id, quick_reply.payload).
        const n = String(labels.indexOf(cost.question) + 1);
        const tapId = mid();
        const tap =
          kind === 'whatsapp'
            ? {
                object: 'whatsapp_business_account',
                entry: [
                  {
                    id: 'waba',
                    changes: [
                      {
                        field: 'messages',
                        value: {
                          messaging_product: 'whatsapp',
                          metadata: { display_phone_number: '15550001098', phone_number_id: setup.senderId },
                          contacts: [{ profile: { name: 'Grace Hopper' }, wa_id: from }],
                          messages: [
                            {
                              from,
                              id: tapId,
                              timestamp: String(Math.floor(Date.now() / 1000)),
                              type: 'interactive',
                              interactive: { type: 'list_reply', list_reply: { id: n, title: cost.question.slice(0, 24) } },
                            },
                          ],
                        },
                      },
                    ],
                  },
                ],
              }
            : {
                object: kind === 'facebook' ? 'page' : 'instagram',
                entry: [
                  {
                    id: setup.senderId,
                    time: Date.now(),
                    messaging: [
                      {
                        sender: { id: from },
                        recipient: { id: setup.senderId },
                        timestamp: Date.now(),
                        message: { mid: tapId, text: cost.question.slice(0, 20), quick_reply: { payload: n } },
                      },
                    ],
                  },
                ],
              };
        assert.equal((await post(tap)).status, 200);
        const sends = await eventually(async () => sendsTo(from).length > 1 && sendsTo(from), 10_000);
        assert.deepEqual(sends[1]?.body, setup.expectedSend(from, cost.answer));
      } finally {
        await t.console(account.user.token, 'PUT', `/channel/${kind}/${channelId}/`, { body: { agentEngine: { kind: 'knowledge-base' } } });
      }
    });

    test('the view gives the inbound URL and the verify token to paste into Meta; no other secret', async () => {
      const view = await t.console<Record<string, unknown>>(account.user.token, 'GET', `/channel/${kind}/${channelId}/`);
      assert.equal(view.body.inboundUrl, `${PUBLIC_URL}/channels/${kind}/${channelId}/webhook`);
      assert.equal(view.body.verifyToken, setup.verifyToken);
      assert.ok(!view.text.includes(setup.token) && !view.text.includes(setup.appSecret));
    });

    test("Meta's GET verification echoes the challenge for the right verify token only", async () => {
      const verify = (token: string) =>
        t.request('GET', `/channels/${kind}/${channelId}/webhook`, {
          query: { 'hub.mode': 'subscribe', 'hub.verify_token': token, 'hub.challenge': '1158201444' },
        });
      const right = await verify(setup.verifyToken);
      assert.equal(right.status, 200);
      assert.equal(right.text, '1158201444');
      assert.equal((await verify(`${setup.verifyToken}x`)).status, 403);
      assert.equal((await t.request('GET', `/channels/${kind}/${channelId}/webhook`)).status, 400);
    });

    test("a customer's text: the agent's answer goes out with the kind's body and token", async () => {
      const from = customer();
      const res = await post(setup.update(from, mid(), { text: QUESTION }));
      assert.equal(res.status, 200, res.text);
      const chat = await account.chatOf(channelId, from);
      assert.equal(chat.uniqueId, `${from}_${channelId}`);
      assert.equal(chat.dialogName, setup.dialogName);
      assert.equal(chat.channelName, kind);
      const [send] = await eventually(async () => sendsTo(from).length > 0 && sendsTo(from), 10_000);
      assert.equal(send?.senderId, setup.senderId);
      assert.equal(send?.token, setup.token);
      assert.deepEqual(send?.body, setup.expectedSend(from, ANSWER));
    });

    test('a missing or wrong signature: 401, nothing stored', async () => {
      const stored = await storedFor(t, channelId);
      const body = setup.update(customer(), mid(), { text: 'hi' });
      assert.equal((await post(body, null)).status, 401);
      assert.equal((await post(body, sign(JSON.stringify(body), 'not-the-app-secret'))).status, 401);
      assert.equal((await post(body, 'sha256=')).status, 401);
      assert.deepEqual(await storedFor(t, channelId), stored);
    });

    test('a redelivered message (same mid) is stored once and answered once', async () => {
      const from = customer();
      const body = setup.update(from, mid(), { text: QUESTION });
      assert.equal((await post(body)).status, 200);
      assert.equal((await post(body)).status, 200);
      const chat = await account.chatOf(channelId, from);
      await eventually(async () => sendsTo(from).length === 1, 10_000);
      await eventually(() => sendsIdle(t), 10_000);
      assert.equal((await account.messages(chat.id)).filter((m) => m.role === 'user').length, 1);
      assert.equal(sendsTo(from).length, 1);
    });

    test('a banned chat ignores new messages', async () => {
      const from = customer();
      await post(setup.update(from, mid(), { text: 'first' }));
      const chat = await account.chatOf(channelId, from);
      await account.ban(chat.uniqueId);
      await eventually(() => sendsIdle(t), 10_000);
      const sent = sendsTo(from).length;
      assert.equal((await post(setup.update(from, mid(), { text: QUESTION }))).status, 200);
      const stored = await account.messages(chat.id);
      assert.deepEqual(stored.filter((m) => m.role === 'user').map((m) => m.text), ['first']);
      await eventually(() => sendsIdle(t), 10_000);
      assert.equal(sendsTo(from).length, sent);
    });

    test('a team reply is sent', async () => {
      const from = customer();
      await post(setup.update(from, mid(), { text: 'hello' }));
      const chat = await account.chatOf(channelId, from);
      await eventually(() => sendsIdle(t), 10_000);
      const before = sendsTo(from).length;
      await account.teamReply(chat.id, 'A person here.');
      await eventually(async () => sendsTo(from).length === before + 1, 10_000);
      assert.deepEqual(sendsTo(from).at(-1)?.body, setup.expectedSend(from, 'A person here.'));
    });

    test('an image and a voice message are downloaded and stored as attachments', async () => {
      const from = customer();
      await post(setup.update(from, mid(), { image: true }));
      await post(setup.update(from, mid(), { voice: true }));
      const chat = await account.chatOf(channelId, from);
      const [image, voice] = (await account.messages(chat.id)).filter((m) => m.role === 'user');
      assert.deepEqual(image?.attachments.map((a) => [a.contentType, a.name]), [['image/png', 'image.png']]);
      assert.deepEqual(await fileBytes(t, image?.attachments[0]?.url ?? ''), png());
      assert.deepEqual(voice?.attachments.map((a) => [a.contentType, a.name]), [[setup.voice.contentType, setup.voice.name]]);
      assert.deepEqual(await fileBytes(t, voice?.attachments[0]?.url ?? ''), setup.voice.bytes);
    });

    test('the 24-hour window closed: the reply fails for good and is listed', async () => {
      const from = customer();
      await post(setup.update(from, mid(), { text: 'hello' }));
      const chat = await account.chatOf(channelId, from);
      await eventually(() => sendsIdle(t), 10_000);
      meta.closeWindow(from);
      const reply = await account.teamReply(chat.id, 'too late?');
      const failure = await eventually(async () => (await account.failures(channelId)).find((f) => f.messageId === reply.id), 10_000);
      const expected =
        kind === 'whatsapp'
          ? 'Re-engagement message: more than 24 hours have passed since the recipient last replied (code 131047)'
          : '(#10) This message is sent outside of allowed window. (code 10/2018278)';
      assert.equal(failure.error, expected);
      assert.equal(failure.channelType, kind);
      assert.equal(failure.attempts, 1);
      await eventually(() => sendsIdle(t), 10_000);
    });
  });
}

test('429 with Retry-After: the send waits and then goes out', async () => {
  const channel = await t.console<{ channels: { id: string; type: string }[] }>(account.user.token, 'GET', '/channels/all/');
  const channelId = channel.body.channels.find((c) => c.type === 'facebook')?.id ?? '';
  const from = '900001';
  const raw = JSON.stringify(messagingUpdate('page', '555', from, 'm_429', { text: 'hello' }));
  const signature = `sha256=${createHmac('sha256', 'fb-app-secret').update(raw).digest('hex')}`;
  await t.request('POST', `/channels/facebook/${channelId}/webhook`, { body: raw, headers: { 'x-hub-signature-256': signature } });
  const chat = await account.chatOf(channelId, from);
  await eventually(() => sendsIdle(t), 10_000);
  const attempts = () => meta.requests.filter((r) => r.method === 'POST' && (r.json?.recipient as { id?: string } | undefined)?.id === from);
  const before = attempts().length;
  meta.rateLimitNext(1, 1);
  await account.teamReply(chat.id, 'after the pause');
  await eventually(async () => attempts().length === before + 2, 15_000);
  const [limited, sent] = attempts().slice(before);
  assert.ok((sent?.at ?? 0) - (limited?.at ?? 0) >= 1000, 'retried after Retry-After');
  await eventually(() => sendsIdle(t), 10_000);
  assert.equal((await account.failures(channelId)).filter((f) => f.chatId === chat.id).length, 0);
});
