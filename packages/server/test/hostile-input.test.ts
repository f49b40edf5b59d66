// Input the database cannot store or the parser cannot read is a 400 with a clear message, never a 5xx: NUL
// bytes and lone surrogates on every surface, malformed multipart bodies; an oversized upload is refused as soon
// as it passes 10 MB, not after it was read whole.
import assert from 'node:assert/strict';
import { readdir, stat } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { png } from './fixtures/files/samples.ts';
import { eventually } from './support/events.ts';
import { startTestApp, type TestApp } from './support/harness.ts';

let t: TestApp;
let key: string;
let token: string;
let channelId: string;
before(async () => {
  t = await startTestApp();
  const user = await t.createConsoleUser();
  key = user.key;
  token = user.token;
  channelId = (await t.console<{ id: string }>(token, 'POST', '/channel/custom/connect/', { body: { name: 'Hostile' } })).body.id;
});
after(() => t.close());

const SEND = '/api/v1/chats/chat/send-message-universal';

async function raw(method: string, path: string, headers: Record<string, string>, body?: string | Buffer) {
  const res = await fetch(`${t.url}${path}`, { method, headers, body });
  const text = await res.text();
  return { status: res.status, text, body: text ? (JSON.parse(text) as { message: string | string[] }) : undefined };
}

const messageOf = (body: { message: string | string[] } | undefined) =>
  Array.isArray(body?.message) ? body.message.join('; ') : (body?.message ?? '');

test('NUL bytes are a 400 naming the field on the query, JSON bodies, console and login', async () => {
  const query = await raw('GET', '/api/v1/chats/chat?channelId=a%00b', { authorization: key });
  assert.equal(query.status, 400, query.text);
  assert.match(messageOf(query.body), /channelId must not contain NUL/);

  const rename = await t.console(token, 'PUT', `/channel/custom/${channelId}/`, { body: { name: 'a\u0000b' } });
  assert.equal(rename.status, 400, rename.text);
  assert.match(rename.text, /name must not contain NUL/);

  const login = await t.request('POST', '/console/v1/auth/login', { body: { email: 'a\u0000b', password: 'x' } });
  assert.equal(login.status, 400, login.text);

  const send = await t.request('POST', SEND, {
    headers: { authorization: key },
    body: { channel: 'custom', channelId, externalChatId: 'n\u0000ul', role: 'user', text: 'hi' },
  });
  assert.equal(send.status, 400, send.text);
  const stored = await queryRows(t.database.db, sql`select 1 from chats where channel_id = ${channelId}`);
  assert.equal(stored.length, 0);
});

test('a lone surrogate is a 400; a well-formed pair is stored', async () => {
  const lone = await t.request('POST', '/console/v1/channel/custom/connect/', {
    headers: { authorization: `Bearer ${token}` },
    body: '{"name":"S","settings":{"greeting":"\\ud800"}}',
  });
  assert.equal(lone.status, 400, lone.text);
  assert.match(lone.text, /surrogate/);
  const pair = await t.request<{ settings: { greeting: string } }>('POST', '/console/v1/channel/custom/connect/', {
    headers: { authorization: `Bearer ${token}` },
    body: '{"name":"S","settings":{"greeting":"\\ud83d\\ude00"}}',
  });
  assert.equal(pair.status, 201, pair.text);
  assert.equal(pair.body.settings.greeting, '😀');
});

test('a body nested deeper than 64 levels is a 400 naming the limit on the public, console and widget APIs', async () => {
  const site = 'https://shop.example';
  const widget = await t.console<{ id: string }>(token, 'POST', '/channel/widget/connect/', { body: { name: 'Deep', widget: { allowedOrigins: [site] } } });
  assert.equal(widget.status, 201, widget.text);
  const routes: { surface: string; method: string; path: string; headers: Record<string, string>; body: (value: string) => string; status: number }[] = [
    {
      surface: 'public',
      method: 'POST',
      path: SEND,
      headers: { authorization: key },
      body: (text: string) => `{"channel":"custom","channelId":"${channelId}","externalChatId":"deep","role":"user","text":${text}}`,
      status: 201,
    },
    {
      surface: 'console',
      method: 'PUT',
      path: `/console/v1/channel/custom/${channelId}/`,
      headers: { authorization: `Bearer ${token}` },
      body: (name: string) => `{"name":${name}}`,
      status: 200,
    },
    {
      surface: 'widget',
      method: 'POST',
      path: '/widget/v1/session',
      headers: {},
      body: (origin: string) => `{"channelId":"${widget.body.id}","origin":${origin}}`,
      status: 200,
    },
  ];
  /** `levels` nested objects or arrays around a string: the body around it adds one level. */
  const objects = (levels: number) => `${'{"a":'.repeat(levels)}"x"${'}'.repeat(levels)}`;
  const arrays = (levels: number) => `${'['.repeat(levels)}"x"${']'.repeat(levels)}`;
  const TOO_DEEP = { message: ['Body nested deeper than 64 levels'], statusCode: 400 };
  for (const route of routes) {
    const send = (body: string, headers: Record<string, string> = {}) =>
      raw(route.method, route.path, { ...route.headers, 'content-type': 'application/json', ...headers }, body);
    const label = (shape: string) => `${route.surface} ${shape}`;
    const deep = { '50,000 objects': objects(50_000), '100,000 arrays': arrays(100_000) };
    for (const [shape, value] of Object.entries(deep)) {
      for (const [where, body] of [['as the body', value], ['in a field', route.body(value)]]) {
        const res = await send(body ?? '');
        assert.equal(res.status, 400, `${label(shape)} ${where}: ${res.text}`);
        assert.deepEqual(res.body, TOO_DEEP, label(shape));
      }
    }
    // The limit itself: 64 levels reach the schema (a string is due), 65 do not.
    for (const nest of [objects, arrays]) {
      const atLimit = await send(route.body(nest(63)));
      assert.equal(atLimit.status, 400, label('64 levels'));
      assert.notDeepEqual(atLimit.body, TOO_DEEP, label('64 levels'));
      assert.deepEqual((await send(route.body(nest(64)))).body, TOO_DEEP, label('65 levels'));
    }
    // A body of ordinary depth still works.
    const ok = await send(route.body(JSON.stringify(route.surface === 'widget' ? site : 'ordinary')));
    assert.equal(ok.status, route.status, `${route.surface}: ${ok.text}`);
  }
  const russian = await raw('PUT', `/console/v1/channel/custom/${channelId}/`, { authorization: `Bearer ${token}`, 'content-type': 'application/json', userlang: 'ru' }, arrays(100));
  assert.deepEqual(russian.body, { message: ['Тело запроса вложено глубже 64 уровней'], statusCode: 400 });
  assert.ok(!t.logs.some((line) => line.includes('Maximum call stack size exceeded')), 'no stack overflowed');
});

const multipartFields = (boundary: string, eol = '\r\n') =>
  [
    ['channel', 'custom'],
    ['channelId', channelId],
    ['externalChatId', 'mp'],
    ['role', 'user'],
    ['text', 'hello'],
  ]
    .map(([name, value]) => `--${boundary}${eol}Content-Disposition: form-data; name="${name}"${eol}${eol}${value}${eol}`)
    .join('');

test('malformed multipart bodies are 400 with a clear message', async () => {
  const b = 'XyZb0undary';
  const fileHead = (name = 'a.png') =>
    `--${b}\r\nContent-Disposition: form-data; name="files"; filename="${name}"\r\nContent-Type: image/png\r\n\r\n`;
  const cases: Array<[string, string, string | Buffer]> = [
    ['missing boundary parameter', 'multipart/form-data', `${multipartFields(b)}--${b}--\r\n`],
    ['boundary mismatch', 'multipart/form-data; boundary=Other', `${multipartFields(b)}--${b}--\r\n`],
    ['no closing boundary', `multipart/form-data; boundary=${b}`, multipartFields(b)],
    ['truncated file', `multipart/form-data; boundary=${b}`, Buffer.concat([Buffer.from(multipartFields(b) + fileHead()), png().subarray(0, 40)])],
    ['LF-only line endings', `multipart/form-data; boundary=${b}`, `${multipartFields(b, '\n')}--${b}--\n`],
    ['JSON labelled multipart', `multipart/form-data; boundary=${b}`, JSON.stringify({ channel: 'custom', channelId })],
    ['NUL in a field', `multipart/form-data; boundary=${b}`, `${multipartFields(b).replace('hello', 'he\u0000llo')}--${b}--\r\n`],
    [
      'NUL in a file name',
      `multipart/form-data; boundary=${b}`,
      Buffer.concat([Buffer.from(multipartFields(b) + fileHead('a\u0000.png')), png(), Buffer.from(`\r\n--${b}--\r\n`)]),
    ],
  ];
  for (const [label, contentType, body] of cases) {
    const res = await raw('POST', SEND, { authorization: key, 'content-type': contentType }, body);
    assert.equal(res.status, 400, `${label}: ${res.status} ${res.text}`);
    assert.ok(messageOf(res.body).length > 0, label);
  }
  const chats = await queryRows(t.database.db, sql`select 1 from chats where channel_id = ${channelId} and external_chat_id = 'mp'`);
  assert.equal(chats.length, 0);
  // No part of a refused file is left behind, however early its body broke off.
  assert.deepEqual(await readdir(path.join(t.dataDir, 'files/.incoming')).catch(() => []), []);
  // The same fields, well formed, are stored: the cases above failed for their defect alone.
  const ok = await raw('POST', SEND, { authorization: key, 'content-type': `multipart/form-data; boundary=${b}` }, `${multipartFields(b)}--${b}--\r\n`);
  assert.equal(ok.status, 201, ok.text);
});

test('a file part cut off at once leaves nothing behind, however the parser and the disk race', async () => {
  // The pipeline could fail before the write stream had opened (and created) its file, which it then created
  // after the cleanup: about 1 such body in 150 left an empty file in .incoming.
  // A key of its own: the 250 requests stay under the 300 a minute of one key.
  const own = await t.createConsoleUser();
  const ownChannel = (await t.console<{ id: string }>(own.token, 'POST', '/channel/custom/connect/', { body: { name: 'Race' } })).body.id;
  const b = 'RaceB0undary';
  const head = `--${b}\r\nContent-Disposition: form-data; name="files"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`;
  const fields = multipartFields(b).replace(channelId, ownChannel);
  const body = Buffer.concat([Buffer.from(fields + head), png().subarray(0, 40)]);
  for (let i = 0; i < 250; i += 1) {
    const res = await raw('POST', SEND, { authorization: own.key, 'content-type': `multipart/form-data; boundary=${b}` }, body);
    assert.equal(res.status, 400, res.text);
  }
  assert.deepEqual(await readdir(path.join(t.dataDir, 'files/.incoming')).catch(() => []), []);
});

test('a 100 MB file is refused with 413 as soon as it passes 10 MB, and nothing is left on disk', async () => {
  const b = 'BigB0undary';
  const head = Buffer.from(
    `${multipartFields(b)}--${b}\r\nContent-Disposition: form-data; name="files"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`,
  );
  const chunk = Buffer.alloc(1024 * 1024, 0x41);
  const total = 100;
  const { status, body, sentMb } = await new Promise<{ status: number; body: string; sentMb: number }>((resolve, reject) => {
    const url = new URL(`${t.url}${SEND}`);
    const request = http.request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { authorization: key, 'content-type': `multipart/form-data; boundary=${b}` } },
      (response) => {
        let text = '';
        response.on('data', (data: Buffer) => (text += data.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text, sentMb: sent }));
      },
    );
    let sent = 0;
    let answered = false;
    request.on('response', () => (answered = true));
    request.on('error', (error) => (answered ? undefined : reject(error)));
    request.write(head);
    const writeMore = () => {
      while (!answered && sent < total) {
        sent += 1;
        if (!request.write(chunk)) return void request.once('drain', writeMore);
      }
      if (!answered) request.end(`\r\n--${b}--\r\n`);
    };
    writeMore();
  });
  assert.equal(status, 413, body);
  assert.match(body, /File too large/);
  assert.ok(sentMb < total, `the server read all ${sentMb} MB before answering`);
  // The part received before the refusal is removed once the answer is sent.
  const incoming = path.join(t.dataDir, 'files/.incoming');
  await eventually(async () => (await readdir(incoming)).length === 0, 5000).catch(async (error: unknown) => {
    // Which files, how big and how old: a one-off failure in CI could not be reproduced.
    const left = await Promise.all((await readdir(incoming)).map(async (name) => ({ name, ...(await stat(path.join(incoming, name)).then((s) => ({ size: s.size, mtime: s.mtime.toISOString() }))) })));
    throw new Error(`${String(error)}: left in .incoming ${JSON.stringify(left)} at ${new Date().toISOString()}`);
  });
});

test('model server settings are checked when saved; a bad stored value is a 502, not a 500', async () => {
  const engine = (extra: Record<string, unknown>) => ({
    body: { agentEngine: { kind: 'openai-compatible', baseUrl: 'https://203.0.113.10/v1', model: 'm', ...extra } },
  });
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['unparseable URL', { baseUrl: 'http://%00/x' }, /agentEngine\.baseUrl must be an http or https URL/],
    ['credentials in the URL', { baseUrl: 'https://user:pw@203.0.113.10/v1' }, /agentEngine\.baseUrl must be an http or https URL/],
    ['loopback', { baseUrl: 'http://127.0.0.1:11434/v1' }, /agentEngine\.baseUrl points to a private/],
    ['IPv4-compatible IPv6 loopback', { baseUrl: 'http://[::127.0.0.1]/v1' }, /agentEngine\.baseUrl points to a private/],
    ['newline in the key', { apiKey: 'sk-abc\ndef' }, /apiKey/],
    ['control character in the key', { apiKey: 'sk-\u0007x' }, /apiKey/],
    ['non-ASCII key', { apiKey: 'sk-ключ' }, /apiKey/],
  ];
  for (const [label, extra, message] of cases) {
    const res = await t.console(token, 'PUT', `/channel/custom/${channelId}/`, engine(extra));
    assert.equal(res.status, 400, `${label}: ${res.text}`);
    assert.match(res.text, message, label);
  }
  const webhook = await t.console(token, 'PUT', `/channel/custom/${channelId}/`, { body: { webhookUrl: 'http://[::127.0.0.1]:8080/hook' } });
  assert.equal(webhook.status, 400, webhook.text);
  assert.match(webhook.text, /webhookUrl points to a private/);

  // A value stored before these checks existed (written beside the app, announced as the app announces its changes).
  await t.database.db.execute(
    sql`WITH changed AS (
          update channels set agent_engine = ${JSON.stringify({ kind: 'openai-compatible', baseUrl: 'http://%00/x', model: 'm', timeoutSeconds: 5, transcriptionModel: null })}::jsonb
          where id = ${channelId} returning id)
        SELECT pg_notify('parley_cache', 'channel:' || id) FROM changed`,
  );
  const tried = await eventually(async () => {
    const res = await t.console(token, 'POST', `/chat/test/${channelId}/`, { body: { text: 'hello' } });
    return res.status === 200 ? undefined : res;
  }, 2_000);
  assert.equal(tried.status, 502, tried.text);
  assert.match(tried.text, /not a valid URL/);
});
