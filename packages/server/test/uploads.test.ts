// send-message-universal with multipart/form-data: real PNG/MP3/PDF bytes, a disguised executable, the
// limits (10 files, 10 MB each), attachments in the webhook event and served back at their link.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { elf, mp3WithId3, pdf, png } from './fixtures/files/samples.ts';
import { eventsOf } from './support/events.ts';
import { PUBLIC_URL, startTestApp, type TestApp } from './support/harness.ts';

let t: TestApp;
let key: string;
let channelId: string;
before(async () => {
  t = await startTestApp();
  const user = await t.createConsoleUser();
  key = user.key;
  channelId = (await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', { body: { name: 'Files' } })).body.id;
});
after(() => t.close());

interface Part {
  name: string;
  filename?: string;
  type?: string;
  bytes: Buffer | string;
}

function form(fields: Record<string, string>, files: Part[] = []): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  for (const file of files) {
    data.append(file.name, new Blob([file.bytes], { type: file.type ?? 'application/octet-stream' }), file.filename ?? 'file');
  }
  return data;
}

const fields = (externalChatId: string, extra: Record<string, string> = {}) => ({
  channel: 'custom',
  channelId,
  externalChatId,
  role: 'user',
  text: 'See attached',
  ...extra,
});

async function post(data: FormData) {
  const res = await fetch(`${t.url}/api/v1/chats/chat/send-message-universal`, {
    method: 'POST',
    headers: { authorization: key },
    body: data,
  });
  const text = await res.text();
  return { status: res.status, text, body: text ? (JSON.parse(text) as unknown) : undefined };
}

async function chatId(externalChatId: string): Promise<string | undefined> {
  const rows = await queryRows<{ id: string }>(t.database.db, sql`select id from chats where external_chat_id = ${externalChatId}`);
  return rows[0]?.id;
}

type Attachment = { contentType: string; url: string; fileSize: number; name: string };

test('PNG, MP3 and PDF by their bytes: 201, attachments in the event, served back at an unguessable link', async () => {
  const files = [
    { name: 'files', filename: 'photo.png', type: 'image/png', bytes: png() },
    { name: 'files', filename: 'voice.mp3', type: 'application/octet-stream', bytes: mp3WithId3() },
    { name: 'files', filename: 'scan', type: 'text/plain', bytes: pdf() },
  ];
  const res = await post(form(fields('up-1', { senderName: 'Uma', messageId: 'u1' }), files));
  assert.equal(res.status, 201, res.text);
  assert.equal(res.text, '');
  const id = await chatId('up-1');
  const event = (await eventsOf(t.database.db, channelId)).find((e) => e.chat_id === id);
  const message = (event?.payload as { messages: { text: string; senderName: string; attachments: Attachment[] }[] }).messages[0];
  assert.equal(message?.text, 'See attached');
  assert.equal(message?.senderName, 'Uma');
  const attachments = message?.attachments ?? [];
  assert.deepEqual(
    attachments.map((a) => [a.contentType, a.name, a.fileSize]),
    [
      ['image/png', 'photo.png', files[0]?.bytes.length],
      ['audio/mpeg', 'voice.mp3', files[1]?.bytes.length],
      ['application/pdf', 'scan.pdf', files[2]?.bytes.length],
    ],
  );
  for (const [index, attachment] of attachments.entries()) {
    assert.ok(attachment.url.startsWith(`${PUBLIC_URL}/files/`), attachment.url);
    assert.match(new URL(attachment.url).pathname, /^\/files\/[A-Za-z0-9_-]{32}\//);
    const served = await fetch(`${t.url}${new URL(attachment.url).pathname}`);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), attachment.contentType);
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), files[index]?.bytes);
  }
  const stored = await queryRows<{ attachments: { kind: string }[] }>(t.database.db, sql`select attachments from messages where chat_id = ${id}`);
  assert.deepEqual(stored[0]?.attachments.map((a) => a.kind), ['image', 'audio', 'other'], 'audio is a voice message');
});

test('a disguised executable is rejected whatever its name and declared type; nothing is stored', async () => {
  for (const [filename, type] of [['photo.png', 'image/png'], ['notes.txt', 'text/plain']]) {
    const res = await post(form(fields('up-exe'), [{ name: 'files', filename, type, bytes: elf() }]));
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { message: `File type not accepted: ${filename}`, statusCode: 400 });
  }
  assert.equal(await chatId('up-exe'), undefined);
});

test('10 files pass, the 11th is 400; a file over 10 MB is 413', async () => {
  const ten = Array.from({ length: 10 }, (_, i) => ({ name: 'files', filename: `p${i}.png`, bytes: png() }));
  assert.equal((await post(form(fields('up-10'), ten))).status, 201);
  const eleven = await post(form(fields('up-11'), [...ten, { name: 'files', filename: 'p10.png', bytes: png() }]));
  assert.equal(eleven.status, 400);
  assert.deepEqual(eleven.body, { message: 'At most 10 files per message', statusCode: 400 });
  const big = Buffer.concat([png(), Buffer.alloc(10 * 1024 * 1024)]);
  const tooBig = await post(form(fields('up-big'), [{ name: 'files', filename: 'big.png', bytes: big }]));
  assert.equal(tooBig.status, 413);
  assert.deepEqual(tooBig.body, { message: 'File too large: at most 10 MB per file', statusCode: 413 });
  assert.equal(await chatId('up-11'), undefined);
  assert.equal(await chatId('up-big'), undefined);
});

test('the form fields follow the JSON rules: unknown field, missing text, another file field, uniqueId', async () => {
  const cases: [FormData, unknown][] = [
    [form({ ...fields('up-bad'), mood: 'x' }), { message: ['property mood should not exist'], statusCode: 400 }],
    [form({ ...fields('up-bad'), uniqueId: 'x' }), { message: ['property uniqueId should not exist'], statusCode: 400 }],
    [form({ channel: 'custom', channelId, externalChatId: 'up-bad', role: 'user' }), { message: ['text is required'], statusCode: 400 }],
    [form(fields('up-bad'), [{ name: 'attachment', filename: 'p.png', bytes: png() }]), { message: 'property attachment should not exist', statusCode: 400 }],
  ];
  for (const [data, expected] of cases) {
    const res = await post(data);
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, expected);
  }
  assert.equal(await chatId('up-bad'), undefined);
});

test('a message without files may still come as multipart', async () => {
  assert.equal((await post(form(fields('up-plain')))).status, 201);
  assert.ok(await chatId('up-plain'));
});
