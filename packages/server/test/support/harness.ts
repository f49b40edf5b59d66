// The real app on a real port against a real database, for HTTP-level tests.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import type { DatabaseHandle } from '../../src/db/client.ts';
import type { Clock } from '../../src/lib/clock.ts';
import type { LogLevel, S3Settings } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { openTestDatabase } from './database.ts';
import { startFakeS3, type FakeS3 } from './fake-s3.ts';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef0123456789';
export const JWT_SECRET = 'test-jwt-secret-0123456789abcdef0123456789';
export const SECRETS_KEY = 'test-secrets-key-0123456789abcdef0123456789';
export const PASSWORD = 'correct horse battery';
/** PUBLIC_URL of test apps (their port is only known after listen): tests follow links by their path. */
export const PUBLIC_URL = 'https://parley.test';

export interface TestResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface TestApp {
  url: string;
  app: FastifyInstance;
  database: DatabaseHandle;
  /** The app's DATA_DIR (stored files under `files/`, unless in object storage). */
  dataDir: string;
  /** The local S3 server the app keeps its files in, when PARLEY_TEST_S3=1 made one (see startTestApp). */
  s3: FakeS3 | undefined;
  /** Every log line the app wrote. */
  logs: string[];
  request<T = unknown>(
    method: string,
    path: string,
    options?: { headers?: Record<string, string>; query?: Record<string, string>; body?: unknown },
  ): Promise<TestResponse<T>>;
  admin<T = unknown>(method: string, path: string, body?: unknown): Promise<TestResponse<T>>;
  api<T = unknown>(key: string | undefined, path: string, query?: Record<string, string>): Promise<TestResponse<T>>;
  /** A console call (`/console/v1` + path) with a bearer token and optional `UserLang`. */
  console<T = unknown>(
    token: string | undefined,
    method: string,
    path: string,
    options?: { body?: unknown; query?: Record<string, string>; lang?: string },
  ): Promise<TestResponse<T>>;
  /** A new account and an API key for it (all scopes unless given); its password is PASSWORD. */
  createAccount(options?: { scopes?: string[] }): Promise<{ accountId: string; email: string; key: string; keyId: string }>;
  /** A new account, logged in to the console. */
  createConsoleUser(): Promise<{ accountId: string; email: string; key: string; token: string }>;
  close(): Promise<void>;
}

let accountCounter = 0;

export interface TestAppOptions {
  rateLimitMax?: number;
  redisUrl?: string;
  webhookAllowPrivateNetworks?: boolean;
  clock?: Clock;
  apiKeyCacheTtlMs?: number;
  /** Share another test app's database (two API processes on one server). */
  database?: DatabaseHandle;
  /** Run the background workers (default true); false is an API-only process. */
  workers?: boolean;
  deliveryPollMs?: number;
  /** How often the conversations sweep runs (default 60 s). */
  conversationSweepMs?: number;
  /** What parsing documents may add to the process's memory, in MB (default from the machine). */
  parserMaxMemoryMb?: number;
  /** pino level of the app's log (default info). */
  logLevel?: LogLevel;
  /** Console login attempts per address per minute; high by default, since every test logs in from 127.0.0.1. */
  loginAttemptsPerIp?: number;
  /** TRUST_PROXY: reverse proxies whose X-Forwarded-For gives the client address. */
  trustProxy?: string[];
  /** Messenger API base URLs (the local fakes of support/fake-*.ts); unset: the real services' defaults. */
  messengerApis?: { telegram: string; meta: string; viber: string };
  /** CRM API base URLs (the local fakes of support/fake-hubspot.ts, fake-pipedrive.ts). */
  crmApis?: { hubspot: string; pipedrive: string | undefined };
  /**
   * PUBLIC_URL is the app's own real address (default: the fake PUBLIC_URL). Browser tests need links (the widget
   * snippet) that a browser can follow; the port is chosen before the app is built.
   */
  realPublicUrl?: boolean;
  /**
   * The built-in sentence encoder (KB_ENCODER). Off by default: only the test files about retrieval pay the model's
   * load (about a second and +110 MB).
   */
  knowledgeEncoder?: boolean;
  /** METRICS_TOKEN: GET /metrics on the app's port behind this bearer token. */
  metricsToken?: string;
  /** METRICS_PORT: a second listener on 127.0.0.1 serving only /metrics. */
  metricsPort?: number;
  /** SMTP_URL: invitations are e-mailed through it (a local SMTP server of the test). */
  smtpUrl?: string;
  /** ALERT_EMAIL_DELAY_SECONDS (default 60). */
  alertEmailDelaySeconds?: number;
  /** S3_*: files in object storage (a local S3 server of the test, support/fake-s3.ts) instead of DATA_DIR/files. */
  s3?: S3Settings;
}

/** A port that was free a moment ago (for apps that must know their address before they listen). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * fetch, sent again once when a kept-alive connection turns out to be closed by the server before any answer (the
 * server's idle timeout ran out while this process's event loop was blocked, e.g. by PGlite seeding a large table,
 * so the client's own keep-alive timer had not fired yet). Nothing was read by the server on that connection.
 */
async function fetchOnce(target: URL, init: RequestInit): Promise<Response> {
  try {
    return await fetch(target, init);
  } catch (error) {
    const code = (error as { cause?: { code?: string } }).cause?.code;
    if (code !== 'ECONNRESET' && code !== 'UND_ERR_SOCKET') throw error;
    return fetch(target, init);
  }
}

/**
 * PARLEY_TEST_S3=1 (CI runs the file tests so once more): every app without its own `s3` keeps its files in a local
 * S3 server of its own (support/fake-s3.ts) instead of DATA_DIR/files.
 */
const FILES_IN_S3 = process.env.PARLEY_TEST_S3 === '1';

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const ownDatabase = options.database === undefined;
  const ownS3 = options.s3 === undefined && FILES_IN_S3 ? await startFakeS3() : undefined;
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-test-'));
  const database = options.database ?? (await openTestDatabase());
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      if (process.env.PARLEY_TEST_LOGS) process.stderr.write(chunk);
      done();
    },
  });
  const port = options.realPublicUrl ? await freePort() : 0;
  const app = await buildApp({
    config: {
      rateLimitMax: options.rateLimitMax ?? 300,
      redisUrl: options.redisUrl,
      adminToken: ADMIN_TOKEN,
      jwtSecret: JWT_SECRET,
      secretsKey: SECRETS_KEY,
      webhookAllowPrivateNetworks: options.webhookAllowPrivateNetworks ?? false,
      publicUrl: options.realPublicUrl ? `http://127.0.0.1:${port}` : PUBLIC_URL,
      dataDir,
      ...(options.messengerApis ? { messengerApis: options.messengerApis } : {}),
      ...(options.crmApis ? { crmApis: options.crmApis } : {}),
      knowledgeEncoder: options.knowledgeEncoder ?? false,
      metricsToken: options.metricsToken,
      metricsPort: options.metricsPort,
      host: '127.0.0.1',
      smtpUrl: options.smtpUrl,
      smtpFrom: 'Parley Team <team@parley.test>',
      ...(options.alertEmailDelaySeconds !== undefined ? { alertEmailDelaySeconds: options.alertEmailDelaySeconds } : {}),
      s3: options.s3 ?? ownS3?.settings,
    },
    db: database.db,
    logger: createLogger(options.logLevel ?? 'info', sink),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.apiKeyCacheTtlMs !== undefined ? { apiKeyCacheTtlMs: options.apiKeyCacheTtlMs } : {}),
    ...(options.workers !== undefined ? { workers: options.workers } : {}),
    ...(options.deliveryPollMs !== undefined ? { deliveryPollMs: options.deliveryPollMs } : {}),
    ...(options.conversationSweepMs !== undefined ? { conversationSweepMs: options.conversationSweepMs } : {}),
    ...(options.parserMaxMemoryMb !== undefined ? { parserMaxMemoryMb: options.parserMaxMemoryMb } : {}),
    listen: database.listen,
    loginAttemptsPerIp: options.loginAttemptsPerIp ?? 100_000,
    trustProxy: options.trustProxy,
  });
  await app.listen({ port, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

  const request: TestApp['request'] = async (method, path, opts = {}) => {
    const target = new URL(path, url);
    for (const [k, v] of Object.entries(opts.query ?? {})) target.searchParams.set(k, v);
    const headers: Record<string, string> = { ...opts.headers };
    let body: string | undefined;
    if (opts.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    }
    const response = await fetchOnce(target, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, headers: response.headers, body: parsed as never, text };
  };

  const admin: TestApp['admin'] = (method, path, body) =>
    request(method, `/admin/v1${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, body });

  const testApp: TestApp = {
    url,
    app,
    database,
    dataDir,
    s3: ownS3,
    logs,
    request,
    admin,
    api: (key, path, query) =>
      request('GET', `/api/v1${path}`, { headers: key === undefined ? {} : { authorization: key }, query }),
    async createAccount({ scopes } = {}) {
      accountCounter += 1;
      const email = `user${accountCounter}-${process.pid}-${Date.now()}@example.com`;
      const account = await admin<{ id: string }>('POST', '/accounts', { email, password: PASSWORD });
      if (account.status !== 201) throw new Error(`account: ${account.status} ${account.text}`);
      const key = await admin<{ id: string; key: string }>(
        'POST',
        `/accounts/${account.body.id}/api-keys`,
        scopes ? { scopes } : {},
      );
      if (key.status !== 201) throw new Error(`key: ${key.status} ${key.text}`);
      return { accountId: account.body.id, email, key: key.body.key, keyId: key.body.id };
    },
    console: (token, method, path, opts = {}) =>
      request(method, `/console/v1${path}`, {
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(opts.lang ? { userlang: opts.lang } : {}) },
        body: opts.body,
        query: opts.query,
      }),
    async createConsoleUser() {
      const account = await testApp.createAccount();
      const login = await request<{ token: string }>('POST', '/console/v1/auth/login', {
        body: { email: account.email, password: PASSWORD },
      });
      if (login.status !== 200) throw new Error(`login: ${login.status} ${login.text}`);
      return { accountId: account.accountId, email: account.email, key: account.key, token: login.body.token };
    },
    async close() {
      await app.close();
      if (ownDatabase) await database.close();
      await ownS3?.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return testApp;
}
