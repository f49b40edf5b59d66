// Messages: send-message-universal and the other ingest paths (messengers, widget), stored files, and the Inbox's
// history of a chat, private notes and team replies.
import type { AlertQueue } from '../alerts/alert-queue.ts';
import type { CustomerDelivery } from './customer-delivery.ts';
import { createChatsStore } from '../chats/chats-store.ts';
import type { Kernel } from '../kernel/kernel.ts';
import type { ChannelStores } from '../channels/channel-cache.ts';
import { preparedQuery, statementSlots } from '../db/client.ts';
import type { EventsCommitted } from '../events/outbox.ts';
import { registerInboxMessageRoutes } from './inbox-routes.ts';
import { filesPlugin } from '../files/files-routes.ts';
import { registerMessageRoutes } from './messages-routes.ts';
import type { FeatureModule } from '../kernel/module.ts';
import { createIngestStore } from './ingest-store.ts';
import type { IngestAgent } from './message-ingest.ts';
import { createMessagesService } from './messages-service.ts';
import { createMessagesStore } from './messages-store.ts';
import { createNotesService, type NotesServiceDeps } from './notes-service.ts';
import { createNotesStore } from './notes-store.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type MessagesShared = Pick<Kernel, 'clock' | 'db' | 'files' | 'jobs' | 'metrics'> & ChannelStores;

export interface MessagesModuleDeps {
  agent: IngestAgent;
  customerDelivery: CustomerDelivery;
  eventsCommitted: EventsCommitted;
  /** Follow-through (issue #33): a customer message in a paused chat alerts the team. */
  alerts: AlertQueue;
  /** ALERT_EMAIL_DELAY_SECONDS in ms (the ingest statement writes the follow-through's jobs itself). */
  alertEmailDelayMs: number;
  /** The agent's action runs of a chat, for its console history (actions/module.ts). */
  actionRuns?: NotesServiceDeps['actionRuns'];
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
  const notes = createNotesService({
    db,
    notesStore: createNotesStore,
    chatsStore: createChatsStore,
    clock: core.clock,
    ...(deps.actionRuns ? { actionRuns: deps.actionRuns } : {}),
  });
  return {
    messages,
    publicRoutes: (api) => registerMessageRoutes(api, messages, core.files.readUploads),
    consoleRoutes: (api) => registerInboxMessageRoutes(api, { messages, notes }),
    async register(app) {
      await app.register(filesPlugin, { storage: core.files.storage });
    },
  } satisfies FeatureModule & Record<string, unknown>;
}
