// @parley/sdk's webhook helpers behind real node:http, Express and Fastify servers, receiving real deliveries of a
// started Parley server: typed callbacks, deduplication (redelivery, retry, replay from the event feed), Standard
// Webhooks signatures (401 when invalid), validation against the published schemas (400).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  createExpressHandler,
  createNodeHandler,
  createWebhookReceiver,
  MemoryDedupeStore,
  ParleyClient,
  parleyWebhookPlugin,
  signWebhook,
  type DialogStatusChangedEvent,
  type EventContext,
  type NewMessagesEvent,
  type WebhookEvent,
  type WebhookReceiver,
} from '@parley/sdk';
import express from 'express';
import Fastify from 'fastify';
import { eventually } from '../../server/test/support/events.ts';
import { startTestApp, type TestApp } from '../../server/test/support/harness.ts';
import { GENERATED_FILE, generatedSource } from '../scripts/generate-schemas.ts';

const SECRET = `whsec_${randomBytes(24).toString('base64')}`;

let t: TestApp;
before(async () => {
  t = await startTestApp({ webhookAllowPrivateNetworks: true });
});
after(async () => {
  await t.close();
});

async function listen(server: Server): Promise<{ url: string; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A receiver that records what its callbacks got. */
function recordingReceiver(options: { secret?: string } = {}) {
  const messages: { event: NewMessagesEvent; context: EventContext }[] = [];
  const statuses: DialogStatusChangedEvent[] = [];
  const all: WebhookEvent[] = [];
  const receiver = createWebhookReceiver({
    ...options,
    onNewMessages: (event, context) => void messages.push({ event, context }),
    onDialogStatusChanged: (event) => void statuses.push(event),
    onEvent: (event) => void all.push(event),
  });
  return { receiver, messages, statuses, all };
}

async function connectChannel(body: Record<string, unknown>) {
  const user = await t.createConsoleUser();
  const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
    body: { name: 'Hook shop', disableAgentResponses: true, ...body },
  });
  assert.equal(channel.status, 201, channel.text);
  const parley = new ParleyClient({ apiKey: user.key, baseUrl: `${t.url}/api/v1` });
  const send = (externalChatId: string, text: string) =>
    parley.messages.send({ channelId: channel.body.id, externalChatId, role: 'user', text });
  interface Delivery {
    id: string;
    status: string;
    attempts: { statusCode: number | null }[];
  }
  const deliveries = async () =>
    (await t.console<{ deliveries: Delivery[] }>(user.token, 'GET', `/channel/custom/${channel.body.id}/deliveries`)).body.deliveries;
  return { user, channelId: channel.body.id, parley, send, deliveries };
}

const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body }).then(async (res) => ({
    status: res.status,
    body: (await res.json()) as unknown,
  }));

describe('webhook receiver', () => {
  test('node:http: typed events; a redelivery and a repeated body are deduplicated by messages[].id', async () => {
    const r = recordingReceiver();
    const server = await listen(createServer(createNodeHandler(r.receiver)));
    try {
      const s = await connectChannel({ webhookUrl: `${server.url}/hook` });
      await s.send('node', 'Hello from node');
      const [first] = await eventually(async () => r.messages.length === 1 && r.messages);
      assert.ok(first);
      assert.equal(first.event.event, 'new_messages');
      assert.equal(first.event.chat.uniqueId, `${s.channelId}:node`);
      assert.deepEqual(first.event.messages.map((m) => [m.role, m.text]), [['user', 'Hello from node']]);
      assert.equal(first.context.source, 'webhook');

      // The console's redelivery sends the same event again: answered 2xx, handed over once.
      const [delivery] = await eventually(async () => {
        const list = await s.deliveries();
        return list[0]?.status === 'delivered' && list;
      });
      assert.ok(delivery);
      const again = await t.console(s.user.token, 'POST', `/deliveries/${delivery.id}/redeliver`);
      assert.equal(again.status, 202, again.text);
      await eventually(async () => {
        const list = await s.deliveries();
        return list.length === 2 && list.every((d) => d.status === 'delivered' && d.attempts[0]?.statusCode === 200);
      });
      await r.receiver.idle();
      assert.equal(r.messages.length, 1);

      assert.deepEqual(await post(`${server.url}/hook`, JSON.stringify(first.event)), { status: 200, body: { ok: true, duplicate: true } });
      assert.equal((await fetch(`${server.url}/hook`)).status, 405);
      assert.equal(r.messages.length, 1);
    } finally {
      await server.close();
    }
  });

  test('Express: signed deliveries are checked with the channel secret; a wrong or missing signature is 401', async () => {
    const r = recordingReceiver({ secret: SECRET });
    const wrong = recordingReceiver({ secret: `whsec_${randomBytes(24).toString('base64')}` });
    const app = express();
    app.post('/hook', createExpressHandler(r.receiver));
    app.post('/raw', express.raw({ type: 'application/json' }), createExpressHandler(r.receiver));
    app.post('/parsed', express.json(), createExpressHandler(r.receiver));
    app.post('/wrong', createExpressHandler(wrong.receiver));
    const server = await listen(createServer(app));
    try {
      const s = await connectChannel({ webhookUrl: `${server.url}/hook`, webhookSecret: SECRET });
      await s.send('express', 'Signed hello');
      const [got] = await eventually(async () => r.messages.length === 1 && r.messages);
      assert.ok(got);
      assert.deepEqual(got.event.messages.map((m) => m.text), ['Signed hello']);
      const [delivery] = await s.deliveries();
      assert.equal(got.context.deliveryId, delivery?.id, 'webhook-id is the delivery id');

      const body = JSON.stringify({ ...got.event, messages: got.event.messages.map((m) => ({ ...m, id: `${m.id}-copy` })) });
      const now = Math.floor(Date.now() / 1000);
      const signed = await signWebhook(SECRET, 'msg_1', now, body);
      assert.deepEqual(await post(`${server.url}/raw`, body, signed), { status: 200, body: { ok: true } });
      const refused = [
        await post(`${server.url}/hook`, body),
        await post(`${server.url}/hook`, body.replace('Signed hello', 'Forged hello'), signed),
        await post(`${server.url}/hook`, body, await signWebhook('whsec_d3Jvbmcgc2VjcmV0IG9mIHRlc3Q=', 'msg_1', now, body)),
        await post(`${server.url}/hook`, body, await signWebhook(SECRET, 'msg_1', now - 3600, body)),
      ];
      for (const res of refused) {
        assert.equal(res.status, 401);
        assert.match((res.body as { message: string }).message, /^Invalid signature: /);
      }
      const parsed = await post(`${server.url}/parsed`, body, signed);
      assert.equal(parsed.status, 500);
      assert.match((parsed.body as { message: string }).message, /express\.json/);

      // The server's delivery to a receiver holding another secret is refused with 401 (and retried).
      await s.send('express', 'to the wrong receiver');
      const put = await t.console(s.user.token, 'PUT', `/channel/custom/${s.channelId}/`, { body: { webhookUrl: `${server.url}/wrong` } });
      assert.equal(put.status, 200, put.text);
      await s.send('express', 'to the wrong receiver');
      await eventually(async () => (await s.deliveries()).some((d) => d.attempts[0]?.statusCode === 401));
      assert.equal(wrong.messages.length, 0);
      // The first delivery, /raw, and the message sent before the URL changed.
      await eventually(async () => r.messages.length === 3);
      await r.receiver.idle();
      assert.equal(r.messages.length, 3);
    } finally {
      await server.close();
    }
  });

  test('Fastify: dialog_status_changed deduplicated by eventId; an invalid event is 400; other routes keep their JSON', async () => {
    const r = recordingReceiver({ secret: SECRET });
    const app = Fastify();
    await app.register(parleyWebhookPlugin, { receiver: r.receiver, prefix: '/parley/webhook' });
    app.post('/echo', async (request) => ({ got: request.body }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    try {
      const s = await connectChannel({ webhookUrl: `${url}/parley/webhook`, webhookSecret: SECRET });
      await s.send('fastify', 'Hello from fastify');
      await eventually(async () => r.messages.length === 1);
      const [chat] = (await s.parley.chats.list({ channelId: s.channelId })).chats;
      assert.ok(chat);
      const status = await t.console(s.user.token, 'POST', `/chat/status/${chat.id}/`, { body: { status: 'done' } });
      assert.equal(status.status, 200, status.text);
      const [changed] = await eventually(async () => r.statuses.length === 1 && r.statuses);
      assert.ok(changed);
      assert.deepEqual(changed.status.source, { type: 'manual', operatorEmail: s.user.email });

      // The same event again (a retry): answered 200, not handed over twice.
      const body = JSON.stringify(changed);
      const retry = await post(`${url}/parley/webhook`, body, await signWebhook(SECRET, 'msg_retry', Math.floor(Date.now() / 1000), body));
      assert.deepEqual(retry, { status: 200, body: { ok: true, duplicate: true } });
      const invalid = JSON.stringify({ ...changed, status: { ...changed.status, current: 'finished' } });
      const bad = await post(`${url}/parley/webhook`, invalid, await signWebhook(SECRET, 'msg_bad', Math.floor(Date.now() / 1000), invalid));
      assert.equal(bad.status, 400);
      assert.match((bad.body as { message: string }).message, /^Invalid event: \/status\/current must be one of done, not_done/);
      const unsigned = await post(`${url}/parley/webhook`, body);
      assert.equal(unsigned.status, 401);
      await r.receiver.idle();
      assert.equal(r.statuses.length, 1);
      assert.deepEqual(await post(`${url}/echo`, '{"a":1}'), { status: 200, body: { got: { a: 1 } } });
    } finally {
      await app.close();
    }
  });

  test('replaying the event feed through the receiver hands over only what was missed', async () => {
    const live = recordingReceiver();
    const server = await listen(createServer(createNodeHandler(live.receiver)));
    try {
      const s = await connectChannel({ webhookUrl: `${server.url}/` });
      await s.send('replay', 'seen live');
      await eventually(async () => live.all.length === 1);
      await server.close(); // the receiver is down: the next event is not delivered
      await s.send('replay', 'missed');
      await eventually(async () => (await s.deliveries()).some((d) => d.attempts.length > 0 && d.attempts[0]?.statusCode === null));
      const feed = async () => {
        const events = [];
        for await (const event of s.parley.events.iterate()) events.push(event);
        return events;
      };
      await eventually(async () => (await feed()).length === 2);
      for (const event of await feed()) await live.receiver.process(event.payload);
      const texts = live.messages.map((m) => m.event.messages.map((x) => x.text).join());
      assert.deepEqual(texts, ['seen live', 'missed']);
      assert.equal(live.messages[1]?.context.source, 'feed');
      await assert.rejects(live.receiver.process({ event: 'new_messages' }), /Invalid event/);
      // The feed's own event (never a webhook) is passed over: a replay loop goes on past it.
      const handedOff = { event: 'chat_handed_off', chat: { id: 'c', name: 'n', uniqueId: 'u', channelName: 'custom' }, reason: 'model', timestamp: new Date().toISOString() };
      await live.receiver.process(handedOff);
      assert.equal(live.all.length, 2);
    } finally {
      await server.close().catch(() => {});
    }
  });

  test('the answer does not wait for the callbacks', async () => {
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    let finished = false;
    const receiver = createWebhookReceiver({
      onNewMessages: async () => {
        await slow;
        finished = true;
      },
    });
    const server = await listen(createServer(createNodeHandler(receiver)));
    try {
      const res = await post(server.url, JSON.stringify(sampleEvent('slow-1')));
      assert.deepEqual(res, { status: 200, body: { ok: true } });
      assert.equal(finished, false, 'answered while the callback still runs');
      release();
      await receiver.idle();
      assert.equal(finished, true);
    } finally {
      await server.close();
    }
  });

  test('a failing callback goes to onError and its event can be handled again', async () => {
    const errors: unknown[] = [];
    let fail = true;
    const handled: string[] = [];
    const receiver: WebhookReceiver = createWebhookReceiver({
      onNewMessages: (event) => {
        if (fail) throw new Error('database down');
        handled.push(event.messages[0]?.id ?? '');
      },
      onError: (error) => void errors.push(error),
    });
    const event = sampleEvent('m-1');
    await receiver.process(event);
    assert.equal(errors.length, 1);
    fail = false;
    await receiver.process(event);
    assert.deepEqual(handled, ['m-1']);
  });

  test('the in-memory dedupe store keeps the most recent keys only', () => {
    const store = new MemoryDedupeStore(2);
    assert.equal(store.claim('a'), true);
    assert.equal(store.claim('a'), false);
    assert.equal(store.claim('b'), true);
    assert.equal(store.claim('c'), true);
    assert.equal(store.size, 2);
    assert.equal(store.claim('a'), true, 'the oldest key was let go');
  });

  test('the schemas the SDK validates with are those @parley/contracts publishes', () => {
    assert.equal(readFileSync(GENERATED_FILE, 'utf8'), generatedSource(), 'run: node --import tsx packages/sdk/scripts/generate-schemas.ts');
  });
});

function sampleEvent(messageId: string): NewMessagesEvent {
  return {
    event: 'new_messages',
    chat: { id: 'c', name: 'n', uniqueId: 'cc:x:1', externalChatId: '1', channelName: 'custom' },
    messages: [{ id: messageId, role: 'user', senderName: null, text: 'hi', attachments: [], createdAt: '2026-11-24T08:00:00.000Z' }],
    settings: { behavior: '', role: '', task: '', greeting: '', isActive: true, aiLang: 'en' },
    timestamp: '2026-11-24T08:00:00.000Z',
  };
}
