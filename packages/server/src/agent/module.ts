// The AI agent: its two engines (the embedded knowledge-base engine and any OpenAI-compatible server), the reply
// job that answers a chat's waiting customer messages, and the console's `Try the agent`.
import type { AlertQueue } from '../alerts/alert-queue.ts';
import { createChatsStore } from '../chats/chats-store.ts';
import type { Kernel } from '../kernel/kernel.ts';
import type { CrmSyncHook } from '../crm/crm-service.ts';
import { preparedQuery } from '../db/client.ts';
import type { EventsCommitted } from '../events/outbox.ts';
import { registerAgentRoutes } from '../http/console/agent-routes.ts';
import type { createKnowledgeModule } from '../knowledge/module.ts';
import { createMessagesStore } from '../messages/messages-store.ts';
import { createNotesStore } from '../messages/notes-store.ts';
import type { CustomerDelivery } from '../channels/customer-delivery.ts';
import type { FeatureModule } from '../module.ts';
import { notifyWidgetTyping } from '../channels/widget/typing.ts';
import { createAgentService } from './agent-service.ts';
import { createAgentStore } from './agent-store.ts';
import { createKnowledgeBaseEngine } from './engines/knowledge-base-engine.ts';
import { createOpenAiEngine } from './engines/openai-engine.ts';
import { createReplyStore } from './reply-store.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type AgentShared = Pick<Kernel, 'channelsStoreOf' | 'clock' | 'closeWithApp' | 'db' | 'files' | 'jobs' | 'logger' | 'metrics' | 'urlGuard'>;

export interface AgentModuleDeps {
  knowledge: Pick<ReturnType<typeof createKnowledgeModule>, 'retriever' | 'baseLanguage' | 'learnPhrasing'>;
  customerDelivery: CustomerDelivery;
  eventsCommitted: EventsCommitted;
  crmSync: CrmSyncHook;
  alerts: AlertQueue;
}

export function createAgentModule(core: AgentShared, { knowledge, customerDelivery, eventsCommitted, crmSync, alerts }: AgentModuleDeps) {
  const { retriever, baseLanguage } = knowledge;
  const openAiEngine = createOpenAiEngine({ guard: core.urlGuard, retriever, baseLanguage, files: core.files.storage });
  core.closeWithApp(openAiEngine);
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
    learnPhrasing: knowledge.learnPhrasing,
  });
  core.jobs.handle('agent.reply', (payload) => agent.reply(payload));
  return { agent, consoleRoutes: (api) => registerAgentRoutes(api, agent) } satisfies FeatureModule & Record<string, unknown>;
}
