// Files in S3-compatible object storage (S3_BUCKET and the other S3_* variables) against a local S3 server (s3rver:
// real HTTP on 127.0.0.1, access keys checked): the storage itself (streamed writes and reads, names in metadata,
// deletes, missing objects, a store that fails), then the app's flows on it: attachments uploaded through the public
// API and served back at the same /files/ links as with the local folder, and a knowledge-base document stored,
// parsed and removed. CI also runs the upload, document and messenger test files once with PARLEY_TEST_S3=1.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { createS3FileStorage } from '../src/files/s3-file-storage.ts';
import { newFileKey, type FileStorage } from '../src/files/file-storage.ts';
import { pdf, png } from './fixtures/files/samples.ts';
import { returnsPolicyPdf } from './support/documents.ts';
import { eventsOf, eventually } from './support/events.ts';
import { startFakeS3, type FakeS3 } from './support/fake-s3.ts';
import { PUBLIC_URL, startTestApp, type TestApp } from './support/harness.ts';

let s3: FakeS3;
let incoming: string;
before(async () => {
  s3 = await startFakeS3();
  incoming = await mkdtemp(path.join(os.tmpdir(), 'parley-s3-incoming-'));
});
after(async () => {
  await s3.close();
  await rm(incoming, { recursive: true, force: true });
});

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('the S3 file storage', () => {
  let storage: FileStorage;
  before(() => {
    storage = createS3FileStorage(s3.settings, incoming);
  });

  test('put and open: the bytes, the type and the name (not ASCII) come back; one object files/<key> with that Content-Type', async () => {
    const bytes = randomBytes(2048);
    const stored = await storage.put(bytes, { contentType: 'application/pdf', name: 'Café menü – été.pdf' });
    assert.match(stored.key, /^[A-Za-z0-9_-]{32}$/);
    assert.deepEqual({ ...stored, key: undefined }, { key: undefined, size: 2048, contentType: 'application/pdf', name: 'Café menü – été.pdf' });
    const head = await s3.client.send(new HeadObjectCommand({ Bucket: s3.settings.bucket, Key: `files/${stored.key}` }));
    assert.equal(head.ContentType, 'application/pdf');
    assert.equal(head.ContentLength, 2048);
    const opened = await storage.open(stored.key);
    assert.ok(opened);
    assert.deepEqual({ contentType: opened.contentType, name: opened.name, size: opened.size }, { contentType: 'application/pdf', name: 'Café menü – été.pdf', size: 2048 });
    assert.deepEqual(await readAll(opened.stream), bytes);
  });

  test('putFile streams a received upload (3 MB) from the incoming folder to the bucket and deletes the local copy', async () => {
    const source = await storage.incomingPath();
    assert.equal(path.dirname(source), incoming);
    const bytes = randomBytes(3 * 1024 * 1024);
    await writeFile(source, bytes);
    const stored = await storage.putFile(source, { contentType: 'image/png', name: 'big.png' });
    assert.equal(stored.size, bytes.length);
    assert.equal(existsSync(source), false, 'the local copy is gone');
    const opened = await storage.open(stored.key);
    assert.ok(opened);
    assert.equal(opened.size, bytes.length);
    assert.ok((await readAll(opened.stream)).equals(bytes));
  });

  test('open: undefined for an unknown key, a malformed key and an object this storage did not write', async () => {
    assert.equal(await storage.open(newFileKey()), undefined);
    assert.equal(await storage.open('../../etc/passwd'), undefined);
    assert.equal(await storage.open('short'), undefined);
    const foreign = newFileKey();
    await s3.client.send(new PutObjectCommand({ Bucket: s3.settings.bucket, Key: `files/${foreign}`, Body: 'no metadata' }));
    assert.equal(await storage.open(foreign), undefined);
  });

  test('remove deletes the object; removing an unknown or malformed key is nothing to do', async () => {
    const stored = await storage.put(Buffer.from('bye'), { contentType: 'text/plain', name: 'bye.txt' });
    assert.ok((await s3.objectKeys()).includes(`files/${stored.key}`));
    await storage.remove(stored.key);
    assert.equal((await s3.objectKeys()).includes(`files/${stored.key}`), false);
    assert.equal(await storage.open(stored.key), undefined);
    await storage.remove(stored.key);
    await storage.remove('not a key');
  });

  test('a store that refuses (unknown access key) or does not answer fails the call: never "missing", never a stored file', async () => {
    const wrongKey = createS3FileStorage({ ...s3.settings, accessKeyId: 'NOT-THE-KEY' }, incoming);
    const refused = (error: Error) => error.name === 'InvalidAccessKeyId';
    await assert.rejects(wrongKey.put(Buffer.from('x'), { contentType: 'text/plain', name: 'x.txt' }), refused);
    await assert.rejects(wrongKey.open(newFileKey()), refused);
    await assert.rejects(wrongKey.remove(newFileKey()), refused);
    const gone = await startFakeS3();
    await gone.close();
    const down = createS3FileStorage(gone.settings, incoming);
    await assert.rejects(down.open(newFileKey()));
    await assert.rejects(down.put(Buffer.from('x'), { contentType: 'text/plain', name: 'x.txt' }));
  });
});

describe('the app with its files in S3', () => {
  let t: TestApp;
  let key: string;
  let token: string;
  let channelId: string;
  before(async () => {
    t = await startTestApp({ s3: s3.settings, rateLimitMax: 100_000 });
    ({ key, token } = await t.createConsoleUser());
    channelId = (await t.console<{ id: string }>(token, 'POST', '/channel/custom/connect/', { body: { name: 'Files', disableAgentResponses: true } })).body.id;
  });
  after(() => t.close());

  /** Files under DATA_DIR/files: none with S3, whatever the flows did (uploads pass through `.incoming` only). */
  async function localFiles(): Promise<string[]> {
    const entries = await readdir(path.join(t.dataDir, 'files'), { recursive: true, withFileTypes: true }).catch(() => []);
    return entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
  }

  test('attachments through the public API: in the bucket, linked at <PUBLIC_URL>/files/<key>/<name> and served from there', async () => {
    const form = new FormData();
    for (const [name, value] of Object.entries({ channel: 'custom', channelId, externalChatId: 's3-1', role: 'user', text: 'See attached' })) form.append(name, value);
    const files = [
      { filename: 'photo.png', type: 'image/png', bytes: png() },
      { filename: 'scan.pdf', type: 'application/pdf', bytes: pdf() },
    ];
    for (const file of files) form.append('files', new Blob([file.bytes], { type: file.type }), file.filename);
    const res = await fetch(`${t.url}/api/v1/chats/chat/send-message-universal`, { method: 'POST', headers: { authorization: key }, body: form });
    assert.equal(res.status, 201, await res.text());

    const event = await eventually(async () => (await eventsOf(t.database.db, channelId))[0], 5000);
    const attachments = (event.payload as { messages: { attachments: { url: string; contentType: string; name: string; fileSize: number }[] }[] }).messages[0]?.attachments ?? [];
    assert.deepEqual(attachments.map((a) => [a.contentType, a.name, a.fileSize]), files.map((f) => [f.type, f.filename, f.bytes.length]));
    const keys: string[] = [];
    for (const [index, attachment] of attachments.entries()) {
      const match = /^\/files\/([A-Za-z0-9_-]{32})\/(.+)$/.exec(new URL(attachment.url).pathname);
      assert.ok(attachment.url.startsWith(`${PUBLIC_URL}/files/`) && match, attachment.url);
      keys.push(`files/${match[1]}`);
      const served = await fetch(`${t.url}${new URL(attachment.url).pathname}`);
      assert.equal(served.status, 200);
      assert.equal(served.headers.get('content-type'), attachment.contentType);
      assert.equal(served.headers.get('content-length'), String(files[index]?.bytes.length));
      assert.deepEqual(Buffer.from(await served.arrayBuffer()), files[index]?.bytes);
      // The name is part of the link: the key alone, or with another name, is no file.
      assert.equal((await fetch(`${t.url}/files/${match[1]}/other.png`)).status, 404);
    }
    const stored = await s3.objectKeys();
    for (const objectKey of keys) assert.ok(stored.includes(objectKey), `${objectKey} in the bucket`);
    assert.deepEqual(await localFiles(), []);
    assert.equal((await fetch(`${t.url}/files/${newFileKey()}/photo.png`)).status, 404);
  });

  test('a knowledge-base document: stored in the bucket, parsed from it, then removed from it', async () => {
    const user = await t.createConsoleUser();
    const base = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name: 'Help centre' } });
    const before = new Set(await s3.objectKeys());
    const form = new FormData();
    form.append('file', new Blob([returnsPolicyPdf()], { type: 'application/pdf' }), 'returns-policy.pdf');
    const res = await fetch(`${t.url}/console/v1/knowledge-bases/${base.body.id}/documents`, { method: 'POST', headers: { authorization: `Bearer ${user.token}` }, body: form });
    const text = await res.text();
    assert.equal(res.status, 201, text);
    const id = (JSON.parse(text) as { id: string }).id;
    const doc = await eventually(async () => {
      const list = await t.console<{ documents: { id: string; status: string; passages: number }[] }>(user.token, 'GET', `/knowledge-bases/${base.body.id}/documents`);
      return list.body.documents.find((d) => d.id === id && d.status !== 'processing');
    }, 60_000);
    assert.equal(doc.status, 'ready');
    assert.ok(doc.passages > 0);
    assert.deepEqual((await s3.objectKeys()).filter((objectKey) => !before.has(objectKey)), [], 'the upload is removed once parsed');
    assert.deepEqual(await localFiles(), []);
  });
});
