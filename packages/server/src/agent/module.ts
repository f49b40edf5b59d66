// The AI agent: its two engines (the embedded knowledge-base engine and any OpenAI-compatible server), the reply
// job that answers a chat's waiting customer messages (and the model's summary of a handoff), and the console's
// `Try the agent`.
import type { AgentActions } from '../actions/agent-actions.ts';
import type { AlertQueue } from '../alerts/alert-queue.ts';
import { createChatsStore } from '../chats/chats-store.ts';
import type { Kernel } from '../kernel/kernel.ts';
import type { ChannelStores } from '../channels/channel-cache.ts';
import type { CrmSyncHook } from '../chats/chats-service.ts';
import { preparedQuery } from '../db/client.ts';
import type { StoredTeamHours } from '../db/schema.ts';
import type { EventsCommitted } from '../events/outbox.ts';
import { registerAgentRoutes } from './agent-routes.ts';
import type { createKnowledgeModule } from '../knowledge/module.ts';
import { createMessagesStore } from '../messages/messages-store.ts';
import { createNotesStore } from '../messages/notes-store.ts';
import type { CustomerDelivery } from '../messages/customer-delivery.ts';
import type { FeatureModule } from '../kernel/module.ts';
import { notifyWidgetTyping } from '../events/typing.ts';
import { createAgentService } from './agent-service.ts';
import { createAgentStore } from './agent-store.ts';
import { createKnowledgeBaseEngine } from './engines/knowledge-base-engine.ts';
import { createOpenAiEngine } from './engines/openai-engine.ts';
import { createModelDrafter } from './engines/model-draft.ts';
import { createModelSummaries } from './handoff/model-summary.ts';
import { createReplyStore } from './reply-store.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type AgentShared = Pick<Kernel, 'clock' | 'closeWithApp' | 'db' | 'files' | 'jobs' | 'logger' | 'metrics' | 'urlGuard'> & ChannelStores;

export interface AgentModuleDeps {
  knowledge: Pick<ReturnType<typeof createKnowledgeModule>, 'retriever' | 'baseLanguage' | 'learnPhrasing'>;
  customerDelivery: CustomerDelivery;
  eventsCommitted: EventsCommitted;
  crmSync: CrmSyncHook;
  alerts: AlertQueue;
  /** The channels' actions (actions/module.ts). */
  actions?: AgentActions;
  /** The account's team hours (assignment/module.ts): a handoff outside them says when the team is back. */
  teamHours?: (accountId: string) => Promise<StoredTeamHours | null>;
}

export function createAgentModule(core: AgentShared, { knowledge, customerDelivery, eventsCommitted, crmSync, alerts, actions, teamHours }: AgentModuleDeps) {
  const { retriever, baseLanguage } = knowledge;
  const openAiEngine = createOpenAiEngine({ guard: core.urlGuard, retriever, baseLanguage, files: core.files.storage });
  core.closeWithApp(openAiEngine);
  const summaryModel = createModelDrafter({ guard: core.urlGuard });
  core.closeWithApp(summaryModel);
  const modelSummaries = createModelSummaries({
    db: core.db,
    logger: core.logger,
    jobs: core.jobs,
    model: summaryModel,
    notesStore: createNotesStore,
    messagesStore: createMessagesStore,
    channelsStore: core.channelsStoreOf,
    alerts,
  });
  core.jobs.handle('agent.handoffSummary', (payload) => modelSummaries.run(payload));
  const agent = createAgentService({
    db: core.db,
    clock: core.clock,
    logger: core.logger,
    queue: core.jobs,
    engines: { 'knowledge-base': createKnowledgeBaseEngine({ retriever, baseLanguage }), 'openai-compatible': openAiEngine },
    agentStore: createAgentStore,
    replyStore: createReplyStore(preparedQuery(core.db), core.jobs.notifyPayload),
    messagesStore: createMessagesStore,
    chatsStore: createChatsStore,
    channelsStore: core.channelsStoreOf,
    customerDelivery,
    eventsCommitted,
    crmSync,
    metrics: core.metrics,
    replying: notifyWidgetTyping(core),
    notesStore: createNotesStore,
    alerts,
    modelSummaries,
    learnPhrasing: knowledge.learnPhrasing,
    ...(actions ? { actions } : {}),
    ...(teamHours ? { teamHours } : {}),
  });
  core.jobs.handle('agent.reply', (payload) => agent.reply(payload));
  return { agent, consoleRoutes: (api) => registerAgentRoutes(api, agent) } satisfies FeatureModule & Record<string, unknown>;
}
