import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import * as samples from '../../test/fixtures/files/samples.ts';
import { createLocalFileStorage, type FileStorage, type StoredFile } from './file-storage.ts';
import { fileUrl } from './file-storage.ts';
import { filesPlugin } from './files-routes.ts';

let dir: string;
let storage: FileStorage;
let app: FastifyInstance;
let base: string;

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'parley-files-routes-'));
  storage = createLocalFileStorage(path.join(dir, 'files'));
  app = Fastify();
  await app.register(filesPlugin, { storage });
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});

after(async () => {
  await app.close();
  await rm(dir, { recursive: true, force: true });
});

const CACHE = 'private, max-age=31536000, immutable';

test('fileUrl: the key and the percent-encoded name under PUBLIC_URL', () => {
  const file: StoredFile = { key: 'k'.repeat(32), size: 1, contentType: 'image/png', name: 'Фото 1 #2?.png' };
  assert.equal(fileUrl('https://chat.example.com', file), `https://chat.example.com/files/${'k'.repeat(32)}/%D0%A4%D0%BE%D1%82%D0%BE%201%20%232%3F.png`);
  assert.equal(fileUrl('https://chat.example.com/', file), fileUrl('https://chat.example.com', file));
});

test('an image is served inline with its type, length, nosniff and a year of private caching', async () => {
  const bytes = samples.png();
  const stored = await storage.put(bytes, { contentType: 'image/png', name: 'photo.png' });
  const response = await fetch(fileUrl(base, stored));
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'image/png');
  assert.equal(response.headers.get('content-length'), String(bytes.length));
  assert.equal(response.headers.get('content-disposition'), "inline; filename*=UTF-8''photo.png");
  assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(response.headers.get('cache-control'), CACHE);
  assert.ok(Buffer.from(await response.arrayBuffer()).equals(bytes));
});

test('a Cyrillic text file: UTF-8 charset, the name encoded per RFC 8187', async () => {
  const bytes = samples.cyrillicText();
  const stored = await storage.put(bytes, { contentType: 'text/plain', name: "Счёт (копия) 'май'.txt" });
  const response = await fetch(fileUrl(base, stored));
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.equal(
    response.headers.get('content-disposition'),
    "inline; filename*=UTF-8''%D0%A1%D1%87%D1%91%D1%82%20%28%D0%BA%D0%BE%D0%BF%D0%B8%D1%8F%29%20%27%D0%BC%D0%B0%D0%B9%27.txt",
  );
  assert.equal(await response.text(), bytes.toString('utf8'));
});

test('audio, video and PDF are inline; office documents download as attachments', async () => {
  const cases: Array<[string, string, Buffer, string]> = [
    ['audio/mpeg', 'voice.mp3', samples.mp3WithId3(), 'inline'],
    ['video/mp4', 'clip.mp4', samples.mp4(), 'inline'],
    ['application/pdf', 'invoice.pdf', samples.pdf(), 'inline'],
    ['application/msword', 'letter.doc', samples.doc(), 'attachment'],
    ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'sheet.xlsx', samples.xlsx(), 'attachment'],
    ['image/svg+xml', 'vector.svg', samples.svg(), 'attachment'],
    ['text/html', 'page.html', samples.html(), 'attachment'],
  ];
  for (const [contentType, name, bytes, disposition] of cases) {
    const stored = await storage.put(bytes, { contentType, name });
    const response = await fetch(fileUrl(base, stored));
    assert.equal(response.status, 200, name);
    assert.equal(response.headers.get('content-type'), contentType, name);
    assert.equal(response.headers.get('content-length'), String(bytes.length), name);
    assert.equal(response.headers.get('content-disposition'), `${disposition}; filename*=UTF-8''${name}`, name);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff', name);
    assert.ok(Buffer.from(await response.arrayBuffer()).equals(bytes), name);
  }
});

test('a name longer than a route parameter may be (100 characters) is still served', async () => {
  const name = `${'отчёт-'.repeat(30)}.pdf`;
  const stored = await storage.put(samples.pdf(), { contentType: 'application/pdf', name });
  const response = await fetch(fileUrl(base, stored));
  assert.equal(response.status, 200);
  await response.arrayBuffer();
});

test('a name with a slash in it round-trips through its encoded URL', async () => {
  const stored = await storage.put(Buffer.from('x'), { contentType: 'text/plain', name: 'a/b c.txt' });
  const response = await fetch(fileUrl(base, stored));
  assert.equal(response.status, 200);
  assert.equal(await response.text(), 'x');
});

test('HEAD gives the headers without the body', async () => {
  const bytes = samples.gif();
  const stored = await storage.put(bytes, { contentType: 'image/gif', name: 'a.gif' });
  const response = await fetch(fileUrl(base, stored), { method: 'HEAD' });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'image/gif');
  assert.equal(response.headers.get('content-length'), String(bytes.length));
  assert.equal(await response.text(), '');
});

async function assertNotFound(url: string): Promise<void> {
  const response = await fetch(url);
  assert.equal(response.status, 404, url);
  assert.deepEqual(await response.json(), { message: 'File not found', statusCode: 404 }, url);
}

test('404 for an unknown key, a malformed key and a name that differs from the stored one', async () => {
  const stored = await storage.put(samples.png(), { contentType: 'image/png', name: 'photo.png' });
  await assertNotFound(`${base}/files/${'A'.repeat(32)}/photo.png`);
  await assertNotFound(`${base}/files/not-a-key/photo.png`);
  await assertNotFound(`${base}/files/..%2F..%2Fetc/passwd`);
  await assertNotFound(`${base}/files/${stored.key}/other.png`);
  await assertNotFound(`${base}/files/${stored.key}/PHOTO.png`);
  await assertNotFound(`${base}/files/${stored.key}/photo.png/extra`);
  await assertNotFound(`${base}/files/${stored.key}/`);
  // The right URL still works after all those misses.
  const response = await fetch(fileUrl(base, stored));
  assert.equal(response.status, 200);
  await response.arrayBuffer();
});
