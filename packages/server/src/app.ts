// buildApp: the whole HTTP application, from config and dependencies. No listen, no environment reads.
import { createHmac } from 'node:crypto';
import path from 'node:path';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type { WebSocket } from 'ws';
import { createAgentService } from './agent/agent-service.ts';
import { createAgentStore } from './agent/agent-store.ts';
import { createKnowledgeBaseEngine } from './agent/engines/knowledge-base-engine.ts';
import { createOpenAiEngine } from './agent/engines/openai-engine.ts';
import { createAccountsService } from './accounts/accounts-service.ts';
import { createAccountsStore } from './accounts/accounts-store.ts';
import { createApiKeyAuthenticator } from './accounts/api-key-auth.ts';
import { createConsoleAuth } from './accounts/console-auth.ts';
import { createChannelsService } from './channels/channels-service.ts';
import { createChannelsStore } from './channels/channels-store.ts';
import { createVisitorTokens } from './channels/widget/visitor-token.ts';
import { createWidgetService } from './channels/widget/widget-service.ts';
import { createWidgetStore } from './channels/widget/widget-store.ts';
import { createChatsService } from './chats/chats-service.ts';
import { createChatsStore } from './chats/chats-store.ts';
import { createPetsService } from './demo/pets-service.ts';
import { createPetsStore } from './demo/pets-store.ts';
import { createFeedbackService } from './feedback/feedback-service.ts';
import { createLocalFileStorage } from './files/file-storage.ts';
import { filesPlugin } from './http/files-routes.ts';
import { registerAgentRoutes } from './http/console/agent-routes.ts';
import { registerDeliveryRoutes } from './http/console/delivery-routes.ts';
import { registerInboxRoutes } from './http/console/inbox-routes.ts';
import { registerMessageRoutes } from './http/public/messages-routes.ts';
import { createJobQueue } from './jobs/job-queue.ts';
import { createMessagesService } from './messages/messages-service.ts';
import { createMessagesStore } from './messages/messages-store.ts';
import type { Config } from './config.ts';
import type { Database, Listen } from './db/client.ts';
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
import { registerTagRoutes } from './http/public/tags-routes.ts';
import { widgetPlugin } from './http/widget/widget-plugin.ts';
import { validatorCompiler } from './http/validation.ts';
import { createKnowledgeService } from './knowledge/knowledge-service.ts';
import { createKnowledgeStore } from './knowledge/knowledge-store.ts';
import { createRetriever } from './knowledge/retrieval.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import { newId } from './lib/ids.ts';
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
    adminToken: string;
    jwtSecret: string;
  };
  db: Database;
  logger: FastifyBaseLogger;
  clock?: Clock;
  /** This process alone uses the database (PGlite): reservations a crash left behind are released at start. */
  ownsDatabase?: boolean;
  /** Run background jobs and webhook deliveries in this process (default true). */
  workers?: boolean;
  /** How long a looked-up API key is trusted (see api-key-auth.ts). */
  apiKeyCacheTtlMs?: number;
  /** NOTIFYs of the database: deliveries made by other processes wake this one's worker at once. */
  listen?: Listen;
  /** The delivery worker's safety-net poll (default 500 ms). */
  deliveryPollMs?: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The chat widget's open live connections. */
    widgetConnections: ReadonlySet<WebSocket>;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, db, logger } = deps;
  const clock = deps.clock ?? systemClock;

  const app = Fastify({
    loggerInstance: logger,
    // A caller's request id is reused when it is sane, so logs can be matched across systems.
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : newId();
    },
    bodyLimit: 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: true },
  });
  app.setValidatorCompiler(validatorCompiler);
  registerErrorHandler(app);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  const redis = config.redisUrl ? new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 1 }) : undefined;
  if (redis) {
    redis.on('error', (error) => logger.warn({ err: error }, 'redis error'));
    app.addHook('onClose', async () => {
      await redis.quit().catch(() => redis.disconnect());
    });
  }

  const urlGuard = createUrlGuard({ allowPrivateNetworks: config.webhookAllowPrivateNetworks });
  const webhookClient = createWebhookClient(urlGuard);
  app.addHook('onClose', () => webhookClient.close());
  const deliveryStore = createDeliveryStore(db);
  const deliveryWorker = createDeliveryWorker({
    store: deliveryStore,
    client: webhookClient,
    logger,
    ownsDatabase: deps.ownsDatabase ?? false,
    ...(deps.deliveryPollMs !== undefined ? { pollMs: deps.deliveryPollMs } : {}),
    retentionMs: (config.deliveryRetentionDays ?? 7) * 24 * 60 * 60_000,
  });
  const wakeDeliveries = () => deliveryWorker.wake();
  // With LISTEN, the NOTIFY written with each delivery wakes this process too, and only when a delivery was written:
  // a second, in-process wake-up per committed event would claim twice.
  const eventsCommitted = deps.listen ? () => {} : wakeDeliveries;
  // A redelivery from the console sends no NOTIFY.
  const deliveriesService = createDeliveriesService({ store: deliveryStore, channels: createChannelsStore(db), wake: wakeDeliveries });

  const accountsStore = createAccountsStore(db);
  const authenticator = createApiKeyAuthenticator({ store: accountsStore, cacheTtlMs: deps.apiKeyCacheTtlMs ?? 2_000 });
  const accounts = createAccountsService({ store: accountsStore, clock, authenticator });
  const jobs = createJobQueue({
    db,
    logger,
    handlers: {
      'chat.setTaskStatus': async ({ accountId, chatId, done }) => {
        await chats.applyTaskStatus(accountId, chatId, done, { type: 'api', operatorEmail: null });
      },
      'agent.reply': (payload) => agent.reply(payload),
    },
  });
  const chats = createChatsService({
    db,
    chatsStore: createChatsStore,
    channelsStore: createChannelsStore,
    queue: jobs,
    clock,
    eventsCommitted,
  });
  const fileStorage = createLocalFileStorage(path.join(config.dataDir, 'files'));
  const knowledgeStore = createKnowledgeStore(db);
  const retriever = createRetriever(knowledgeStore);
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
    messagesStore: createMessagesStore,
    chatsStore: createChatsStore,
    channelsStore: createChannelsStore,
    eventsCommitted,
  });
  const messages = createMessagesService({
    db,
    files: { storage: fileStorage, publicUrl: config.publicUrl },
    messagesStore: createMessagesStore,
    chatsStore: createChatsStore,
    channelsStore: createChannelsStore,
    clock,
    agent,
    eventsCommitted,
  });
  const tags = createTagsService({ store: createTagsStore(db) });
  const consoleAuth = createConsoleAuth({ store: accountsStore, clock, jwtSecret: config.jwtSecret });
  const knowledge = createKnowledgeService({ store: knowledgeStore, clock });
  const feedback = createFeedbackService({
    db,
    messagesStore: createMessagesStore,
    chatsStore: createChatsStore,
    channelsStore: createChannelsStore,
    knowledge: (executor) => createKnowledgeService({ store: createKnowledgeStore(executor), clock }),
  });
  const channels = createChannelsService({ store: createChannelsStore(db), clock, urlGuard, webhookClient, publicUrl: config.publicUrl });

  // Live views (Inbox, widget) follow committed events in every process, workers or not.
  const liveFeed = createLiveFeed({ db, listen: deps.listen, logger });
  app.addHook('onReady', () => liveFeed.start());
  app.addHook('preClose', () => liveFeed.stop());

  const widgetStore = createWidgetStore(db);
  const ipKeySecret = createHmac('sha256', config.jwtSecret).update('parley widget ip key').digest();
  const widget = createWidgetService({
    db,
    store: widgetStore,
    tokens: createVisitorTokens(config.jwtSecret),
    messages,
    clock,
    ipKey: (ip) => createHmac('sha256', ipKeySecret).update(ip).digest('hex').slice(0, 32),
  });

  app.get('/healthz', async () => {
    await db.execute('select 1');
    return { status: 'ok' };
  });

  await app.register(docs);
  await app.register(filesPlugin, { storage: fileStorage });
  await app.register(adminApi, { prefix: '/admin/v1', adminToken: config.adminToken, accounts });
  await app.register(consoleApi, {
    prefix: '/console/v1',
    auth: consoleAuth,
    routes: (api) => {
      registerChannelRoutes(api, channels);
      registerKnowledgeRoutes(api, knowledge);
      registerInboxRoutes(api, chats, messages);
      registerDeliveryRoutes(api, deliveriesService);
      registerAgentRoutes(api, agent);
    },
  });
  await app.register(gateway, {
    prefix: '/api/v1',
    authenticator,
    rateLimitMax: config.rateLimitMax,
    redis,
    routes: (api) => {
      registerChatRoutes(api, chats);
      registerTagRoutes(api, tags);
      registerMessageRoutes(api, messages, feedback);
    },
  });
  const widgetConnections = new Set<WebSocket>();
  app.decorate('widgetConnections', widgetConnections);
  await app.register(widgetPlugin, { widget, store: widgetStore, liveFeed, connections: widgetConnections, publicUrl: config.publicUrl });
  await app.register(demoApi, { prefix: '/demo/v1', authenticator, pets: createPetsService({ db, petsStore: createPetsStore }) });

  // Background jobs run while the app is up; on close, jobs in flight finish and queued ones stay queued.
  if (deps.workers ?? true) {
    let unlisten = async () => {};
    app.addHook('onReady', async () => {
      jobs.start();
      await deliveryWorker.start();
      if (deps.listen) unlisten = await deps.listen(DELIVERIES_CHANNEL, wakeDeliveries);
    });
    app.addHook('preClose', async () => {
      await unlisten();
      await Promise.all([jobs.stop(), deliveryWorker.stop()]);
    });
  }
  return app;
}
