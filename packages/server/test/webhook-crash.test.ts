// kill -9 between attempts loses nothing: after a restart the pending delivery is attempted again.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { eventually } from './support/events.ts';
import { startReceiver } from './support/receiver.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));

function start(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: '0', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };
  delete env.DATABASE_URL;
  delete env.ADMIN_TOKEN;
  delete env.REDIS_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', 'packages/server/src/main.ts'], { cwd: root, env });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1]) resolve({ child, url: match[1] });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
    setTimeout(() => reject(new Error(`no start: ${output}`)), 90_000).unref();
  });
}

let dataDir = '';
after(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

test('a delivery interrupted by kill -9 is delivered after the restart', { timeout: 180_000 }, async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-crash-'));
  const receiver = await startReceiver();
  let calls = 0;
  receiver.respond((_req, res) => {
    calls += 1;
    res.statusCode = calls === 1 ? 500 : 200;
    res.end();
  });
  try {
    let server = await start(dataDir);
    const token = (await readFile(path.join(dataDir, 'admin-token'), 'utf8')).trim();
    const call = async (url: string, init: { method: string; headers?: Record<string, string>; body?: unknown }) => {
      const res = await fetch(`${server.url}${url}`, {
        method: init.method,
        headers: { 'content-type': 'application/json', ...init.headers },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      return (await res.json().catch(() => ({}))) as Record<string, string>;
    };
    const admin = { authorization: `Bearer ${token}` };
    const account = await call('/admin/v1/accounts', { method: 'POST', headers: admin, body: { email: 'crash@example.com', password: 'crash-test-pw' } });
    const key = await call(`/admin/v1/accounts/${account.id}/api-keys`, { method: 'POST', headers: admin, body: {} });
    const login = await call('/console/v1/auth/login', { method: 'POST', body: { email: 'crash@example.com', password: 'crash-test-pw' } });
    const channel = await call('/console/v1/channel/custom/connect/', {
      method: 'POST',
      headers: { authorization: `Bearer ${login.token}` },
      // The agent is off: the one event here is the customer's message.
      body: { name: 'Crash', webhookUrl: `${receiver.url}/hook`, settings: { isActive: false } },
    });
    await call('/api/v1/chats/chat/send-message-universal', {
      method: 'POST',
      headers: { authorization: key.key ?? '' },
      body: { channel: 'custom', channelId: channel.id, externalChatId: 'c1', role: 'user', text: 'survive this' },
    });
    await eventually(async () => receiver.requests.length === 1);
    server.child.kill('SIGKILL'); // within the 2 s pause before the second attempt
    await new Promise((resolve) => server.child.once('exit', resolve));

    server = await start(dataDir);
    await eventually(async () => receiver.requests.length >= 2, 15_000);
    const ids = receiver.requests.map((r) => (JSON.parse(r.body) as { messages: { id: string }[] }).messages[0]?.id);
    assert.equal(new Set(ids).size, 1, 'the same event');
    assert.equal((JSON.parse(receiver.requests[1]?.body ?? '{}') as { messages: { text: string }[] }).messages[0]?.text, 'survive this');
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server.child.once('exit', resolve));
  } finally {
    await receiver.close();
  }
});
