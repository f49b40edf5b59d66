// README.md's walk-through, run as written so it cannot drift: its `sh server` block starts the real server
// (`npm start`), its `sh receiver` block the one-line webhook receiver, then its `sh walkthrough` blocks run in
// order in one bash session. Only the ports change (free ones instead of 3000 and 4000) and DATA_DIR is a
// temporary folder; the receiver must then print the agent's reply.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { eventually } from './support/events.ts';
import { freePort } from './support/harness.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** The fenced blocks of README.md whose info string is `sh <role>`, in order. */
export function readmeBlocks(markdown: string, role: string): string[] {
  const blocks: string[] = [];
  const fence = /^```sh (\S+)\n([\s\S]*?)^```$/gm;
  for (let match = fence.exec(markdown); match; match = fence.exec(markdown)) {
    if (match[1] === role && match[2] !== undefined) blocks.push(match[2]);
  }
  return blocks;
}

interface Background {
  child: ChildProcess;
  output: () => string;
}

const started: ChildProcess[] = [];
let dataDir: string | undefined;
after(async () => {
  // Each in its own process group (npm start runs node under npm under bash): stop the whole group.
  for (const child of started) {
    // Even when bash has ended: the server it started may still run in its group.
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  }
  // The group leader (bash) ends at once; the server under it is still shutting down and writing its database
  // files. Remove the data folder only once every process of each group is gone.
  await Promise.all(started.map(({ pid }) => (pid === undefined ? undefined : eventually(async () => !groupAlive(pid), 30_000))));
  if (dataDir) await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
});

/**
 * Whether a process of the group still runs. Read from /proc, where a zombie (ended, not yet reaped by an init
 * that may never reap it) shows its state and counts as gone; signal 0 would count it as alive.
 */
function groupAlive(pgid: number): boolean {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so read after its last ')'.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') return true;
  }
  return false;
}

/** Whether something listens on the port of 127.0.0.1. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function runInBackground(script: string, env: NodeJS.ProcessEnv): Background {
  const child = spawn('bash', ['-c', script], { cwd: root, env, detached: true });
  started.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  return { child, output: () => output };
}

test('the README walk-through, run as written against a started server, ends with the agent reply at the webhook', { timeout: 180_000 }, async () => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const [serverBlock] = readmeBlocks(readme, 'server');
  const [receiverBlock] = readmeBlocks(readme, 'receiver');
  const walkthrough = readmeBlocks(readme, 'walkthrough');
  assert.ok(serverBlock && receiverBlock && walkthrough.length >= 3, 'README has the marked blocks');
  assert.match(serverBlock, /npm start/);

  const port = await freePort();
  const receiverPort = await freePort();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-readme-'));
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info' };
  // The walk-through's own server, not the suite's database or Redis.
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  delete env.ADMIN_TOKEN;
  delete env.PARLEY_URL;
  const ports = (text: string) =>
    text.replaceAll('127.0.0.1:3000', `127.0.0.1:${port}`).replaceAll('127.0.0.1:4000', `127.0.0.1:${receiverPort}`);

  const server = runInBackground(serverBlock, env);
  const receiver = runInBackground(receiverBlock.replace('.listen(4000,', `.listen(${receiverPort},`), env);
  await eventually(async () => /Server listening at/.test(server.output()), 90_000).catch(() => {
    throw new Error(`the server did not start:\n${server.output()}`);
  });
  // The README's reader has the receiver running in its terminal before step 3; on a loaded machine `node -e` takes
  // a few seconds to listen, and an event sent before that is retried later, after the agent's reply.
  await eventually(() => accepts(receiverPort), 60_000).catch(() => {
    throw new Error(`the receiver did not start:\n${receiver.output()}`);
  });

  const script = walkthrough.map(ports).join('\n');
  const run = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd: root, env, encoding: 'utf8', timeout: 120_000 });
  assert.equal(run.status, 0, `walk-through failed:\n${run.stdout}\n${run.stderr}`);
  const lines = run.stdout.trim().split('\n');
  assert.equal(lines[0], '{"chats":[],"count":0}');
  assert.match(lines[1] ?? '', /^API channel: cc:/);
  assert.equal(lines.at(-1), '201');

  // The receiver prints the customer's message, then the agent's reply from the knowledge base.
  const events = await eventually(async () => {
    const printed = receiver
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { event: string; chat: { externalChatId?: string }; messages: { role: string; text: string; senderName: string | null }[] });
    return printed.some((e) => e.messages[0]?.role === 'assistant') && printed.some((e) => e.messages[0]?.role === 'user') ? printed : undefined;
  }, 90_000).catch(() => {
    throw new Error(`the customer's message and the agent's reply did not both reach the receiver:\n${receiver.output()}\nserver:\n${server.output()}`);
  });
  // The customer's message first; on a machine so loaded that its delivery timed out, its retry comes after.
  const byRole = (e: (typeof events)[number]) => (e.messages[0]?.role === 'user' ? 0 : 1);
  assert.deepEqual(
    [...events].sort((a, b) => byRole(a) - byRole(b)).map((e) => [e.event, e.chat.externalChatId, e.messages[0]?.role, e.messages[0]?.senderName, e.messages[0]?.text]),
    [
      ['new_messages', 'visitor-1', 'user', 'Unknown visitor', 'What are your opening hours?'],
      ['new_messages', 'visitor-1', 'assistant', null, 'We are open from 10:00 to 22:00 every day.'],
    ],
  );
});
