// The pieces every feature may share, as types: the database, the clock, the logger, the job queue, file storage,
// the guarded HTTP clients, the mailer, the rate-limit counters and the metrics registry. The composition root
// (core.ts) makes them once per app; a feature's module.ts declares the part it uses (`Pick<Kernel, …>`), so no
// feature imports the root. The floor of the server: it imports nothing but db/, files/, jobs/, lib/ and config.ts.
import type { FastifyBaseLogger, FastifyInstance, preValidationAsyncHookHandler } from 'fastify';
import type { InvitationMailer } from './mailer.ts';
import type { MessengerHttp } from './messenger-http.ts';
import type { Config } from '../config.ts';
import type { Database, Listen } from '../db/client.ts';
import type { FileStorage } from '../files/file-storage.ts';
import type { InvalidKeyGuard, RateCounters } from './rate-counters.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import type { Clock } from '../lib/clock.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import type { AppMetrics } from './metrics.ts';
import type { Workers } from './module.ts';
import type { WebhookClient } from './http-client.ts';
import type { UrlGuard } from './url-guard.ts';

/** The settings the app is built with (main.ts reads them from the environment; tests pass their own). */
export type AppConfig = Pick<Config, 'rateLimitMax' | 'redisUrl' | 'webhookAllowPrivateNetworks' | 'publicUrl' | 'dataDir'> &
  Partial<Pick<Config, 'metricsToken' | 'metricsPort' | 'host'>> & {
    deliveryRetentionDays?: number;
    /** AUDIT_RETENTION_DAYS (default 365). */
    auditRetentionDays?: number;
    /** Messenger API base URLs (default: the real services). */
    messengerApis?: Config['messengerApis'];
    /** CRM API base URLs (default: the real services). */
    crmApis?: Config['crmApis'];
    adminToken: string;
    jwtSecret: string;
    /** Key of channel secrets at rest (SECRETS_KEY or generated in DATA_DIR). */
    secretsKey: string;
    /** The built-in sentence encoder of knowledge-base retrieval (KB_ENCODER; default on). */
    knowledgeEncoder?: boolean;
    /** SMTP_URL: invitations are e-mailed through it (unset: the inviter passes the link on). */
    smtpUrl?: string | undefined;
    /** SMTP_FROM: their sender. */
    smtpFrom?: string;
    /** ALERT_EMAIL_DELAY_SECONDS (default 60). */
    alertEmailDelaySeconds?: number;
    /** S3_*: files in object storage (default: DATA_DIR/files). */
    s3?: Config['s3'];
  };

/** NOTIFY channel of cached rows that changed: payload `channel:<id>` (channels/channel-cache.ts), `keys` for API keys and subscriptions, or MEMBER_NOTICE. */
export const CACHE_CHANNEL = 'parley_cache';

/** The cache notice of a change to a member (`member:<id>`): their sessions may have ended. */
export const MEMBER_NOTICE = 'member:';
/** The cache notice of a member's new name (`member-name:<id>`): forgotten for the name, their access unchanged. */
export const MEMBER_NAME_NOTICE = 'member-name:';

/** A cache notice (`NOTIFY parley_cache`): a payload, or undefined when notices may have been lost meanwhile. */
export type CacheNoticeListener = (payload: string | undefined) => void;

/** A client whose requests in flight finish when the app closes (or are ended when the shutdown grace runs short). */
export interface ClosableClient {
  close(): Promise<void>;
  destroy(): Promise<void>;
}

export interface Kernel {
  app: FastifyInstance;
  config: AppConfig;
  db: Database;
  logger: FastifyBaseLogger;
  clock: Clock;
  closeWithApp(client: ClosableClient): void;
  /** NOTIFYs of the database (undefined: this process hears no other). */
  listen: Listen | undefined;
  /** This process alone uses the database (PGlite). */
  ownsDatabase: boolean;
  counters: RateCounters;
  invalidKeys: InvalidKeyGuard;
  secretBox: SecretBox;
  urlGuard: UrlGuard;
  webhookClient: WebhookClient;
  apiHttp: MessengerHttp;
  /** Tells every process to forget what the payload names (see CACHE_CHANNEL). */
  announceCacheChange(payload: string): void;
  onCacheNotice(listener: CacheNoticeListener): void;
  /** Durable jobs; each feature registers the handlers of its kinds (`jobs.handle`). */
  jobs: JobQueue;
  jobWorkers: Workers;
  files: {
    storage: FileStorage;
    publicUrl: string;
    /** The multipart reader of every route that takes files: the process's 256 MB of uploads at once is one budget. */
    readUploads: preValidationAsyncHookHandler;
  };
  /** SMTP_URL: invitations, password resets and alert e-mails (none configured: nothing is sent). */
  mailer: InvitationMailer;
  /** Counters and histograms in memory, served by metrics/module.ts (GET /metrics). */
  metrics: AppMetrics;
}
