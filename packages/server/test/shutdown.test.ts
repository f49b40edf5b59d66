// Graceful shutdown (docs/architecture.md, Operations): the real server in a child process, on PGlite in a temp DATA_DIR, with
// a real webhook receiver and a real model server (OpenAI protocol) on this machine. Under load, SIGTERM ends it
// with exit code 0 within SHUTDOWN_GRACE_SECONDS; after a restart on the same DATA_DIR every acknowledged message
// has reached the receiver, and nothing reached it twice (no job and no delivery ran again because of the stop).
// A job that outlives the grace gives its lease back: the next start answers it at once, once.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { eventually } from './support/events.ts';
import { reply, startFakeLlm, type FakeLlm } from './support/fake-llm.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const COMPLETIONS = '/v1/chat/completions';

interface Server {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<{ code: number | null; at: number }>;
}

function start(dataDir: string, graceSeconds: number): Promise<Server> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: '0',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    KB_ENCODER: 'off',
    SHUTDOWN_GRACE_SECONDS: String(graceSeconds),
  };
  delete env.DATABASE_URL;
  delete env.ADMIN_TOKEN;
  delete env.REDIS_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', 'packages/server/src/main.ts'], { cwd: root, env });
  let output = '';
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => child.once('exit', (code) => resolve({ code, at: Date.now() })));
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1]) resolve({ child, url: match[1], output: () => output, exited });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then(({ code }) => reject(new Error(`exited ${code}: ${output}`)));
    setTimeout(() => reject(new Error(`no start: ${output}`)), 90_000).unref();
  });
}

async function call(server: Server, url: string, init: { method: string; headers?: Record<string, string>; body?: unknown }) {
  const res = await fetch(`${server.url}${url}`, {
    method: init.method,
    headers: { 'content-type': 'application/json', ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, string> };
}

/** An account, its key and a custom channel whose agent asks the fake model server and whose webhook is the receiver. */
async function setUp(server: Server, dataDir: string, receiver: Receiver, llm: FakeLlm) {
  const admin = { authorization: `Bearer ${(await readFile(path.join(dataDir, 'admin-token'), 'utf8')).trim()}` };
  const account = await call(server, '/admin/v1/accounts', { method: 'POST', headers: admin, body: { email: 'stop@example.com', password: 'stop-test-pw' } });
  const key = await call(server, `/admin/v1/accounts/${account.body.id}/api-keys`, { method: 'POST', headers: admin, body: {} });
  const login = await call(server, '/console/v1/auth/login', { method: 'POST', body: { email: 'stop@example.com', password: 'stop-test-pw' } });
  const channel = await call(server, '/console/v1/channel/custom/connect/', {
    method: 'POST',
    headers: { authorization: `Bearer ${login.body.token}` },
    body: {
      name: 'Stop',
      webhookUrl: `${receiver.url}/hook`,
      agentEngine: { kind: 'openai-compatible', baseUrl: `${llm.url}/v1`, model: 'test-model', apiKey: 'sk-test', timeoutSeconds: 30 },
    },
  });
  assert.equal(channel.status, 201, JSON.stringify(channel.body));
  return { key: key.body.key ?? '', channelId: channel.body.id ?? '' };
}

interface Received {
  messages: { id: string; role: string; text: string }[];
  chat: { externalChatId: string };
}

/** Every message the receiver got, by id, with how many times. */
function receivedMessages(receiver: Receiver) {
  const byId = new Map<string, { count: number; role: string; text: string; chat: string }>();
  for (const request of receiver.requests) {
    const payload = JSON.parse(request.body) as Received;
    for (const message of payload.messages ?? []) {
      const seen = byId.get(message.id);
      if (seen) seen.count += 1;
      else byId.set(message.id, { count: 1, role: message.role, text: message.text, chat: payload.chat.externalChatId });
    }
  }
  return byId;
}

const dirs: string[] = [];
const closers: (() => Promise<void>)[] = [];
after(async () => {
  await Promise.all(closers.map((close) => close()));
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

test('SIGTERM under load: exit 0 within the grace, and after a restart every acknowledged message is delivered once', { timeout: 240_000 }, async () => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-stop-'));
  dirs.push(dataDir);
  const receiver = await startReceiver();
  closers.push(() => receiver.close());
  // Each delivery is answered after 100 ms, each model call after 400 ms: both are in flight when SIGTERM comes.
  receiver.respond((_req, res) => setTimeout(() => res.end('ok'), 100));
  const llm = await startFakeLlm();
  closers.push(() => llm.close());
  llm.script(COMPLETIONS, reply.late(400, reply.text('Answered.')));
  const graceSeconds = 15;

  let server = await start(dataDir, graceSeconds);
  const { key, channelId } = await setUp(server, dataDir, receiver, llm);

  // Eight senders, each its own chat, each sending until the server stops answering.
  const acknowledged: { chat: string; text: string }[] = [];
  let stopped = false;
  const sender = async (n: number) => {
    for (let i = 0; !stopped; i += 1) {
      const text = `chat ${n} message ${i}`;
      try {
        const res = await call(server, '/api/v1/chats/chat/send-message-universal', {
          method: 'POST',
          headers: { authorization: key },
          body: { channel: 'custom', channelId, externalChatId: `chat-${n}`, role: 'user', text },
        });
        if (res.status >= 200 && res.status < 300) acknowledged.push({ chat: `chat-${n}`, text });
        else if (res.status !== 503) assert.fail(`unexpected ${res.status} ${JSON.stringify(res.body)}`);
        else return;
      } catch {
        return; // refused: the server no longer accepts
      }
    }
  };
  const senders = Array.from({ length: 8 }, (_, n) => sender(n));
  // SIGTERM once work is under way: messages acknowledged, model calls and deliveries in flight.
  await eventually(async () => acknowledged.length >= 40 && llm.to(COMPLETIONS).length >= 4 && receiver.requests.length >= 4, 60_000);
  const signalledAt = Date.now();
  server.child.kill('SIGTERM');
  const { code, at } = await server.exited;
  stopped = true;
  await Promise.all(senders);
  assert.equal(code, 0, server.output());
  // Exit code 0 is the server's own word that it stopped within the grace (past it, its timer exits 1); the
  // wall-clock bound only adds the test's view, which on a loaded machine sees the exit some tens of ms late.
  assert.ok(at - signalledAt < graceSeconds * 1000 + 1000, `stopped in ${at - signalledAt} ms`);
  assert.ok(!server.output().includes('handed back'), 'everything in flight finished within the grace');

  server = await start(dataDir, graceSeconds);
  closers.push(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
  });
  const chats = new Set(acknowledged.map((message) => message.chat));
  await eventually(async () => {
    const received = [...receivedMessages(receiver).values()];
    const customer = new Set(received.filter((m) => m.role === 'user').map((m) => m.text));
    // Every acknowledged message reached the receiver, and each chat's last customer message got its answer.
    if (!acknowledged.every((message) => customer.has(message.text))) return false;
    const answered = new Set(received.filter((m) => m.role !== 'user').map((m) => m.chat));
    return [...chats].every((chat) => answered.has(chat));
  }, 60_000);
  // Stopped again, so nothing can arrive after the count.
  server.child.kill('SIGTERM');
  assert.equal((await server.exited).code, 0);
  const received = receivedMessages(receiver);
  const twice = [...received.entries()].filter(([, m]) => m.count > 1);
  assert.deepEqual(twice, [], 'a message reached the receiver more than once');
  // An agent reply job run again after it was done would ask the model the same conversation a second time (a run
  // whose answer is dropped because newer messages came asks again with those, a different conversation).
  const conversations = llm.to(COMPLETIONS).map((request) => JSON.stringify((request.json as { messages: unknown }).messages));
  assert.equal(new Set(conversations).size, conversations.length, 'the model was asked one conversation twice');
});

test('a job that outlives the grace gives its lease back: the next start answers it at once, once', { timeout: 180_000 }, async () => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-stop-'));
  dirs.push(dataDir);
  const receiver = await startReceiver();
  closers.push(() => receiver.close());
  const llm = await startFakeLlm();
  closers.push(() => llm.close());
  llm.script(COMPLETIONS, reply.hang());
  const graceSeconds = 3;

  let server = await start(dataDir, graceSeconds);
  const { key, channelId } = await setUp(server, dataDir, receiver, llm);
  const sent = await call(server, '/api/v1/chats/chat/send-message-universal', {
    method: 'POST',
    headers: { authorization: key },
    body: { channel: 'custom', channelId, externalChatId: 'slow', role: 'user', text: 'a slow question' },
  });
  assert.equal(sent.status, 201);
  await eventually(async () => llm.to(COMPLETIONS).length === 1);
  const signalledAt = Date.now();
  server.child.kill('SIGTERM');
  const { code, at } = await server.exited;
  assert.equal(code, 0, server.output());
  // Exit code 0 is the server's own word that it stopped within the grace (past it, its timer exits 1); the
  // wall-clock bound only adds the test's view, which on a loaded machine sees the exit some tens of ms late.
  assert.ok(at - signalledAt < graceSeconds * 1000 + 1000, `stopped in ${at - signalledAt} ms`);
  assert.match(server.output(), /"msg":"shutdown grace ending: running jobs handed back"/);

  // The job waits unleased, its try not counted: due at once for whoever comes next.
  const pglite = await PGlite.create(path.join(dataDir, 'pglite'));
  const { rows } = await pglite.query<{ kind: string; leased: boolean; attempts: number }>(
    'SELECT kind, locked_until IS NOT NULL AS leased, attempts FROM jobs',
  );
  await pglite.close();
  assert.deepEqual(rows, [{ kind: 'agent.reply', leased: false, attempts: 0 }]);

  llm.script(COMPLETIONS, reply.text('Here is the answer.'));
  const restartedAt = Date.now();
  server = await start(dataDir, graceSeconds);
  closers.push(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
  });
  await eventually(async () => [...receivedMessages(receiver).values()].some((m) => m.text === 'Here is the answer.'), 30_000);
  assert.ok(Date.now() - restartedAt < 30_000);
  assert.equal(llm.to(COMPLETIONS).length, 2, 'asked once before the stop and once after');
  const answers = [...receivedMessages(receiver).values()].filter((m) => m.role !== 'user');
  assert.deepEqual(answers.map((m) => [m.text, m.count]), [['Here is the answer.', 1]]);
  server.child.kill('SIGTERM');
  assert.equal((await server.exited).code, 0);
});
