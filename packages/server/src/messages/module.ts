// Messages: send-message-universal and the other ingest paths (messengers, widget), answer ratings and the
// corrections they save, stored files, and the console's Inbox, which acts on chats, messages, tags and ratings.
import type { AgentService } from '../agent/agent-service.ts';
import type { AlertQueue } from '../alerts/alert-queue.ts';
import type { CustomerDelivery } from '../channels/customer-delivery.ts';
import type { ChatsService } from '../chats/chats-service.ts';
import { createChatsStore } from '../chats/chats-store.ts';
import type { Kernel } from '../kernel/kernel.ts';
import { preparedQuery, statementSlots, type Executor } from '../db/client.ts';
import type { EventsCommitted } from '../events/outbox.ts';
import { createFeedbackService } from '../feedback/feedback-service.ts';
import { registerInboxRoutes } from '../http/console/inbox-routes.ts';
import { filesPlugin } from '../http/files-routes.ts';
import { registerMessageRoutes } from '../http/public/messages-routes.ts';
import type { KnowledgeService } from '../knowledge/knowledge-service.ts';
import type { FeatureModule } from '../module.ts';
import type { TagsService } from '../tags/tags-service.ts';
import { createIngestStore } from './ingest-store.ts';
import { createMessagesService } from './messages-service.ts';
import { createMessagesStore } from './messages-store.ts';
import { createNotesService } from './notes-service.ts';
import { createNotesStore } from './notes-store.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type MessagesShared = Pick<Kernel, 'channelsStoreOf' | 'clock' | 'db' | 'files' | 'jobs' | 'metrics'>;

export interface MessagesModuleDeps {
  agent: AgentService;
  chats: ChatsService;
  tags: TagsService;
  knowledge: { serviceOf(executor: Executor): KnowledgeService };
  customerDelivery: CustomerDelivery;
  eventsCommitted: EventsCommitted;
  /** Follow-through (issue #33): a customer message in a paused chat alerts the team. */
  alerts: AlertQueue;
  /** ALERT_EMAIL_DELAY_SECONDS in ms (the ingest statement writes the follow-through's jobs itself). */
  alertEmailDelayMs: number;
}

export function createMessagesModule(core: MessagesShared, deps: MessagesModuleDeps) {
  const { db } = core;
  const messages = createMessagesService({
    db,
    files: core.files,
    messagesStore: createMessagesStore,
    ingestStore: createIngestStore(preparedQuery(db), core.jobs.notifyPayload, deps.alertEmailDelayMs),
    // Half the pool: batches of other requests and the workers keep connections.
    ingestConcurrency: Math.max(1, Math.floor(statementSlots(db) / 2)),
    chatsStore: createChatsStore,
    channelsStore: core.channelsStoreOf,
    clock: core.clock,
    agent: deps.agent,
    customerDelivery: deps.customerDelivery,
    eventsCommitted: deps.eventsCommitted,
    metrics: core.metrics,
    alerts: deps.alerts,
  });
  const feedback = createFeedbackService({
    db,
    messagesStore: createMessagesStore,
    chatsStore: createChatsStore,
    channelsStore: core.channelsStoreOf,
    knowledge: deps.knowledge.serviceOf,
  });
  const notes = createNotesService({ db, notesStore: createNotesStore, chatsStore: createChatsStore, clock: core.clock });
  return {
    messages,
    publicRoutes: (api) => registerMessageRoutes(api, messages, feedback, core.files.readUploads),
    consoleRoutes: (api) => registerInboxRoutes(api, { chats: deps.chats, messages, notes, tags: deps.tags, feedback }),
    async register(app) {
      await app.register(filesPlugin, { storage: core.files.storage });
    },
  } satisfies FeatureModule & Record<string, unknown>;
}
