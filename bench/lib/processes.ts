// The processes a benchmark measures or talks to: the Parley server as `npm start` runs it (node on its
// JavaScript build), the bare node:http ceiling, and the webhook receiver. Each is its own process, apart from the
// load generator (this process).
import { execFileSync, fork, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/**
 * What `npm start` runs (package.json's `start`: `[NAME=value …] node …`), after its prestart built the server:
 * the variables it sets and node's arguments.
 */
const START = (() => {
  const { scripts } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const words = (scripts.start ?? '').trim().split(/\s+/);
  const env: Record<string, string> = {};
  while (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0] ?? '')) {
    const [name = '', ...value] = (words.shift() ?? '').split('=');
    env[name] = value.join('=');
  }
  if (words.shift() !== 'node') throw new Error(`package.json's start script must run node: ${scripts.start}`);
  return { env, args: words };
})();

/** Builds the server's JavaScript as `npm start`'s prestart does (nothing to do when it is current). */
export function buildServer(): void {
  const built = spawnSync(process.execPath, ['packages/server/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('the server build failed (node packages/server/build.mjs)');
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Peak resident set of a process so far (Linux `VmHWM`), in MiB; undefined where /proc has no answer. */
export async function peakRssMb(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmHWM:\s+(\d+) kB/m.exec(status)?.[1];
    return kb ? Math.round(Number(kb) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

/** Resident set of a process and its child processes now (Linux `VmRSS`), in MiB; undefined without /proc. */
export async function rssMb(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  const kb = async (id: string): Promise<number> => {
    const status = await readFile(`/proc/${id}/status`, 'utf8').catch(() => '');
    const own = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
    const children = (await readFile(`/proc/${id}/task/${id}/children`, 'utf8').catch(() => '')).split(' ').filter(Boolean);
    return own + (await Promise.all(children.map(kb))).reduce((sum, value) => sum + value, 0);
  };
  const total = await kb(String(pid));
  return total > 0 ? Math.round(total / 1024) : undefined;
}

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`; 100 on Linux almost everywhere). */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * CPU time a process has used so far (user + system, every thread of it), in microseconds, from
 * `/proc/<pid>/stat`; undefined where /proc has no answer. Resolution: one clock tick (10 ms).
 */
export async function cpuMicroseconds(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces, inside parentheses): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1_000_000) / CLOCK_TICKS : undefined;
  } catch {
    return undefined;
  }
}

/** What a measured process has spent so far: CPU time, and the SQL statements it sent (Parley only). */
export interface Usage {
  cpuUs: number | undefined;
  statements: number | undefined;
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

async function waitForHttp(url: string, child: ChildProcess, what: string, timeoutMs = 120_000, status = 200, pollMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode} before answering`);
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.ok || response.status === status) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${what} did not answer ${url} within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

export interface ParleyServer {
  url: string;
  adminToken: string;
  pid: number | undefined;
  /** Milliseconds from the spawn until /healthz answered 200. */
  readyMs: number;
  /** Peak RSS of the server process until now, in MiB. */
  peakRssMb(): Promise<number | undefined>;
  /** RSS of the server process and its children now, in MiB. */
  rssMb(): Promise<number | undefined>;
  /** CPU time and SQL statements of the server so far (read before and after a measured run). */
  usage(): Promise<Usage>;
  /** SIGTERM, then waits for a clean exit (the CPU profile, if asked for, is written then). */
  stop(): Promise<void>;
}

export interface ParleyOptions {
  dataDir: string;
  databaseUrl: string | undefined;
  /** Where the server's stdout and stderr go (pino JSON lines). */
  logFile: string;
  /** Where the server writes its statement count when asked (PARLEY_COUNT_STATEMENTS, SIGUSR2). */
  statementsFile: string;
  /** Write a V8 CPU profile of the server to this folder when it stops. */
  cpuProfileDir?: string;
  env?: Record<string, string>;
}

/** Starts the server exactly as `npm start` does (node on the build; see buildServer), with a benchmark's rate limit. */
export async function startParley(options: ParleyOptions): Promise<ParleyServer> {
  const port = await freePort();
  const adminToken = randomBytes(24).toString('hex');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: options.dataDir,
    ADMIN_TOKEN: adminToken,
    JWT_SECRET: randomBytes(24).toString('hex'),
    // The only benchmark-only setting: the spec's 300 per 10 s would stop any load test at once.
    RATE_LIMIT_MAX: '1000000000',
    // Receivers and model servers of the benchmark are on this machine.
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    // Counts the SQL statements the server sends; it writes the count to this file on SIGUSR2.
    PARLEY_COUNT_STATEMENTS: options.statementsFile,
    ...START.env,
    ...options.env,
  };
  delete env.REDIS_URL;
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
  else delete env.DATABASE_URL;
  const args = options.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] : [];
  const spawned = performance.now();
  // The server writes its log to the file itself, as to an operator's journal: piped through this process, every
  // access line would also cost the load generator (autocannon runs here) and lower every ratio measured.
  const log = openSync(options.logFile, 'a');
  const child = spawn(process.execPath, [...args, ...START.args], { cwd: ROOT, env, stdio: ['ignore', log, log] });
  closeSync(log);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${url}/healthz`, child, 'the Parley server', 120_000, 200, 10);
  } catch (error) {
    child.kill('SIGKILL');
    const tail = (await readFile(options.logFile, 'utf8').catch(() => '')).trim().split('\n').slice(-5).join('\n');
    throw new Error(`${(error as Error).message} (log: ${options.logFile}):\n${tail}`, { cause: error });
  }
  const readyMs = performance.now() - spawned;
  let reports = 0;
  const statements = async (): Promise<number | undefined> => {
    if (child.pid === undefined || child.exitCode !== null) return undefined;
    const asked = reports + 1;
    child.kill('SIGUSR2');
    const deadline = Date.now() + 10_000;
    for (;;) {
      const report = await readFile(options.statementsFile, 'utf8').then(
        (text) => JSON.parse(text) as { statements: number; reports: number },
        () => undefined,
      );
      if (report && report.reports >= asked) {
        reports = report.reports;
        return report.statements;
      }
      if (Date.now() > deadline) return undefined;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  return {
    url,
    adminToken,
    pid: child.pid,
    readyMs,
    peakRssMb: () => peakRssMb(child.pid),
    rssMb: () => rssMb(child.pid),
    async usage() {
      const [cpuUs, count] = await Promise.all([cpuMicroseconds(child.pid), statements()]);
      return { cpuUs, statements: count };
    },
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited(child);
      clearTimeout(timer);
    },
  };
}

export interface CeilingServer {
  url: string;
  /** CPU time of the ceiling so far (it sends no SQL). */
  usage(): Promise<Usage>;
  stop(): Promise<void>;
}

/**
 * The ceiling: a bare node:http server in its own process answering every request with a pre-serialized JSON
 * body of `bytes` bytes (and `status`), after reading the request body.
 */
export async function startCeiling(bytes: number, status = 200): Promise<CeilingServer> {
  const port = await freePort();
  const child = fork(path.join(ROOT, 'bench/lib/ceiling-server.mjs'), [String(port), String(bytes), String(status)], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/`, child, 'the ceiling server', 10_000, status);
  return {
    url,
    usage: async () => ({ cpuUs: await cpuMicroseconds(child.pid), statements: undefined }),
    async stop() {
      child.kill('SIGTERM');
      await exited(child);
    },
  };
}

/** What the receiver process reports about one path. */
export interface PathStats {
  count: number;
  firstAt: number;
  lastAt: number;
}

/** One webhook as the receiver saw it (conversations scenario): enough to match it to the request behind it. */
export interface ReceivedEvent {
  at: number;
  event: string;
  externalChatId: string | undefined;
  roles: string[];
  texts: string[];
  messageIds: string[];
  eventId: string | undefined;
}

export interface Receiver {
  url: string;
  pid: number | undefined;
  /** Counts per path since start or the last reset. */
  stats(): Promise<Record<string, PathStats>>;
  /** Every event received since the last call (only when started with `record: true`). */
  drain(): Promise<ReceivedEvent[]>;
  reset(): Promise<void>;
  /** CPU time of the receiver so far (when it serves as a ceiling). */
  usage(): Promise<Usage>;
  stop(): Promise<void>;
}

type ReceiverReply =
  | { type: 'ready'; port: number }
  | { type: 'stats'; stats: Record<string, PathStats> }
  | { type: 'events'; events: ReceivedEvent[] }
  | { type: 'reset' };

/**
 * The customer's webhook receiver, in its own process: 200 at once, except on paths starting `/slow`, which answer
 * after `slowMs`. Times are wall-clock milliseconds with fractions (comparable with this process's `now()`).
 */
export async function startReceiver(options: { record?: boolean; slowMs?: number } = {}): Promise<Receiver> {
  const child = fork(
    path.join(ROOT, 'bench/lib/receiver-process.mjs'),
    [options.record ? 'record' : 'count', String(options.slowMs ?? 1000)],
    { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] },
  );
  const waiting: ((reply: ReceiverReply) => void)[] = [];
  let ready: (port: number) => void = () => {};
  const port = new Promise<number>((resolve) => (ready = resolve));
  child.on('message', (reply: ReceiverReply) => {
    if (reply.type === 'ready') ready(reply.port);
    else waiting.shift()?.(reply);
  });
  const ask = <T extends ReceiverReply>(type: string): Promise<T> =>
    new Promise((resolve) => {
      waiting.push((reply) => resolve(reply as T));
      child.send({ type });
    });
  return {
    url: `http://127.0.0.1:${await port}`,
    pid: child.pid,
    stats: async () => (await ask<{ type: 'stats'; stats: Record<string, PathStats> }>('stats')).stats,
    drain: async () => (await ask<{ type: 'events'; events: ReceivedEvent[] }>('drain')).events,
    reset: async () => void (await ask('reset')),
    usage: async () => ({ cpuUs: await cpuMicroseconds(child.pid), statements: undefined }),
    async stop() {
      child.kill('SIGTERM');
      await exited(child);
    },
  };
}

/** Wall-clock time in milliseconds with sub-millisecond precision, the same scale in every process. */
export function now(): number {
  return performance.timeOrigin + performance.now();
}
