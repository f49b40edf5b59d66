// buildApp: the whole HTTP application, from config and dependencies. No listen, no environment reads.
// A table of contents: each feature assembles itself in its folder's module.ts (see kernel/module.ts); they are listed
// here in the order they depend on each other.
import type { FastifyInstance } from 'fastify';
import { createAccountsModule } from './accounts/module.ts';
import { createActionsModule } from './actions/module.ts';
import { createAlertsModule } from './alerts/module.ts';
import { createAssignmentModule } from './assignment/module.ts';
import { createAuditModule } from './audit/module.ts';
import { createAgentModule } from './agent/module.ts';
import { createChannelsModule } from './channels/module.ts';
import { createMessengersModule } from './messengers/module.ts';
import { createWidgetModule } from './widget/module.ts';
import { createChatsModule } from './chats/module.ts';
import { createConversationsModule } from './conversations/module.ts';
import { createCore, type AppDeps } from './core.ts';
import { createCrmModule } from './crm/module.ts';
import { createDemoModule } from './demo/module.ts';
import { createEventsModule } from './events/module.ts';
import { createFeedbackModule } from './feedback/module.ts';
import { createHttpServer } from './http/server.ts';
import { registerSurfaces } from './http/surfaces.ts';
import { createKnowledgeModule } from './knowledge/module.ts';
import { createMessagesModule } from './messages/module.ts';
import { createMetricsModule } from './metrics/module.ts';
import { runWorkers } from './kernel/module.ts';
import { createOverviewModule } from './overview/module.ts';
import { createSearchModule } from './search/module.ts';
import { createPrivacyModule } from './privacy/module.ts';
import { createRepliesModule } from './replies/module.ts';
import { createReplaysModule } from './replays/module.ts';
import { createSuggestionsModule } from './suggestions/module.ts';
import { createTagsModule } from './tags/module.ts';
import { createWebhooksModule } from './webhooks/module.ts';

export type { AppDeps } from './core.ts';

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = createHttpServer(deps.logger, { trustProxy: deps.trustProxy });
  const core = await createCore(app, deps);
  const { config } = deps;

  const webhooks = createWebhooksModule(core, { deliveryPollMs: deps.deliveryPollMs, retentionDays: config.deliveryRetentionDays });
  const { eventsCommitted } = webhooks;
  const alerts = createAlertsModule(core);
  const accounts = createAccountsModule(core, { apiKeyCacheTtlMs: deps.apiKeyCacheTtlMs, backup: deps.backup, alerts: alerts.queue });
  const messengers = createMessengersModule(core, { apis: config.messengerApis });
  const channels = createChannelsModule(core, { messengers: messengers.registration });
  const crm = createCrmModule(core, { apis: config.crmApis });
  const chats = createChatsModule(core, { eventsCommitted, crmSync: crm.sync });
  const tags = createTagsModule(core, { chats: chats.chats });
  // Auto-assignment's sweep runs as often as the conversations sweep in tests (conversationSweepMs), every minute else.
  const assignment = createAssignmentModule(core, { emailDelayMs: alerts.emailDelayMs, sweepMs: deps.conversationSweepMs });
  const knowledge = createKnowledgeModule(core, {
    encoder: config.knowledgeEncoder,
    ...(deps.parserMaxMemoryMb !== undefined ? { documentParser: { maxMemoryMb: deps.parserMaxMemoryMb } } : {}),
  });
  const actions = createActionsModule(core);
  const customerDelivery = messengers.outbound;
  const agent = createAgentModule(core, {
    knowledge,
    customerDelivery,
    eventsCommitted,
    crmSync: crm.sync,
    alerts: alerts.queue,
    actions: actions.agentActions,
    teamHours: assignment.teamHours,
  });
  const messages = createMessagesModule(core, {
    agent: agent.agent,
    customerDelivery,
    eventsCommitted,
    alerts: alerts.queue,
    alertEmailDelayMs: alerts.emailDelayMs,
    actionRuns: actions.historyOf,
  });
  const events = createEventsModule(core, { presence: alerts.presence, inboxReads: chats.chats });
  const conversations = createConversationsModule(core, { sweepMs: deps.conversationSweepMs, customerDelivery, eventsCommitted });
  // The retention sweep runs as often as the conversations sweep in tests (conversationSweepMs), every 10 minutes else.
  const audit = createAuditModule(core, { pruneMs: deps.conversationSweepMs });
  const privacy = createPrivacyModule(core, { retentionSweepMs: deps.conversationSweepMs === undefined ? undefined : deps.conversationSweepMs });

  await registerSurfaces(app, core, {
    consoleAuth: accounts.consoleAuth,
    passwordReset: accounts.profile,
    sso: accounts.sso,
    authenticator: accounts.authenticator,
    loginAttemptsPerIp: deps.loginAttemptsPerIp,
    webDistDir: deps.webDistDir,
    modules: [
      accounts,
      alerts,
      channels,
      knowledge,
      messages,
      createFeedbackModule(core, { knowledge }),
      events,
      createOverviewModule(core),
      conversations,
      webhooks,
      agent,
      messengers,
      messengers.inbound(messages.messages, conversations.messengerCsat),
      crm,
      chats,
      tags,
      createRepliesModule(core),
      createSuggestionsModule(core, { knowledge }),
      createSearchModule(core),
      createReplaysModule(core, { agent: agent.agent, knowledge }),
      actions,
      privacy,
      assignment,
      audit,
      createWidgetModule(core, { messages: messages.messages, liveFeed: events.liveFeed, csat: conversations.csat }),
      createDemoModule(core, { authenticator: accounts.authenticator }),
      createMetricsModule(core, {
        token: config.metricsToken,
        port: config.metricsPort,
        host: config.host,
        conversationTotals: conversations.outcomeTotals,
      }),
    ],
  });
  // Background jobs and webhook deliveries, in a process that runs workers (on close, jobs in flight finish).
  if (deps.workers ?? true) runWorkers(app, [core.jobWorkers, webhooks.workers, knowledge.workers, conversations.workers, privacy.workers, assignment.workers, audit.workers], deps.handBack);
  return app;
}
