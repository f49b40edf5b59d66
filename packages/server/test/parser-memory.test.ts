// A run of hostile documents against the real process, its memory measured from outside (/proc): DOCX and PDF
// decompression bombs, Markdown and HTML nested 100,000 deep, odd encodings and names, an empty file, a huge line
// (support/documents.ts, hostileDocuments), uploaded one after another. The server and its children stay under
// 600 MiB resident throughout, are back within 50 MiB of their idle memory 30 s after the last one settles,
// /healthz answers within 2 s all along, and each file ends `ready`, or `failed` with the sentence naming what it
// is or the limit it passed.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { parserBudget } from '../src/knowledge/documents/document-parser.ts';
import { hostileDocuments, makeDocx, returnsPolicyPdf } from './support/documents.ts';
import { eventually } from './support/events.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const MIB = 1024 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resident memory of a process and of all its descendants (a worker thread is in its process), in bytes. */
function residentBytes(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return 0; // ended meanwhile
  }
  const kb = Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  let children: number[];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    children = [];
  }
  return kb * 1024 + children.reduce((sum, child) => sum + residentBytes(child, field), 0);
}

interface Server {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
}

/** The server as `npm start` runs it: the JavaScript build, with the variable it sets (docs/performance.md). */
function start(dataDir: string): Promise<Server> {
  const env: NodeJS.ProcessEnv = { ...process.env, MALLOC_TRIM_THRESHOLD_: '131072', DATA_DIR: dataDir, PORT: '0', KB_ENCODER: 'off', RATE_LIMIT_MAX: '1000000' };
  for (const name of ['DATABASE_URL', 'ADMIN_TOKEN', 'REDIS_URL', 'PARLEY_URL']) delete env[name];
  const child = spawn(process.execPath, ['--enable-source-maps', 'packages/server/dist/main.js'], { cwd: root, env });
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

const dirs: string[] = [];
before(() => {
  // What `npm start` (prestart) runs; a no-op when the build is current.
  const built = spawnSync(process.execPath, ['packages/server/build.mjs'], { cwd: root, encoding: 'utf8' });
  assert.equal(built.status, 0, built.stderr);
});
after(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** The threads of a process (a parser worker is one): how the test sees that an idle worker has been ended. */
function threads(pid: number): number {
  return Number(/^Threads:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
}

test('a run of hostile documents: under 600 MiB, memory back within 30 s, /healthz within 2 s, each file ready or failed with its sentence', { timeout: 900_000 }, async (context) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-memory-'));
  dirs.push(dataDir);
  const server = await start(dataDir);
  const pid = server.child.pid ?? 0;
  let sampling = true;
  try {
    const call = async <T>(url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) => {
      const res = await fetch(`${server.url}${url}`, {
        method: init.method ?? 'GET',
        headers: { 'content-type': 'application/json', ...init.headers },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      return { status: res.status, body: (await res.json()) as T };
    };
    const adminHeaders = { authorization: `Bearer ${(await readFile(path.join(dataDir, 'admin-token'), 'utf8')).trim()}` };
    const account = await call<{ id: string }>('/admin/v1/accounts', { method: 'POST', headers: adminHeaders, body: { email: 'm@example.com', password: 'memory-pw-1' } });
    assert.equal(account.status, 201);
    const login = await call<{ token: string }>('/console/v1/auth/login', { method: 'POST', body: { email: 'm@example.com', password: 'memory-pw-1' } });
    const auth = { authorization: `Bearer ${login.body.token}` };
    const base = await call<{ id: string }>('/console/v1/knowledge-bases', { method: 'POST', headers: auth, body: { name: 'Hostile' } });
    assert.equal(base.status, 201);

    let peak = 0;
    let slowest = 0;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, residentBytes(pid));
        await sleep(20);
      }
    })();
    const health = (async () => {
      while (sampling) {
        const started = Date.now();
        const res = await fetch(`${server.url}/healthz`);
        await res.arrayBuffer();
        assert.equal(res.status, 200);
        slowest = Math.max(slowest, Date.now() - started);
        await sleep(100);
      }
    })();

    type Settled = { id: string; name: string; status: string; error?: string };
    const upload = async (filename: string, bytes: Buffer): Promise<Settled> => {
      const form = new FormData();
      form.append('file', new Blob([bytes]), filename);
      const res = await fetch(`${server.url}/console/v1/knowledge-bases/${base.body.id}/documents`, { method: 'POST', headers: auth, body: form });
      assert.equal(res.status, 201, `${filename}: ${await res.clone().text()}`);
      const { id } = (await res.json()) as { id: string };
      // Polled four times a second: the server's own work, not the test's requests, is what is measured.
      for (const deadline = Date.now() + 120_000; Date.now() < deadline; await sleep(250)) {
        const list = await call<{ documents: Settled[] }>(`/console/v1/knowledge-bases/${base.body.id}/documents`, { headers: auth });
        const doc = list.body.documents.find((d) => d.id === id && d.status !== 'processing');
        if (doc) return doc;
      }
      throw new Error(`${filename} still processing after 120 s`);
    };

    // Idle: the process once it has done the same work for harmless files of every kind (uploads, jobs, passages
    // stored, polls, the parsers and PDF.js loaded) and its idle parser worker has been ended, so that what is
    // measured after is what the hostile files leave; read a few times, the lowest kept.
    const threadsBefore = threads(pid);
    const harmless: [string, Buffer][] = [
      ['harmless.md', Buffer.from('# Returns\n\nYou can return any unworn item within 30 days.\n\n- one\n- two\n')],
      ['harmless.html', Buffer.from('<h1>Returns</h1><p>You can return any unworn item within 30 days.</p>')],
      ['harmless.txt', Buffer.from('Returns\n\nYou can return any unworn item within 30 days.\n')],
      ['harmless.docx', makeDocx([{ heading: 1, text: 'Returns' }, 'You can return any unworn item within 30 days.'])],
      ['harmless.pdf', returnsPolicyPdf()],
    ];
    for (const [filename, bytes] of harmless) assert.equal((await upload(filename, bytes)).status, 'ready', filename);
    await eventually(async () => threads(pid) <= threadsBefore, 120_000).catch(() => {
      throw new Error(`the idle parser worker was not ended: ${threads(pid)} threads, ${threadsBefore} before the first document`);
    });
    let idle = Infinity;
    for (let i = 0; i < 5; i++) {
      idle = Math.min(idle, residentBytes(pid));
      await sleep(200);
    }
    const idlePeak = peak;
    peak = 0;

    const outcomes: { filename: string; status: string; error?: string; name?: string }[] = [];
    const expected: typeof outcomes = [];
    // The server sizes its parser from this machine's memory, as the test does.
    const documents = hostileDocuments(parserBudget());
    for (const { filename, bytes, status, error, name } of documents) {
      const started = Date.now();
      const doc = await upload(filename, bytes);
      context.diagnostic(`${filename.slice(0, 40)}: ${doc.status} in ${Date.now() - started} ms, ${Math.round(residentBytes(pid) / MIB)} MiB now, ${Math.round(peak / MIB)} MiB peak${doc.error ? `: ${doc.error}` : ''}`);
      outcomes.push({ filename, status: doc.status, ...(doc.error ? { error: doc.error } : {}), ...(name ? { name: doc.name } : {}) });
      expected.push({ filename, status, ...(error ? { error } : {}), ...(name ? { name } : {}) });
    }

    // Back within 50 MiB of idle within 30 s of the last document settling.
    let now = residentBytes(pid);
    const settled = await eventually(async () => (now = residentBytes(pid)) <= idle + 50 * MIB, 30_000).then(
      () => true,
      () => false,
    );
    sampling = false;
    await Promise.all([sampler, health]);
    peak = Math.max(peak, residentBytes(pid, 'VmHWM'));
    context.diagnostic(
      `${documents.length} files: idle ${Math.round(idle / MIB)} MiB (peak ${Math.round(idlePeak / MIB)} MiB while the harmless ones were parsed), peak ${Math.round(peak / MIB)} MiB, ` +
        `${Math.round(now / MIB)} MiB ${settled ? 'within' : 'after'} 30 s, slowest /healthz ${slowest} ms`,
    );
    assert.deepEqual(outcomes, expected);
    assert.ok(settled, `${Math.round(now / MIB)} MiB resident 30 s after, idle was ${Math.round(idle / MIB)} MiB`);
    assert.ok(peak <= 600 * MIB, `peak ${Math.round(peak / MIB)} MiB resident (idle ${Math.round(idle / MIB)} MiB)`);
    assert.ok(slowest < 2000, `/healthz took ${slowest} ms`);
  } finally {
    sampling = false;
    server.child.kill('SIGTERM');
    await server.exited;
  }
});
