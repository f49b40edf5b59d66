// Environment → typed, validated configuration (docs/architecture.md, Operational contract). Read once, at start.
import { isIP } from 'node:net';
import path from 'node:path';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** S3_BUCKET and the other S3_*: files in S3-compatible object storage (files/s3-file-storage.ts). */
export interface S3Settings {
  bucket: string;
  /** An S3-compatible server's base URL (MinIO, Garage, R2…); unset: AWS's own endpoint for the region. */
  endpoint: string | undefined;
  region: string;
  /** Both or neither; neither: the AWS SDK's default credentials (AWS_* variables, instance or task roles). */
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  /** `<endpoint>/<bucket>/<object>` rather than `<bucket>.<endpoint>/<object>`: most self-hosted servers need it. */
  forcePathStyle: boolean;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** Bounds on waiting for a PostgreSQL server (DATABASE_URL only), so a silent database fails requests instead of hanging them. */
  databaseTimeouts: DatabaseTimeouts;
  redisUrl: string | undefined;
  /** Operator API token; when unset, main generates one and keeps it in DATA_DIR. */
  adminToken: string | undefined;
  publicUrl: string;
  webhookAllowPrivateNetworks: boolean;
  /** Console token signing key; when unset, generated and kept in DATA_DIR. */
  jwtSecret: string | undefined;
  /** Key of channel secrets at rest; when unset, generated and kept in DATA_DIR. */
  secretsKey: string | undefined;
  rateLimitMax: number;
  /** Delivered webhook deliveries are pruned after this many days (failed ones are kept for redelivery). */
  deliveryRetentionDays: number;
  /** Audit log events are pruned after this many days (AUDIT_RETENTION_DAYS, default 365). */
  auditRetentionDays: number;
  logLevel: LogLevel;
  /** Base URLs of the messengers' APIs (docs/architecture.md, Messenger connectors): operator settings, never per channel. */
  messengerApis: MessengerApis;
  /** Base URLs of the CRMs' APIs (docs/architecture.md, CRM connections): operator settings, never per connection. */
  crmApis: CrmApis;
  /** PARLEY_COUNT_STATEMENTS (benchmarks): count SQL statements and write the count here on SIGUSR2. */
  countStatementsFile: string | undefined;
  /** PGLITE_SHARED_BUFFERS: the embedded database's buffer pool (PostgreSQL's `shared_buffers`), e.g. `16MB`. */
  pgliteSharedBuffers: string;
  /** KB_ENCODER: the built-in sentence encoder of knowledge-base retrieval (on by default; `off`: words only). */
  knowledgeEncoder: boolean;
  /** TRUST_PROXY: reverse proxies whose `X-Forwarded-For` gives the client address (unset: the TCP peer). */
  trustProxy: string[] | undefined;
  /** METRICS_TOKEN: `GET /metrics` on PORT with `Authorization: Bearer <token>` (unset: no /metrics on PORT). Never logged. */
  metricsToken: string | undefined;
  /** METRICS_PORT: a second listener on HOST serving only `GET /metrics`, without a token. */
  metricsPort: number | undefined;
  /** SHUTDOWN_GRACE_SECONDS: on SIGTERM, how long in-flight requests, jobs and deliveries get before the exit. */
  shutdownGraceSeconds: number;
  /** SMTP_URL (`smtp://user:pass@host:port`, or smtps://): invitations are e-mailed through it; unset: only shown. */
  smtpUrl: string | undefined;
  /** SMTP_FROM: the sender of those e-mails (default `Parley <no-reply@{PUBLIC_URL's host}>`). */
  smtpFrom: string;
  /** ALERT_EMAIL_DELAY_SECONDS: how long a chat needing a person waits for a member to be online before alert e-mails go out. */
  alertEmailDelaySeconds: number;
  /** S3_BUCKET and the other S3_*: files in S3-compatible object storage; unset: in DATA_DIR/files. */
  s3: S3Settings | undefined;
}

export interface DatabaseTimeouts {
  /** DATABASE_CONNECT_TIMEOUT_MS: a new connection, or a free one of the pool, within this or the request fails. */
  connectMs: number;
  /** DATABASE_STATEMENT_TIMEOUT_MS: PostgreSQL's `statement_timeout`; the client gives up on an answer a second later. */
  statementMs: number;
  /** DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: PostgreSQL's `idle_in_transaction_session_timeout`. */
  idleInTransactionMs: number;
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = { connectMs: 5_000, statementMs: 15_000, idleInTransactionMs: 60_000 };

export interface CrmApis {
  hubspot: string;
  /** Replaces Pipedrive's per-company base `https://{companyDomain}.pipedrive.com` when set. */
  pipedrive: string | undefined;
}

export const DEFAULT_CRM_APIS: CrmApis = { hubspot: 'https://api.hubapi.com', pipedrive: undefined };

export interface MessengerApis {
  telegram: string;
  meta: string;
  viber: string;
}

export const DEFAULT_MESSENGER_APIS: MessengerApis = {
  telegram: 'https://api.telegram.org',
  meta: 'https://graph.facebook.com',
  viber: 'https://chatapi.viber.com',
};

/** The embedded database's buffer pool by default: sized for a small server (docs/performance.md, Memory). */
export const DEFAULT_PGLITE_SHARED_BUFFERS = '16MB';

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    reason: string,
  ) {
    super(`Invalid configuration: ${variable} ${reason}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

function text(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new ConfigError(name, `must be "true" or "false" (got "${raw}")`);
}

function url(env: Env, name: string, protocols: readonly string[], secret: boolean): string | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(raw);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !protocols.includes(parsed.protocol)) {
    // A connection URL may hold a password: never echo it.
    const shown = secret ? '' : ` (got "${raw}")`;
    throw new ConfigError(name, `must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}${shown}`);
  }
  return raw;
}

/** An API base URL: http(s), no query or fragment; kept without a trailing slash. */
function baseUrl(env: Env, name: string, fallback: string): string {
  const raw = url(env, name, ['http:', 'https:'], false) ?? fallback;
  const parsed = new URL(raw);
  if (parsed.search || parsed.hash || parsed.username || parsed.password) {
    throw new ConfigError(name, `must be a base URL without credentials, query or fragment (got "${raw}")`);
  }
  return raw.replace(/\/+$/, '');
}

function onOff(env: Env, name: string, fallback: boolean): boolean {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (raw === 'on' || raw === 'off') return raw === 'on';
  throw new ConfigError(name, `must be on or off (got "${raw}")`);
}

function secret(env: Env, name: string, minLength: number): string | undefined {
  const raw = text(env, name);
  if (raw !== undefined && raw.length < minLength) {
    throw new ConfigError(name, `must be at least ${minLength} characters long`);
  }
  return raw;
}

const DNS_LABEL = '[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const DNS_NAME = new RegExp(`^${DNS_LABEL}(\\.${DNS_LABEL})*$`);

/**
 * An IP address or a host name. A dotted name of digits only is an IPv4 address or nothing (`999.1.1.1`):
 * refused here, at once, rather than after a DNS lookup that can take many seconds to fail.
 */
function host(env: Env, name: string, fallback: string): string {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (isIP(raw) !== 0) return raw;
  if (raw.length <= 253 && DNS_NAME.test(raw) && !/^[0-9.]+$/.test(raw)) return raw;
  throw new ConfigError(name, `must be an IP address or a host name (got "${raw}")`);
}

/** Names of address ranges proxy-addr knows (Fastify's trustProxy): loopback, link-local and private addresses. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** Comma-separated IP addresses, CIDRs (`10.0.0.0/8`) or range names; a typo would trust nobody or everybody, so it stops the start. */
function proxies(env: Env, name: string): string[] | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  const entries = raw.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const [address = '', bits, extra] = entry.split('/');
    const maxBits = isIP(address) === 4 ? 32 : 128;
    const valid =
      PROXY_RANGE_NAMES.includes(entry) ||
      (isIP(address) !== 0 && extra === undefined && (bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits)));
    if (!valid) {
      throw new ConfigError(name, `must list IP addresses or CIDRs (or ${PROXY_RANGE_NAMES.join(', ')}) separated by commas (got "${entry}")`);
    }
  }
  return entries;
}

/** A bearer token: visible ASCII without spaces (what an Authorization header carries as is). Never echoed. */
function bearerToken(env: Env, name: string, minLength: number): string | undefined {
  const raw = secret(env, name, minLength);
  if (raw !== undefined && !/^[\x21-\x7e]+$/.test(raw)) {
    throw new ConfigError(name, 'must be printable ASCII characters without spaces');
  }
  return raw;
}

/** An e-mail address, alone or as `Name <address>`: what an SMTP server takes as a sender. */
function sender(env: Env, name: string, fallback: string): string {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (/^([^<>\r\n]*<)?[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+>?$/.test(raw) && raw.includes('<') === raw.endsWith('>')) return raw;
  throw new ConfigError(name, `must be an e-mail address, or "Name <address>" (got "${raw}")`);
}

/** A PostgreSQL memory size: a whole number with kB, MB or GB, between `min` and `max` kB. */
function memorySize(env: Env, name: string, fallback: string, minKb: number, maxKb: number): string {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  const match = /^(\d{1,7})(kB|MB|GB)$/.exec(raw);
  const kb = match ? Number(match[1]) * { kB: 1, MB: 1024, GB: 1024 * 1024 }[match[2] as 'kB' | 'MB' | 'GB'] : NaN;
  if (!(kb >= minKb && kb <= maxKb)) {
    throw new ConfigError(name, `must be a size like 16MB or 1GB, from ${minKb / 1024}MB to ${maxKb / 1024 / 1024}GB (got "${raw}")`);
  }
  return raw;
}

function optionalPath(env: Env, name: string, cwd: string): string | undefined {
  const raw = text(env, name);
  return raw === undefined ? undefined : path.resolve(cwd, raw);
}

const S3_BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const S3_VARIABLES = ['S3_ENDPOINT', 'S3_REGION', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_FORCE_PATH_STYLE'];

/** An http(s) base URL, never echoed (a URL with a key in it would show it); kept without a trailing slash. */
function s3Endpoint(env: Env): string | undefined {
  const raw = url(env, 'S3_ENDPOINT', ['http:', 'https:'], true);
  if (raw === undefined) return undefined;
  const parsed = new URL(raw);
  if (parsed.search || parsed.hash || parsed.username || parsed.password) {
    throw new ConfigError('S3_ENDPOINT', 'must be a base URL without credentials, query or fragment (the keys go in S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY)');
  }
  return raw.replace(/\/+$/, '');
}

/** The object storage of files: all of it with S3_BUCKET, none of it without (a stray S3_* is a mistake, refused). */
function s3(env: Env): S3Settings | undefined {
  const bucket = text(env, 'S3_BUCKET');
  if (bucket === undefined) {
    const stray = S3_VARIABLES.find((name) => text(env, name) !== undefined);
    if (stray) throw new ConfigError('S3_BUCKET', `must be set when ${stray} is (files are in DATA_DIR/files without it)`);
    return undefined;
  }
  if (!S3_BUCKET_NAME.test(bucket)) {
    throw new ConfigError('S3_BUCKET', `must be a bucket name: 3 to 63 lowercase letters, digits, dots and hyphens (got "${bucket}")`);
  }
  const region = text(env, 'S3_REGION') ?? 'us-east-1';
  if (!/^[a-z0-9-]{1,64}$/.test(region)) throw new ConfigError('S3_REGION', `must be a region name like us-east-1 (got "${region}")`);
  const accessKeyId = text(env, 'S3_ACCESS_KEY_ID');
  const secretAccessKey = text(env, 'S3_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new ConfigError(accessKeyId === undefined ? 'S3_ACCESS_KEY_ID' : 'S3_SECRET_ACCESS_KEY', 'must be set together with the other S3 key variable');
  }
  return {
    bucket,
    endpoint: s3Endpoint(env),
    region,
    accessKeyId,
    secretAccessKey,
    forcePathStyle: boolean(env, 'S3_FORCE_PATH_STYLE', false),
  };
}

export function loadConfig(env: Env, cwd: string = process.cwd()): Config {
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const listenHost = host(env, 'HOST', '127.0.0.1');
  const logLevel = text(env, 'LOG_LEVEL') ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`);
  }
  const publicUrl = url(env, 'PUBLIC_URL', ['http:', 'https:'], false);
  const metricsPort = text(env, 'METRICS_PORT') === undefined ? undefined : integer(env, 'METRICS_PORT', 0, 1, 65535);
  if (metricsPort !== undefined && metricsPort === port) {
    throw new ConfigError('METRICS_PORT', `must differ from PORT (both ${port})`);
  }
  const urlHost = listenHost.includes(':') ? `[${listenHost}]` : listenHost;
  const publicHost = new URL(publicUrl ?? `http://${urlHost}:${port}`).hostname.replace(/^\[|\]$/g, '');
  return {
    port,
    host: listenHost,
    dataDir: path.resolve(cwd, text(env, 'DATA_DIR') ?? './data'),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:'], true),
    databaseTimeouts: {
      connectMs: integer(env, 'DATABASE_CONNECT_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.connectMs, 100, 600_000),
      statementMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.statementMs, 100, 3_600_000),
      idleInTransactionMs: integer(env, 'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.idleInTransactionMs, 100, 3_600_000),
    },
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:'], true),
    adminToken: secret(env, 'ADMIN_TOKEN', 32),
    publicUrl: (publicUrl ?? `http://${urlHost}:${port}`).replace(/\/+$/, ''),
    webhookAllowPrivateNetworks: boolean(env, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS', false),
    jwtSecret: secret(env, 'JWT_SECRET', 32),
    secretsKey: secret(env, 'SECRETS_KEY', 32),
    rateLimitMax: integer(env, 'RATE_LIMIT_MAX', 300, 1, 1_000_000_000),
    deliveryRetentionDays: integer(env, 'DELIVERY_RETENTION_DAYS', 7, 1, 3650),
    auditRetentionDays: integer(env, 'AUDIT_RETENTION_DAYS', 365, 1, 36500),
    logLevel: logLevel as LogLevel,
    messengerApis: {
      telegram: baseUrl(env, 'TELEGRAM_API_URL', DEFAULT_MESSENGER_APIS.telegram),
      meta: baseUrl(env, 'META_GRAPH_URL', DEFAULT_MESSENGER_APIS.meta),
      viber: baseUrl(env, 'VIBER_API_URL', DEFAULT_MESSENGER_APIS.viber),
    },
    crmApis: {
      hubspot: baseUrl(env, 'HUBSPOT_API_URL', DEFAULT_CRM_APIS.hubspot),
      pipedrive: text(env, 'PIPEDRIVE_API_URL') === undefined ? undefined : baseUrl(env, 'PIPEDRIVE_API_URL', ''),
    },
    countStatementsFile: optionalPath(env, 'PARLEY_COUNT_STATEMENTS', cwd),
    pgliteSharedBuffers: memorySize(env, 'PGLITE_SHARED_BUFFERS', DEFAULT_PGLITE_SHARED_BUFFERS, 1024, 1024 * 1024),
    knowledgeEncoder: onOff(env, 'KB_ENCODER', true),
    trustProxy: proxies(env, 'TRUST_PROXY'),
    metricsToken: bearerToken(env, 'METRICS_TOKEN', 32),
    metricsPort,
    shutdownGraceSeconds: integer(env, 'SHUTDOWN_GRACE_SECONDS', 20, 1, 3600),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:'], true),
    smtpFrom: sender(env, 'SMTP_FROM', `Parley <no-reply@${isIP(publicHost) === 0 ? publicHost : 'localhost'}>`),
    alertEmailDelaySeconds: integer(env, 'ALERT_EMAIL_DELAY_SECONDS', 60, 0, 86_400),
    s3: s3(env),
  };
}
