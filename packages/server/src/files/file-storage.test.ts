import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import { createLocalFileStorage, isFileKey, type FileStorage } from './file-storage.ts';

let dir: string;
let storage: FileStorage;

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'parley-files-'));
  // A directory that does not exist yet: the storage creates it.
  storage = createLocalFileStorage(path.join(dir, 'data', 'files'));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
}

test('put then open returns the same bytes, type, name and size', async () => {
  const bytes = Buffer.from('Здравствуйте, мир\n', 'utf8');
  const stored = await storage.put(bytes, { contentType: 'text/plain', name: 'Привет мир.txt' });
  assert.deepEqual(
    { size: stored.size, contentType: stored.contentType, name: stored.name },
    { size: bytes.length, contentType: 'text/plain', name: 'Привет мир.txt' },
  );
  const opened = await storage.open(stored.key);
  assert.ok(opened);
  assert.equal(opened.contentType, 'text/plain');
  assert.equal(opened.name, 'Привет мир.txt');
  assert.equal(opened.size, bytes.length);
  assert.deepEqual(await readAll(opened.stream), bytes);
});

test('a larger binary file round-trips byte for byte', async () => {
  const bytes = Buffer.alloc(3 * 1024 * 1024 + 7);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) & 0xff;
  const stored = await storage.put(bytes, { contentType: 'application/pdf', name: 'big.pdf' });
  const opened = await storage.open(stored.key);
  assert.ok(opened);
  assert.equal(opened.size, bytes.length);
  assert.ok((await readAll(opened.stream)).equals(bytes));
});

test('keys are 32 base64url characters (192 random bits) and never repeat', async () => {
  const keys = new Set<string>();
  for (let i = 0; i < 50; i++) {
    const { key } = await storage.put(Buffer.from([i]), { contentType: 'application/octet-stream', name: `${i}.bin` });
    assert.match(key, /^[A-Za-z0-9_-]{32}$/);
    assert.ok(isFileKey(key));
    keys.add(key);
  }
  assert.equal(keys.size, 50);
});

test('an unknown key is not found', async () => {
  assert.equal(await storage.open('A'.repeat(32)), undefined);
});

test('malformed keys are refused before the disk is touched: traversal, absolute paths, wrong length', async () => {
  const outside = path.join(dir, 'secret.txt');
  await writeFile(outside, 'top secret');
  await writeFile(`${outside}.json`, JSON.stringify({ key: 'x', size: 10, contentType: 'text/plain', name: 'secret.txt' }));
  const { key } = await storage.put(Buffer.from('x'), { contentType: 'text/plain', name: 'x.txt' });
  const attempts = [
    '../../secret.txt',
    '../secret.txt',
    `../${key.slice(0, 2)}/${key}`,
    outside,
    '/etc/passwd',
    'C:\\Windows\\win.ini',
    `${key.slice(0, 2)}/${key}`,
    `${key}.json`,
    `${key}/`,
    key.slice(0, 31),
    `${key}A`,
    `${key.slice(0, 31)}.`,
    `${key.slice(0, 31)}=`,
    `${key.slice(0, 31)}%`,
    `${key.slice(0, 30)}\0a`,
    '',
  ];
  for (const attempt of attempts) assert.equal(await storage.open(attempt), undefined, JSON.stringify(attempt));
  const opened = await storage.open(key);
  assert.ok(opened);
  opened.stream.destroy();
});

test('no temp files are left; each key has its bytes and its metadata', async () => {
  const root = path.join(dir, 'data', 'files');
  const stored = await storage.put(Buffer.from('left-overs?'), { contentType: 'text/plain', name: 'a.txt' });
  const files = await listFiles(root);
  assert.equal(files.filter((file) => file.endsWith('.tmp') || path.basename(file).startsWith('.')).length, 0, files.join('\n'));
  assert.ok(files.includes(path.join(stored.key.slice(0, 2), stored.key)));
  const sidecar = JSON.parse(await readFile(path.join(root, stored.key.slice(0, 2), `${stored.key}.json`), 'utf8')) as unknown;
  assert.deepEqual(sidecar, stored);
  for (const file of files) {
    assert.match(path.basename(file), /^[A-Za-z0-9_-]{32}(\.json)?$/, file);
  }
});

test('bytes without their metadata (a crash between the two writes) are not served', async () => {
  const root = path.join(dir, 'data', 'files');
  const stored = await storage.put(Buffer.from('orphan'), { contentType: 'text/plain', name: 'o.txt' });
  await rm(path.join(root, stored.key.slice(0, 2), `${stored.key}.json`));
  assert.equal(await storage.open(stored.key), undefined);
});

test('a key differing only in letter case does not open another file', async () => {
  const stored = await storage.put(Buffer.from('case'), { contentType: 'text/plain', name: 'c.txt' });
  const flipped = [...stored.key].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
  if (flipped !== stored.key) assert.equal(await storage.open(flipped), undefined);
});

test('a storage that cannot write reports the error', async () => {
  const blocked = path.join(dir, 'blocked');
  await writeFile(blocked, 'a file where the storage directory should be');
  const broken = createLocalFileStorage(blocked);
  await assert.rejects(broken.put(Buffer.from('x'), { contentType: 'text/plain', name: 'x.txt' }));
  assert.equal(await readFile(blocked, 'utf8'), 'a file where the storage directory should be');
});
