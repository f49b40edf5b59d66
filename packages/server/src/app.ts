// buildApp: the whole HTTP application, from config and dependencies. No listen, no environment reads.
import { createHmac, randomBytes } from 'node:crypto';
import path from 'node:path';
import websocket from '@fastify/websocket';
import { sql } from 'drizzle-orm';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import { createAgentService } from './agent/agent-service.ts';
import { createAgentStore } from './agent/agent-store.ts';
import { createReplyStore } from './agent/reply-store.ts';
import { createKnowledgeBaseEngine } from './agent/engines/knowledge-base-engine.ts';
import { createOpenAiEngine } from './agent/engines/openai-engine.ts';
import { createAccountsService } from './accounts/accounts-service.ts';
import { createAccountsStore } from './accounts/accounts-store.ts';
import { createApiKeyAuthenticator } from './accounts/api-key-auth.ts';
import { createConsoleAuth } from './accounts/console-auth.ts';
import { createChannelsService } from './channels/channels-service.ts';
import { createChannelsStore } from './channels/channels-store.ts';
import { CACHE_CHANNEL, cachedChannelsStore, createChannelCache } from './channels/channel-cache.ts';
import { createConnectors } from './channels/connectors/index.ts';
import { createMessengerHttp } from './channels/connectors/messenger-http.ts';
import { createMessengerInbound } from './channels/messenger-inbound.ts';
import { createMessengerOutbound, MESSENGER_SEND_RETRY } from './channels/messenger-outbound.ts';
import { createMessengerSendsStore } from './channels/messenger-sends-store.ts';
import { createTelegramTokenCheck } from './channels/telegram-token.ts';
import { createVisitorTokens } from './channels/widget/visitor-token.ts';
import { createWidgetService } from './channels/widget/widget-service.ts';
import { createWidgetStore } from './channels/widget/widget-store.ts';
import { createChatsService } from './chats/chats-service.ts';
import { createChatsStore } from './chats/chats-store.ts';
import { createCrmConnectors } from './crm/connectors/index.ts';
import { createCrmService, CRM_SYNC_RETRY } from './crm/crm-service.ts';
import { createCrmStore } from './crm/crm-store.ts';
import { createPetsService } from './demo/pets-service.ts';
import { createPetsStore } from './demo/pets-store.ts';
import { createFeedbackService } from './feedback/feedback-service.ts';
import { createLocalFileStorage } from './files/file-storage.ts';
import { filesPlugin } from './http/files-routes.ts';
import { registerAgentRoutes } from './http/console/agent-routes.ts';
import { registerCrmRoutes } from './http/console/crm-routes.ts';
import { registerDeliveryRoutes } from './http/console/delivery-routes.ts';
import { registerInboxRoutes } from './http/console/inbox-routes.ts';
import { registerLiveRoutes } from './http/console/live-routes.ts';
import { registerOverviewRoutes } from './http/console/overview-routes.ts';
import { webApp } from './http/web/web-plugin.ts';
import { createOverviewService } from './overview/overview-service.ts';
import { createOverviewStore } from './overview/overview-store.ts';
import { registerMessengerRoutes } from './http/console/messenger-routes.ts';
import { messengerWebhooks } from './http/messenger-webhook-routes.ts';
import { registerMessageRoutes } from './http/public/messages-routes.ts';
import { createJobQueue, JOBS_CHANNEL } from './jobs/job-queue.ts';
import { createMessagesService } from './messages/messages-service.ts';
import { createMessagesStore } from './messages/messages-store.ts';
import { DEFAULT_CRM_APIS, DEFAULT_MESSENGER_APIS, type Config } from './config.ts';
import { preparedQuery, statementSlots, type Database, type Executor, type Listen } from './db/client.ts';
import { createIngestStore } from './messages/ingest-store.ts';
import { startVacuum } from './db/vacuum.ts';
import { createLiveFeed } from './events/live-feed.ts';
import { DELIVERIES_CHANNEL } from './events/outbox.ts';
import { adminApi } from './http/admin/admin-routes.ts';
import { registerChannelRoutes } from './http/console/channel-routes.ts';
import { consoleApi } from './http/console/console-plugin.ts';
import { demoApi } from './http/demo/demo-plugin.ts';
import { registerKnowledgeRoutes } from './http/console/knowledge-routes.ts';
import { docs } from './http/docs.ts';
import { registerErrorHandler } from './http/error-handler.ts';
import { registerChatRoutes } from './http/public/chats-routes.ts';
import { gateway } from './http/public/gateway.ts';
import { createUploadReader } from './http/public/uploads.ts';
import { createInvalidKeyGuard, createRateCounters } from './http/rate-limit.ts';
import { registerTagRoutes } from './http/public/tags-routes.ts';
import { registerEventRoutes } from './http/public/events-routes.ts';
import { createFeedService } from './events/feed-service.ts';
import { createFeedStore } from './events/feed-store.ts';
import { widgetPlugin } from './http/widget/widget-plugin.ts';
import { schemaErrorFormatter, validatorCompiler } from './http/validation.ts';
import { AccessLog } from './http/access-log.ts';
import { createKnowledgeService } from './knowledge/knowledge-service.ts';
import { createKnowledgeStore } from './knowledge/knowledge-store.ts';
import { cachedTextEmbedding, createSentenceEncoder } from './knowledge/encoder/sentence-encoder.ts';
import { cachedProviderEmbedding, createEmbeddingsClient } from './knowledge/embeddings-client.ts';
import { createEntryVectors } from './knowledge/entry-vectors.ts';
import { createRetriever } from './knowledge/retrieval.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import { createSecretBox } from './lib/secret-box.ts';
import { createTagsService } from './tags/tags-service.ts';
import { createTagsStore } from './tags/tags-store.ts';
import { createWebhookClient } from './webhooks/http-client.ts';
import { createDeliveriesService } from './webhooks/deliveries-service.ts';
import { createDeliveryStore } from './webhooks/delivery-store.ts';
import { createDeliveryWorker } from './webhooks/delivery-worker.ts';
import { createUrlGuard } from './webhooks/url-guard.ts';

export interface AppDeps {
  config: Pick<Config, 'rateLimitMax' | 'redisUrl' | 'webhookAllowPrivateNetworks' | 'publicUrl' | 'dataDir'> & {
    deliveryRetentionDays?: number;
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
  };
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
  /** Console login attempts per client address per minute (default 20; test suites log in more often). */
  loginAttemptsPerIp?: number;
  /** The built web account (default packages/web/dist). */
  webDistDir?: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The chat widget's open live connections. */
    widgetConnections: ReadonlySet<WebSocket>;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
/** Request ids of this process: a random prefix and a counter (unique across processes, cheap to make). */
const REQUEST_ID_PREFIX = randomBytes(6).toString('hex');
let requestCounter = 0;
const nextRequestId = (): string => `${REQUEST_ID_PREFIX}-${(requestCounter += 1).toString(36)}`;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, db, logger } = deps;
  const clock = deps.clock ?? systemClock;

  const app = Fastify({
    loggerInstance: logger,
    // A caller's request id is reused when it is sane, so logs can be matched across systems.
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : nextRequestId();
    },
    logController: new AccessLog(),
    schemaErrorFormatter,
    bodyLimit: 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: true },
  });
  app.setValidatorCompiler(validatorCompiler);
  registerErrorHandler(app);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  // Rate-limit counters: Redis when configured (down: this process's own, until it is back).
  const counters = createRateCounters({ redisUrl: config.redisUrl, logger });
  app.addHook('onClose', () => counters.close());
  await counters.connected;
  const invalidKeys = createInvalidKeyGuard({ counters });

  const secretBox = createSecretBox(config.secretsKey);
  const channelCache = createChannelCache({ ttlMs: deps.channelCacheTtlMs ?? 5_000 });
  const channelsStoreOf = (executor: Executor) => cachedChannelsStore(createChannelsStore(executor, secretBox), executor, channelCache);

  const urlGuard = createUrlGuard({ allowPrivateNetworks: config.webhookAllowPrivateNetworks });
  const webhookClient = createWebhookClient(urlGuard);
  app.addHook('onClose', () => webhookClient.close());
  const deliveryStore = createDeliveryStore(db);
  const deliveryWorker = createDeliveryWorker({
    store: deliveryStore,
    client: webhookClient,
    secrets: secretBox,
    logger,
    ownsDatabase: deps.ownsDatabase ?? false,
    ...(deps.deliveryPollMs !== undefined ? { pollMs: deps.deliveryPollMs } : {}),
    retentionMs: (config.deliveryRetentionDays ?? 7) * 24 * 60 * 60_000,
  });
  // PGlite has no autovacuum worker (db/vacuum.ts); a PostgreSQL server vacuums by itself.
  if (deps.ownsDatabase) {
    const vacuum = startVacuum({ db, logger });
    app.addHook('onClose', () => vacuum.stop());
  }
  const wakeDeliveries = () => deliveryWorker.wake();
  // With LISTEN, the NOTIFY written with each delivery wakes this process too, and only when a delivery was written:
  // a second, in-process wake-up per committed event would claim twice.
  const eventsCommitted = deps.listen ? () => {} : wakeDeliveries;
  // A redelivery from the console sends no NOTIFY.
  const deliveriesService = createDeliveriesService({ store: deliveryStore, channels: channelsStoreOf(db), wake: wakeDeliveries });

  const accountsStore = createAccountsStore(db);
  const authenticator = createApiKeyAuthenticator({ store: accountsStore, cacheTtlMs: deps.apiKeyCacheTtlMs ?? 2_000 });
  // A key deactivated or a subscription stopped is forgotten here at once, and in other processes on the NOTIFY.
  const accounts = createAccountsService({
    store: accountsStore,
    clock,
    authenticator: {
      invalidate: () => {
        authenticator.invalidate();
        db.execute(sql`SELECT pg_notify(${CACHE_CHANNEL}, 'keys')`).catch((error: unknown) => logger.warn({ err: error }, 'announcing a key change failed'));
      },
    },
  });
  let unlistenCache = async () => {};
  app.addHook('onReady', async () => {
    if (!deps.listen) return;
    unlistenCache = await deps.listen(CACHE_CHANNEL, (payload) => {
      if (payload === 'keys') authenticator.invalidate();
      else if (payload?.startsWith('channel:')) channelCache.forget(payload.slice('channel:'.length));
      else {
        // Heard nothing for a while (a lost connection): anything may have changed.
        authenticator.invalidate();
        channelCache.clear();
      }
    });
  });
  app.addHook('preClose', () => unlistenCache());
  const jobs = createJobQueue({
    db,
    logger,
    handlers: {
      'chat.setTaskStatus': async ({ accountId, chatId, done }) => {
        await chats.applyTaskStatus(accountId, chatId, done, { type: 'api', operatorEmail: null });
      },
      'agent.reply': (payload) => agent.reply(payload),
      'messenger.send': (payload, run) => messengerOutbound.send(payload, run),
      'crm.sync': (payload, run) => crm.sync(payload, run),
      'knowledge.embed': async ({ knowledgeBaseId, entryId }) => {
        await entryVectors.embedEntry(knowledgeBaseId, entryId);
      },
    },
    retryPolicies: { 'messenger.send': MESSENGER_SEND_RETRY, 'crm.sync': CRM_SYNC_RETRY },
  });
  const messengerHttp = createMessengerHttp(urlGuard);
  app.addHook('onClose', () => messengerHttp.close());
  const connectors = createConnectors(messengerHttp, config.messengerApis ?? DEFAULT_MESSENGER_APIS);
  const messengerOutbound = createMessengerOutbound({
    db,
    clock,
    logger,
    queue: jobs,
    connectors: connectors.byKind,
    sendsStore: createMessengerSendsStore,
    channelsStore: channelsStoreOf,
    messagesStore: createMessagesStore,
    chatsStore: createChatsStore,
  });
  const crm = createCrmService({
    db,
    clock,
    logger,
    queue: jobs,
    connectors: createCrmConnectors(messengerHttp, config.crmApis ?? DEFAULT_CRM_APIS),
    crmStore: (executor) => createCrmStore(executor, secretBox),
    channelsStore: channelsStoreOf,
    chatsStore: createChatsStore,
    messagesStore: createMessagesStore,
  });
  const chats = createChatsService({
    db,
    chatsStore: createChatsStore,
    channelsStore: channelsStoreOf,
    queue: jobs,
    clock,
    eventsCommitted,
    crmSync: crm,
  });
  const fileStorage = createLocalFileStorage(path.join(config.dataDir, 'files'));
  const knowledgeStore = createKnowledgeStore(db, secretBox);
  // English bases: a worker thread loads the encoder on first use (KB_ENCODER=off: words only).
  const sentenceEncoder = (config.knowledgeEncoder ?? true) ? createSentenceEncoder() : undefined;
  if (sentenceEncoder) app.addHook('onClose', () => sentenceEncoder.close());
  // Bases that name an OpenAI-compatible embeddings provider get their vectors from it instead (any language).
  const embeddingsClient = createEmbeddingsClient({ guard: urlGuard });
  app.addHook('onClose', () => embeddingsClient.close());
  const entryVectors = createEntryVectors({ store: knowledgeStore, encoder: sentenceEncoder, embeddings: embeddingsClient });
  const retriever = createRetriever({
    store: knowledgeStore,
    embed: sentenceEncoder ? cachedTextEmbedding(sentenceEncoder) : undefined,
    embedWith: cachedProviderEmbedding(embeddingsClient),
    onEmbedError: (knowledgeBaseId, error) =>
      logger.warn({ knowledgeBaseId, err: error }, 'embeddings provider failed: the question is answered by its words alone'),
  });
  /** Every entry write queues its vectors, in the write's transaction (`executor`). */
  const knowledgeServiceOf = (executor: Executor) =>
    createKnowledgeService({
      store: createKnowledgeStore(executor, secretBox),
      clock,
      urlGuard,
      entryWritten: (knowledgeBaseId: string, entryId: string) =>
        jobs.enqueue(executor, 'knowledge.embed', { knowledgeBaseId, entryId }, { key: `knowledge.embed:${entryId}` }),
    });
  const baseLanguage = (accountId: string, knowledgeBaseId: string) => knowledgeStore.findBaseLanguage(accountId, knowledgeBaseId);
  const openAiEngine = createOpenAiEngine({ guard: urlGuard, retriever, baseLanguage, files: fileStorage });
  app.addHook('onClose', () => openAiEngine.close());
  const agent = createAgentService({
    db,
    clock,
    logger,
    queue: jobs,
    engines: { 'knowledge-base': createKnowledgeBaseEngine({ retriever, baseLanguage }), 'openai-compatible': openAiEngine },
    agentStore: createAgentStore,
    replyStore: createReplyStore(preparedQuery(db), jobs.notifyPayload),
    messagesStore: createMessagesStore,
    chatsStore: createChatsStore,
    channelsStore: channelsStoreOf,
    customerDelivery: messengerOutbound,
    eventsCommitted,
    crmSync: crm,
  });
  const messages = createMessagesService({
    db,
    files: { storage: fileStorage, publicUrl: config.publicUrl },
    messagesStore: createMessagesStore,
    ingestStore: createIngestStore(preparedQuery(db), jobs.notifyPayload),
    // Half the pool: batches of other requests and the workers keep connections.
    ingestConcurrency: Math.max(1, Math.floor(statementSlots(db) / 2)),
    chatsStore: createChatsStore,
    channelsStore: channelsStoreOf,
    clock,
    agent,
    customerDelivery: messengerOutbound,
    eventsCommitted,
  });
  const messengerInbound = createMessengerInbound({
    channels: channelsStoreOf(db),
    connectors: connectors.byKind,
    messages,
    files: { storage: fileStorage, publicUrl: config.publicUrl },
    clock,
    logger,
  });
  const tags = createTagsService({ store: createTagsStore(db, preparedQuery(db)) });
  const overview = createOverviewService({ store: createOverviewStore(db), clock });
  const consoleAuth = createConsoleAuth({ store: accountsStore, clock, jwtSecret: config.jwtSecret });
  const knowledge = knowledgeServiceOf(db);
  const feedback = createFeedbackService({
    db,
    messagesStore: createMessagesStore,
    chatsStore: createChatsStore,
    channelsStore: channelsStoreOf,
    knowledge: knowledgeServiceOf,
  });
  const channels = createChannelsService({
    store: channelsStoreOf(db),
    clock,
    urlGuard,
    webhookClient,
    publicUrl: config.publicUrl,
    messengers: {
      register: (kind, credentials, url) => connectors.byKind[kind].register(credentials, url),
      unregister: (kind, credentials) => connectors.byKind[kind].unregister(credentials),
    },
    logger,
  });

  // Live views (Inbox, widget) follow committed events in every process, workers or not.
  const liveFeed = createLiveFeed({ db, listen: deps.listen, logger });
  app.addHook('onReady', () => liveFeed.start());
  // Secrets stored in clear by an earlier version are sealed once (idempotent; any process may do it).
  app.addHook('onReady', async () => {
    const sealed = await channelsStoreOf(db).sealStoredSecrets();
    if (sealed > 0) logger.info({ channels: sealed }, 'channel secrets stored in clear are now encrypted');
  });
  app.addHook('preClose', () => liveFeed.stop());

  const widgetStore = createWidgetStore(db, channelsStoreOf(db));
  const ipKeySecret = createHmac('sha256', config.jwtSecret).update('parley widget ip key').digest();
  const widget = createWidgetService({
    db,
    store: widgetStore,
    tokens: createVisitorTokens(config.jwtSecret),
    messages,
    clock,
    ipKey: (ip) => createHmac('sha256', ipKeySecret).update(ip).digest('hex').slice(0, 32),
  });

  // 200 either way: a process whose Redis is down still serves (with its own counters); a load balancer keeps it.
  app.get('/healthz', async () => {
    await db.execute('select 1');
    return counters.redisState() === 'down' ? { status: 'degraded', redis: 'down' } : { status: 'ok' };
  });

  // Once for the whole app (each registration would add an `upgrade` handler of its own): the widget's live stream.
  await app.register(websocket, { options: { maxPayload: 16 * 1024 } });
  await app.register(docs);
  await app.register(filesPlugin, { storage: fileStorage });
  await app.register(adminApi, { prefix: '/admin/v1', adminToken: config.adminToken, accounts });
  await app.register(consoleApi, {
    prefix: '/console/v1',
    auth: consoleAuth,
    rateLimitMax: config.rateLimitMax,
    ...(deps.loginAttemptsPerIp !== undefined ? { loginAttemptsPerIp: deps.loginAttemptsPerIp } : {}),
    counters,
    routes: (api) => {
      registerChannelRoutes(api, channels);
      registerKnowledgeRoutes(api, knowledge);
      registerInboxRoutes(api, { chats, messages, tags, feedback });
      registerLiveRoutes(api, liveFeed);
      registerOverviewRoutes(api, overview);
      registerDeliveryRoutes(api, deliveriesService);
      registerAgentRoutes(api, agent);
      registerMessengerRoutes(api, createTelegramTokenCheck(connectors.telegram), messengerOutbound);
      registerCrmRoutes(api, crm);
    },
  });
  await app.register(messengerWebhooks, { prefix: '/channels', inbound: messengerInbound });
  await app.register(gateway, {
    prefix: '/api/v1',
    authenticator,
    rateLimitMax: config.rateLimitMax,
    counters,
    invalidKeys,
    routes: (api) => {
      registerChatRoutes(api, chats);
      registerTagRoutes(api, tags);
      registerEventRoutes(api, createFeedService({ store: createFeedStore(db) }));
      registerMessageRoutes(api, messages, feedback, createUploadReader(fileStorage));
    },
  });
  await app.register(webApp, { distDir: deps.webDistDir ?? path.resolve(import.meta.dirname, '../../web/dist') });
  await app.register(demoApi, {
    prefix: '/demo/v1',
    authenticator,
    pets: createPetsService({ db, petsStore: createPetsStore }),
    rateLimitMax: config.rateLimitMax,
    counters,
    invalidKeys,
  });
  const widgetConnections = new Set<WebSocket>();
  app.decorate('widgetConnections', widgetConnections);
  await app.register(widgetPlugin, {
    widget,
    store: widgetStore,
    liveFeed,
    connections: widgetConnections,
    publicUrl: config.publicUrl,
    readUploads: createUploadReader(fileStorage),
  });

  // Background jobs run while the app is up; on close, jobs in flight finish and queued ones stay queued.
  if (deps.workers ?? true) {
    let unlisten = async () => {};
    let unlistenJobs = async () => {};
    app.addHook('onReady', async () => {
      // Jobs committed by other processes (this one wakes its queue itself after the commit); listening first, so
      // the wake-up of a listening connection just made comes before the claim at start, not as a second one.
      if (deps.listen) unlistenJobs = await deps.listen(JOBS_CHANNEL, jobs.notified);
      jobs.start();
      await deliveryWorker.start();
      if (deps.listen) unlisten = await deps.listen(DELIVERIES_CHANNEL, wakeDeliveries);
      // Entries written before the encoder (an upgrade, or KB_ENCODER was off), or whose base's provider changed
      // and were not re-embedded yet (a stop in between), get their vectors in the background.
      void (async () => {
        const missing = await knowledgeStore.entriesWithoutVectors(10_000, { builtIn: sentenceEncoder !== undefined });
        for (const { knowledgeBaseId, entryId } of missing) {
          await jobs.enqueue(db, 'knowledge.embed', { knowledgeBaseId, entryId }, { key: `knowledge.embed:${entryId}` });
        }
        if (missing.length > 0) logger.info({ entries: missing.length }, 'knowledge-base entries without vectors queued for embedding');
      })().catch((error: unknown) => logger.error({ err: error }, 'queueing knowledge-base entries for embedding failed'));
    });
    app.addHook('preClose', async () => {
      await Promise.all([unlisten(), unlistenJobs()]);
      await Promise.all([jobs.stop(), deliveryWorker.stop()]);
    });
  }
  return app;
}
