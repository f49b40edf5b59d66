// The console's webhook test button against a real local receiver (spec, Events: the test sends a sample
// new_messages event; delivery rules: POST, JSON, the two headers, 2 s).
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { startReceiver, type Receiver } from './support/receiver.ts';
import { startTestApp, type TestApp } from './support/harness.ts';

type Channel = { id: string; settings: Record<string, unknown> };
type TestResult = { success: boolean; status: number | null; error?: string };

describe('with private networks allowed (local testing)', () => {
  let t: TestApp;
  let token: string;
  let receiver: Receiver;
  before(async () => {
    t = await startTestApp({ webhookAllowPrivateNetworks: true });
    ({ token } = await t.createConsoleUser());
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  const channelWith = async (body: Record<string, unknown>) =>
    (await t.console<Channel>(token, 'POST', '/channel/custom/connect/', { body: { name: 'Hooked', ...body } })).body;
  const press = (id: string, kind = 'custom') => t.console<TestResult>(token, 'POST', `/webhooks/${kind}/${id}/test`);

  test('sends one sample new_messages event with the spec headers; reports 200', async () => {
    const channel = await channelWith({ webhookUrl: `${receiver.url}/hook?secret=abc`, settings: { role: 'Helper', aiLang: 'de' } });
    const before = receiver.requests.length;
    const res = await press(channel.id);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true, status: 200 });
    assert.equal(receiver.requests.length, before + 1);
    const request = receiver.requests.at(-1);
    assert.equal(request?.method, 'POST');
    assert.equal(request?.url, '/hook?secret=abc');
    assert.equal(request?.headers['content-type'], 'application/json');
    assert.equal(request?.headers['user-agent'], 'API-Gate-Webhook/1.0');
    assert.equal(request?.headers['webhook-signature'], undefined, 'unsigned without a secret');
    const event = JSON.parse(request?.body ?? '{}') as Record<string, unknown> & {
      chat: Record<string, unknown>;
      messages: Record<string, unknown>[];
    };
    assert.deepEqual(Object.keys(event).sort(), ['chat', 'event', 'messages', 'settings', 'timestamp']);
    assert.equal(event.event, 'new_messages');
    assert.deepEqual(Object.keys(event.chat).sort(), ['channelName', 'externalChatId', 'id', 'name', 'uniqueId']);
    assert.equal(event.chat.channelName, 'custom');
    assert.equal(event.chat.uniqueId, `${channel.id}:${String(event.chat.externalChatId)}`);
    assert.equal(event.messages.length, 1);
    assert.deepEqual(Object.keys(event.messages[0] ?? {}).sort(), ['attachments', 'createdAt', 'id', 'role', 'senderName', 'text']);
    assert.equal(event.messages[0]?.role, 'user');
    assert.deepEqual(event.messages[0]?.attachments, []);
    assert.deepEqual(event.settings, channel.settings);
    assert.match(String(event.timestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  test('a channel with a signing secret sends Standard Webhooks signature headers', async () => {
    const secret = 'my-signing-secret-0123456789';
    const channel = await channelWith({ webhookUrl: `${receiver.url}/signed`, webhookSecret: secret });
    assert.deepEqual((await press(channel.id)).body, { success: true, status: 200 });
    const request = receiver.requests.at(-1);
    const id = String(request?.headers['webhook-id']);
    const timestamp = String(request?.headers['webhook-timestamp']);
    assert.ok(Math.abs(Number(timestamp) - Date.now() / 1000) < 60);
    const expected = createHmac('sha256', secret).update(`${id}.${timestamp}.${request?.body}`).digest('base64');
    assert.equal(request?.headers['webhook-signature'], `v1,${expected}`);
  });

  test('receiver errors: 500, a redirect (not followed), a slow answer, a closed port, a huge body', async () => {
    const channel = await channelWith({ webhookUrl: `${receiver.url}/fail` });
    receiver.respond((_r, res) => {
      res.statusCode = 500;
      res.end('boom');
    });
    assert.deepEqual((await press(channel.id)).body, { success: false, status: 500 });

    receiver.respond((r, res) => {
      if (r.url === '/elsewhere') return res.end('followed');
      res.writeHead(302, { location: '/elsewhere' }).end();
    });
    const before = receiver.requests.length;
    assert.deepEqual((await press(channel.id)).body, { success: false, status: 302 });
    assert.equal(receiver.requests.length, before + 1, 'the redirect was not followed');

    receiver.respond((_r, res) => {
      setTimeout(() => res.end('late'), 3000).unref();
    });
    const started = Date.now();
    assert.deepEqual((await press(channel.id)).body, { success: false, status: null, error: 'no answer within 2000 ms' });
    assert.ok(Date.now() - started < 2900, 'gave up at 2 s');

    receiver.respond((_r, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 'x');
      let sent = 0;
      const pump = () => {
        while (sent < 200 && res.write(chunk)) sent += 1;
        if (sent < 200) res.once('drain', pump);
        else res.end();
      };
      pump();
    });
    assert.deepEqual((await press(channel.id)).body, { success: true, status: 200 });
    receiver.respond((_r, res) => res.end('ok'));

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const dead = await channelWith({ webhookUrl: `http://127.0.0.1:${port}/hook` });
    const res = await press(dead.id);
    assert.equal(res.body.success, false);
    assert.equal(res.body.status, null);
    assert.match(res.body.error ?? '', /ECONNREFUSED|connect/);
  });

  test('no webhook URL: 400; unknown channel: 404', async () => {
    const channel = await channelWith({});
    assert.deepEqual((await press(channel.id)).body, { message: 'The channel has no webhook URL', statusCode: 400 });
    assert.equal((await press('cc:nope')).status, 404);
    assert.equal((await press(channel.id, 'widget')).status, 404);
  });
});

describe('with private networks refused (the default)', () => {
  let t: TestApp;
  let receiver: Receiver;
  before(async () => {
    t = await startTestApp();
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  test('a URL that became private after it was saved is refused at send time, nothing is sent', async () => {
    const { token } = await t.createConsoleUser();
    const channel = (await t.console<Channel>(token, 'POST', '/channel/custom/connect/', { body: { name: 'Rebind' } })).body;
    for (const url of [`${receiver.url}/hook`, `http://localhost:${new URL(receiver.url).port}/hook`]) {
      // As if DNS changed after the check: the saved URL now points at this machine.
      await t.database.db.execute(
        sql`WITH changed AS (update channels set webhook_url = ${url} where id = ${channel.id} returning id)
            SELECT pg_notify('parley_cache', 'channel:' || id) FROM changed`,
      );
      const res = await t.console<TestResult>(token, 'POST', `/webhooks/custom/${channel.id}/test`);
      assert.equal(res.status, 200);
      assert.equal(res.body.success, false, url);
      assert.equal(res.body.status, null);
      assert.match(res.body.error ?? '', /refused to connect to .*\(private network\)/);
    }
    assert.equal(receiver.requests.length, 0);
  });
});
