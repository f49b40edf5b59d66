// Backup and restore of the embedded database (docs/architecture.md, Operations): `npm run -s admin -- backup` while the real
// server runs and is being written to, `restore` into a new DATA_DIR, and a start on the restored folder keeps the
// data, the secrets and a stored file. With DATABASE_URL the command names pg_dump instead.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import * as tar from 'tar';
import { png } from './fixtures/files/samples.ts';
import { eventually } from './support/events.ts';
import { startReceiver } from './support/receiver.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));

interface Server {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
}

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, KB_ENCODER: 'off', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', ...extra };
  for (const name of ['DATABASE_URL', 'ADMIN_TOKEN', 'REDIS_URL', 'PARLEY_URL']) if (!(name in extra)) delete env[name];
  return env;
}

function start(dataDir: string): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'packages/server/src/main.ts'], { cwd: root, env: cleanEnv({ DATA_DIR: dataDir, PORT: '0', RATE_LIMIT_MAX: '1000000' }) });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1]) resolve({ child, url: match[1], exited });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then((code) => reject(new Error(`exited ${code}: ${output}`)));
    setTimeout(() => reject(new Error(`no start: ${output}`)), 90_000).unref();
  });
}

/** The operator CLI, as `npm run -s admin -- …` runs it. */
function admin(args: string[], env: Record<string, string>): Promise<{ code: number | null; json: Record<string, unknown> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'packages/server/src/cli/admin.ts', ...args], { cwd: root, env: cleanEnv(env) });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      const lines = stdout.trim().split('\n');
      assert.equal(lines.length, 1, `one JSON line: ${stdout} ${stderr}`);
      resolve({ code, json: JSON.parse(lines[0] ?? '') as Record<string, unknown> });
    }),
  );
}

const dirs: string[] = [];
after(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

test('backup while the server runs and is written to, restore into a new DATA_DIR, start on it', { timeout: 240_000 }, async () => {
  const work = await mkdtemp(path.join(os.tmpdir(), 'parley-backup-'));
  dirs.push(work);
  const [dataDir, restoredDir, archive] = [path.join(work, 'data'), path.join(work, 'restored'), path.join(work, 'parley.tar.gz')];
  const receiver = await startReceiver();
  let server = await start(dataDir);
  try {
    const call = async (url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) => {
      const res = await fetch(`${server.url}${url}`, {
        method: init.method ?? 'GET',
        headers: { 'content-type': 'application/json', ...init.headers },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, string> & { count?: number } };
    };
    const adminHeaders = { authorization: `Bearer ${(await readFile(path.join(dataDir, 'admin-token'), 'utf8')).trim()}` };
    const account = await call('/admin/v1/accounts', { method: 'POST', headers: adminHeaders, body: { email: 'b@example.com', password: 'backup-pw-1' } });
    const key = (await call(`/admin/v1/accounts/${account.body.id}/api-keys`, { method: 'POST', headers: adminHeaders, body: {} })).body.key ?? '';
    const login = await call('/console/v1/auth/login', { method: 'POST', body: { email: 'b@example.com', password: 'backup-pw-1' } });
    const channel = await call('/console/v1/channel/custom/connect/', {
      method: 'POST',
      headers: { authorization: `Bearer ${login.body.token}` },
      body: { name: 'Backed up', webhookUrl: `${receiver.url}/hook`, settings: { isActive: false } },
    });
    const channelId = channel.body.id ?? '';
    // A message with a stored file.
    const form = new FormData();
    for (const [name, value] of Object.entries({ channel: 'custom', channelId, externalChatId: 'with-file', role: 'user', text: 'see the photo' })) form.append(name, value);
    form.append('files', new Blob([png()], { type: 'image/png' }), 'photo.png');
    const upload = await fetch(`${server.url}/api/v1/chats/chat/send-message-universal`, { method: 'POST', headers: { authorization: key }, body: form });
    assert.equal(upload.status, 201);
    await eventually(async () => receiver.requests.length === 1);
    const fileUrl = new URL(
      (JSON.parse(receiver.requests[0]?.body ?? '{}') as { messages: { attachments: { url: string }[] }[] }).messages[0]?.attachments[0]?.url ?? '',
    );

    // Writers go on during the backup: each acknowledged message makes a chat of its own.
    let writing = true;
    let acknowledged = 0;
    const writer = (async () => {
      for (let i = 0; writing; i += 1) {
        const res = await call('/api/v1/chats/chat/send-message-universal', {
          method: 'POST',
          headers: { authorization: key },
          body: { channel: 'custom', channelId, externalChatId: `w-${i}`, role: 'user', text: `message ${i}` },
        });
        assert.equal(res.status, 201);
        acknowledged += 1;
      }
    })();
    await eventually(async () => acknowledged >= 20, 30_000);
    const before = acknowledged;
    const backup = await admin(['backup', '--out', archive], { DATA_DIR: dataDir, PARLEY_URL: server.url });
    const during = acknowledged;
    writing = false;
    await writer;
    assert.equal(backup.code, 0, JSON.stringify(backup.json));
    assert.deepEqual(backup.json, { file: archive, bytes: (await stat(archive)).size });
    assert.equal((await stat(archive)).mode & 0o777, 0o600);
    assert.ok(during > before, 'messages were written while the backup ran');
    // A second backup to the same file is refused.
    const again = await admin(['backup', '--out', archive], { DATA_DIR: dataDir, PARLEY_URL: server.url });
    assert.equal(again.code, 1);
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);

    const restored = await admin(['restore', '--in', archive], { DATA_DIR: restoredDir });
    assert.equal(restored.code, 0, JSON.stringify(restored.json));
    assert.deepEqual(restored.json, { dataDir: restoredDir });
    const refused = await admin(['restore', '--in', archive], { DATA_DIR: restoredDir });
    assert.equal(refused.code, 1);
    assert.deepEqual(refused.json, { error: `DATA_DIR ${restoredDir} is not empty: restore only into an empty or new folder` });

    server = await start(restoredDir);
    // The same key (its hash in the database) and the same admin token (a file of DATA_DIR) work.
    const chats = await call('/api/v1/chats/chat?limit=1', { headers: { authorization: key } });
    assert.equal(chats.status, 200, JSON.stringify(chats.body));
    // One chat per message acknowledged before the backup began, at least; none that was not acknowledged by its end.
    const count = chats.body.count ?? 0;
    assert.ok(count >= before + 1 && count <= during + 1, `${count} chats, ${before}..${during} acknowledged`);
    const file = await fetch(`${server.url}${fileUrl.pathname}`);
    assert.equal(file.status, 200);
    assert.deepEqual(Buffer.from(await file.arrayBuffer()), png());
    assert.equal((await call('/readyz')).status, 200);
    const list = await call(`/admin/v1/accounts/${account.body.id}/api-keys`, { headers: adminHeaders });
    assert.equal(list.status, 200);
    // A backup with no server running opens the database itself.
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
    const offline = await admin(['backup', '--out', path.join(work, 'offline.tar.gz')], { DATA_DIR: restoredDir });
    assert.equal(offline.code, 0, JSON.stringify(offline.json));
  } finally {
    server.child.kill('SIGTERM');
    await receiver.close();
  }
});

test('with DATABASE_URL, backup names pg_dump and prints its command without the password', async () => {
  const result = await admin(['backup', '--out', '/tmp/parley.dump'], { DATABASE_URL: 'postgres://parley:hunter2@db.internal:5432/parley', DATA_DIR: '/srv/parley' });
  assert.equal(result.code, 1);
  assert.deepEqual(result.json, {
    error: 'DATABASE_URL is a PostgreSQL server: back it up with pg_dump, and /srv/parley (its files and secrets) with it',
    command: 'pg_dump --format=custom --file="/tmp/parley.dump" "postgres://parley@db.internal:5432/parley"',
  });
  assert.equal(spawnSync('true').status, 0);
});

test('a backup whose database dump is damaged is refused with one line of JSON, and DATA_DIR is left empty', { timeout: 120_000 }, async () => {
  const work = await mkdtemp(path.join(os.tmpdir(), 'parley-backup-'));
  dirs.push(work);
  const staging = path.join(work, 'staging');
  await mkdir(path.join(staging, 'data'), { recursive: true });
  await writeFile(path.join(staging, 'parley-backup.json'), JSON.stringify({ format: 1, createdAt: new Date().toISOString() }));
  await writeFile(path.join(staging, 'data', 'admin-token'), 'token\n');
  // A tar archive of one file that is no database, whole and cut short.
  const notDatabase = path.join(work, 'not-a-database');
  await mkdir(notDatabase);
  await writeFile(path.join(notDatabase, 'PG_VERSION'), Buffer.alloc(20_000, 'x'));
  await tar.create({ file: path.join(work, 'other.tar'), cwd: notDatabase, portable: true }, ['PG_VERSION']);
  const otherTar = await readFile(path.join(work, 'other.tar'));
  const cases: [string, Buffer][] = [
    ['garbage', Buffer.from('this is no tar archive of a database\n'.repeat(40))],
    ['empty', Buffer.alloc(0)],
    ['truncated', otherTar.subarray(0, 5000)],
    ['not-a-database', otherTar],
  ];
  for (const [name, dump] of cases) {
    await writeFile(path.join(staging, 'pglite.tar'), dump);
    const archive = path.join(work, `${name}.tar.gz`);
    await tar.create({ gzip: true, file: archive, cwd: staging, portable: true }, ['parley-backup.json', 'pglite.tar', 'data']);
    const dataDir = path.join(work, `restored-${name}`);
    const result = await admin(['restore', '--in', archive], { DATA_DIR: dataDir });
    assert.equal(result.code, 1, name);
    assert.deepEqual(Object.keys(result.json), ['error'], name);
    assert.match(String(result.json.error), new RegExp(`^${archive.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} holds a damaged database dump \\(.+\\)$`), name);
    assert.deepEqual(await readdir(dataDir), [], `${name}: nothing half-restored is left`);
  }
});
