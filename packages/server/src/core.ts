// The pieces every feature shares, made once per app (their types are the Kernel of kernel/kernel.ts): the clock,
// rate-limit counters, the sealed-secrets box, the guarded HTTP clients for user-given URLs, the mailer, the job
// queue, file storage and the metrics registry the features count into (kernel/metrics.ts); and the channel stores
// with their cache, which most features read (typed by channels/channel-cache.ts). Features take what they use
// from here (see kernel/module.ts).
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { cachedChannelsStore, createChannelCache, type ChannelStores } from './channels/channel-cache.ts';
import { createChannelsStore } from './channels/channels-store.ts';
import { createInvitationMailer } from './kernel/mailer.ts';
import { createMessengerHttp } from './kernel/messenger-http.ts';
import type { Database, Executor, Listen } from './db/client.ts';
import { startVacuum } from './db/vacuum.ts';
import { createLocalFileStorage } from './files/file-storage.ts';
import { createS3FileStorage } from './files/s3-file-storage.ts';
import { createUploadReader } from './http/public/uploads.ts';
import { createInvalidKeyGuard, createRateCounters } from './kernel/rate-counters.ts';
import { createJobQueue, JOBS_CHANNEL } from './jobs/job-queue.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import { createSecretBox } from './lib/secret-box.ts';
import { untilAborted } from './lib/until-aborted.ts';
import { createAppMetrics } from './kernel/metrics.ts';
import type { Workers } from './kernel/module.ts';
import { CACHE_CHANNEL, type AppConfig, type CacheNoticeListener, type ClosableClient, type Kernel } from './kernel/kernel.ts';
import { createWebhookClient } from './kernel/http-client.ts';
import { createUrlGuard } from './kernel/url-guard.ts';

export interface AppDeps {
  config: AppConfig;
  db: Database;
  logger: FastifyBaseLogger;
  clock?: Clock;
  /** This process alone uses the database (PGlite): reservations a crash left behind are released at start, and it is vacuumed hourly. */
  ownsDatabase?: boolean;
  /** Run background jobs and webhook deliveries in this process (default true). */
  workers?: boolean;
  /** How long a looked-up API key is trusted (see api-key-auth.ts). */
  apiKeyCacheTtlMs?: number;
  /** How long a channel read is trusted when no change to it is heard (channels/channel-cache.ts). */
  channelCacheTtlMs?: number;
  /** NOTIFYs of the database: deliveries made by other processes wake this one's worker at once. */
  listen?: Listen;
  /** The delivery worker's safety-net poll (default 500 ms). */
  deliveryPollMs?: number;
  /** How often the conversations sweep runs (default 60 s): tests shorten it. */
  conversationSweepMs?: number;
  /** Console login attempts per client address per minute (default 20; test suites log in more often). */
  loginAttemptsPerIp?: number;
  /**
   * What parsing documents may add to the process's memory, in MB (default from the machine's memory): run from
   * the sources (tests), PDF.js and its transpiling make a parse grow the process several times what it does built.
   */
  parserMaxMemoryMb?: number;
  /** The built web account (default packages/web/dist). */
  webDistDir?: string;
  /** TRUST_PROXY: reverse proxies whose `X-Forwarded-For` gives the client address. */
  trustProxy?: string[] | undefined;
  /**
   * Aborted when the shutdown grace (SHUTDOWN_GRACE_SECONDS) is nearly over: jobs and deliveries still running give
   * their leases back instead of being waited for (kernel/module.ts, `Workers.stop`).
   */
  handBack?: AbortSignal;
  /** `POST /admin/v1/backup` (PGlite): writes DATA_DIR's backup to a new file (backup/backup.ts). */
  backup?: (file: string) => Promise<{ file: string; bytes: number }>;
}

export async function createCore(app: FastifyInstance, deps: AppDeps): Promise<Core> {
  const { config, db, logger } = deps;

  // Rate-limit counters: Redis when configured (down: this process's own, until it is back).
  const counters = createRateCounters({ redisUrl: config.redisUrl, logger });
  app.addHook('onClose', () => counters.close());
  await counters.connected;

  const secretBox = createSecretBox(config.secretsKey);
  const channelCache = createChannelCache({ ttlMs: deps.channelCacheTtlMs ?? 5_000 });
  const urlGuard = createUrlGuard({ allowPrivateNetworks: config.webhookAllowPrivateNetworks });
  /**
   * An HTTP client closes with the app, after the workers have stopped: its requests in flight finish, unless the
   * shutdown grace ran short and their work was handed back (AppDeps.handBack), which ends them.
   */
  const closeWithApp = (client: ClosableClient) =>
    void app.addHook('onClose', () => Promise.race([client.close(), untilAborted(deps.handBack).then(() => client.destroy())]));
  const webhookClient = createWebhookClient(urlGuard);
  closeWithApp(webhookClient);
  // SMTP_URL: invitations, password resets and alert e-mails (the URL holds a password: never logged).
  const mailer = createInvitationMailer({
    smtpUrl: config.smtpUrl,
    from: config.smtpFrom ?? 'Parley <no-reply@localhost.localdomain>',
    logger,
  });
  app.addHook('onClose', () => mailer.close());
  // Messenger and CRM APIs: fixed operator-set bases, and media downloads from user-given URLs (guarded).
  const apiHttp = createMessengerHttp(urlGuard);
  closeWithApp(apiHttp);

  // PGlite has no autovacuum worker (db/vacuum.ts); a PostgreSQL server vacuums by itself.
  if (deps.ownsDatabase) {
    const vacuum = startVacuum({ db, logger });
    app.addHook('onClose', () => vacuum.stop());
  }

  // Changes other processes announce: each cache forgets what the notice names (and everything after a gap).
  const cacheNoticeListeners: CacheNoticeListener[] = [
    (payload) => {
      if (payload === undefined) channelCache.clear();
      else if (payload.startsWith('channel:')) channelCache.forget(payload.slice('channel:'.length));
    },
  ];
  let unlistenCache = async () => {};
  app.addHook('onReady', async () => {
    if (!deps.listen) return;
    unlistenCache = await deps.listen(CACHE_CHANNEL, (payload) => {
      for (const listener of cacheNoticeListeners) listener(payload);
    });
  });
  app.addHook('preClose', () => unlistenCache());

  const filesDir = path.join(config.dataDir, 'files');
  const fileStorage = config.s3 ? createS3FileStorage(config.s3, path.join(filesDir, '.incoming')) : createLocalFileStorage(filesDir);
  const jobs = createJobQueue({ db, logger, ownsDatabase: deps.ownsDatabase ?? false });
  let unlistenJobs = async () => {};
  const jobWorkers: Workers = {
    async start() {
      // Jobs committed by other processes (this one wakes its queue itself after the commit); listening first, so
      // the wake-up of a listening connection just made comes before the claim at start, not as a second one.
      if (deps.listen) unlistenJobs = await deps.listen(JOBS_CHANNEL, jobs.notified);
      await jobs.start();
    },
    async stop(handBack) {
      await unlistenJobs();
      await jobs.stop(handBack);
    },
  };

  return {
    app,
    config,
    db,
    logger,
    clock: deps.clock ?? systemClock,
    closeWithApp,
    listen: deps.listen,
    ownsDatabase: deps.ownsDatabase ?? false,
    counters,
    invalidKeys: createInvalidKeyGuard({ counters }),
    secretBox,
    urlGuard,
    webhookClient,
    mailer,
    apiHttp,
    /** The channels store over an executor (the database, or a transaction), reads cached per process. */
    channelsStoreOf: (executor: Executor) => cachedChannelsStore(createChannelsStore(executor, secretBox), executor, channelCache),
    /** Tells every process to forget what the payload names (see CACHE_CHANNEL). */
    announceCacheChange(payload: string): void {
      db.execute(sql`SELECT pg_notify(${CACHE_CHANNEL}, ${payload})`).catch((error: unknown) =>
        logger.warn({ err: error }, 'announcing a cache change failed'),
      );
    },
    onCacheNotice(listener: CacheNoticeListener): void {
      cacheNoticeListeners.push(listener);
    },
    /** Durable jobs; each feature registers the handlers of its kinds (`jobs.handle`). */
    jobs,
    jobWorkers,
    files: {
      storage: fileStorage,
      publicUrl: config.publicUrl,
      /** The multipart reader of every route that takes files: the process's 256 MB of uploads at once is one budget. */
      readUploads: createUploadReader(fileStorage),
    },
    /** Counters and histograms in memory, served by metrics/module.ts (GET /metrics). */
    metrics: createAppMetrics(),
  };
}

/** The kernel, and the channel stores most features read (typed by the channels feature, made here with its cache). */
export type Core = Kernel & ChannelStores;
