// The one ingest path of a message into a chat (spec, send-message-universal rules 1–3), shared by the public API,
// the messengers and the chat widget: the common path group-commits concurrent messages into one statement per
// batch (ingest-store.ts); a message that may get the off-hours auto-reply goes step by step in a transaction.
import type { ChannelRow, ChannelsStore } from '../channels/channels-store.ts';
import { DEFAULT_SETTINGS } from '../channels/channels-service.ts';
import { NO_CUSTOMER_DELIVERY } from './customer-delivery.ts';
import type { StoredAttachment } from '../db/schema.ts';
import { createGroupCommit } from '../lib/group-commit.ts';
import { newId } from '../lib/ids.ts';
import { NO_METRICS } from '../kernel/metrics.ts';
import { NO_ALERTS, type AlertQueue } from '../alerts/alert-queue.ts';
import { webhookMessage } from '../webhooks/payloads.ts';
import { LruMap } from 'toad-cache';
import { recordNewMessage } from './message-events.ts';
import type { IngestForm, IngestRow, IngestStore } from './ingest-store.ts';
import type { Clock } from '../lib/clock.ts';
import type { ChatsServiceDeps } from '../chats/chats-service.ts';
import type { ChatRow } from '../chats/chats-store.ts';
import type { Database, Executor } from '../db/client.ts';
import type { EventsCommitted } from '../events/outbox.ts';
import type { AppMetrics } from '../kernel/metrics.ts';
import type { CustomerDelivery } from './customer-delivery.ts';
import type { MessageRow, MessagesStore } from './messages-store.ts';

/** A message on its way into a chat (the API channel's, a messenger's or the widget's). */
export interface IncomingMessage {
  chat: IncomingChat;
  role: 'user' | 'assistant';
  senderName: string | null;
  text: string;
  attachments: StoredAttachment[];
  externalId: string | null;
  /** The chat's new name (a customer message that names its sender). */
  rename?: string;
}

/** Which chat a connector's message belongs to (created on the first message). */
export interface IncomingChat {
  externalChatId: string;
  uniqueId: string;
  dialogName: string;
  email?: string | null;
  photoUrl?: string | null;
  isGroup?: boolean;
}

/** A stored customer message and its chat. */
export interface Ingested {
  chat: ChatRow;
  message: MessageRow;
}

/** Whether the agent answers a customer message (rule 3): it answers, the auto-reply goes out, or it stays silent. */
export type AgentPlan = 'answer' | 'autoReply' | 'silent';

/** What the ingest asks of the agent (agent/agent-service.ts implements it). */
export interface IngestAgent {
  channelPlan(channel: ChannelRow, at: Date): AgentPlan;
  planFor(channel: ChannelRow, chat: ChatRow, at: Date): AgentPlan;
  /** In the message's transaction: the reply job, or the auto-reply. */
  afterCustomerMessage(tx: Executor, plan: AgentPlan, channel: ChannelRow, chat: ChatRow, at: Date): Promise<void>;
  /** After the commit: the reply jobs start at once. */
  wake(): void;
}

/** What the ingest uses; the messages service's dependencies include these (messages-service.ts). */
export interface IngestDeps {
  db: Database;
  messagesStore: (executor: Executor) => MessagesStore;
  channelsStore: ChatsServiceDeps['channelsStore'] & ((executor: Executor) => Pick<ChannelsStore, 'find'>);
  clock: Clock;
  /** The one-statement ingest of the common path, group-committed (ingest-store.ts). */
  ingestStore: IngestStore;
  /** Ingest batches written at once (a few on a PostgreSQL pool; one on PGlite). */
  ingestConcurrency?: number;
  /** Decides whether the agent answers a customer message (rule 3). */
  agent: IngestAgent;
  /** Replies to messenger chats go out through their messenger (a job queued in the reply's transaction). */
  customerDelivery?: CustomerDelivery;
  eventsCommitted?: EventsCommitted;
  /** Each stored message is counted (parley_messages_ingested_total). */
  metrics?: Pick<AppMetrics, 'messageIngested'>;
  /** Follow-through (issue #33) of the step-by-step path; the one-statement path writes its jobs itself. */
  alerts?: Pick<AlertQueue, 'needsPerson' | 'assigneeAlert'>;
}

export function createIngest({
  db,
  messagesStore,
  ingestStore,
  ingestConcurrency = 1,
  channelsStore,
  clock,
  agent,
  customerDelivery = NO_CUSTOMER_DELIVERY,
  eventsCommitted = () => {},
  metrics = NO_METRICS,
  alerts = NO_ALERTS,
}: IngestDeps) {
  const batches = createBatches(ingestStore, ingestConcurrency, clock, agent);

  /**
   * The one ingest path of a message into a chat (spec, send-message-universal rules 1–3): the chat is found or
   * created, a banned chat ignores it, a repeated external id is ignored; a customer message writes new_messages
   * and lets the agent plan its answer in the same statement. Undefined when ignored (its channel deleted
   * meanwhile among the reasons) or sent nowhere.
   */
  async function record(channel: ChannelRow, incoming: IncomingMessage): Promise<Ingested | undefined> {
    // The off-hours auto-reply depends on the chat's last one: that rare case goes step by step.
    if (incoming.role === 'user' && agent.channelPlan(channel, clock.now()) === 'autoReply') return recordStepByStep(channel, incoming);
    let stored = await batches.submit({ channel, incoming });
    // Its chat was not there after all (deleted with its channel meanwhile): nothing was written; again as new.
    if (stored === 'missing') stored = await batches.submit({ channel, incoming });
    if (!stored || stored === 'missing') return undefined;
    metrics.messageIngested(channel.kind);
    if (incoming.role !== 'user') return undefined;
    eventsCommitted();
    if (stored.jobQueued) agent.wake();
    return { chat: stored.chat, message: stored.message };
  }

  /** The same as `record` in a transaction of several statements, for a message that may get the auto-reply. */
  async function recordStepByStep(channel: ChannelRow, incoming: IncomingMessage): Promise<Ingested | undefined> {
    const accountId = channel.accountId;
    const recorded = await db.transaction(async (tx) => {
      const store = messagesStore(tx);
      if (!(await store.holdChannel(channel.id))) return undefined; // deleted meanwhile: as for an unknown channel
      const now = clock.now();
      const chat = await store.findOrCreateChat({
        id: newId(),
        accountId,
        channelId: channel.id,
        channelKind: channel.kind,
        externalChatId: incoming.chat.externalChatId,
        uniqueId: incoming.chat.uniqueId,
        dialogName: incoming.chat.dialogName,
        ...(incoming.chat.email ? { email: incoming.chat.email } : {}),
        ...(incoming.chat.photoUrl ? { photoUrl: incoming.chat.photoUrl } : {}),
        ...(incoming.chat.isGroup ? { isGroup: true } : {}),
        createdAt: now,
        updatedAt: now,
        lastMessageAt: now,
      });
      if (chat.banned) return undefined;
      const fromCustomer = incoming.role === 'user';
      const plan = fromCustomer ? agent.planFor(channel, chat, now) : 'silent';
      const message = await store.insert({
        id: newId(),
        accountId,
        chatId: chat.id,
        role: incoming.role,
        origin: fromCustomer ? 'customer' : 'api',
        senderName: incoming.senderName,
        text: incoming.text,
        attachments: incoming.attachments,
        externalId: incoming.externalId,
        awaitingAgent: plan === 'answer',
        createdAt: now,
      });
      if (!message) return undefined; // a repeated messageId: no event, no reply
      // Follow-through (issue #33), as the one-statement path does: a paused chat's customer message flags it
      // (unassigned); any chat's alerts its assignee (when offline).
      const flags = fromCustomer && chat.paused && chat.assigneeId === null && !chat.needsHuman;
      const touched = await store.touchChat(chat.id, {
        text: incoming.text,
        at: now,
        unread: fromCustomer,
        ...(incoming.rename !== undefined ? { dialogName: incoming.rename } : {}),
        ...(flags ? { needsHuman: true } : {}),
      });
      if (!fromCustomer) return { plan: 'context' as const }; // rule 2: saved as context, sent nowhere
      if (flags) await alerts.needsPerson(tx, chat, 'customer_message');
      else if (chat.assigneeId !== null) await alerts.assigneeAlert(tx, chat, chat.assigneeId);
      await recordNewMessage(tx, channelsStore, touched, message, now);
      await agent.afterCustomerMessage(tx, plan, channel, touched, now);
      return { plan, chat: touched, message };
    });
    if (!recorded) return undefined;
    metrics.messageIngested(channel.kind);
    if (recorded.plan === 'context') return undefined;
    eventsCommitted();
    if (recorded.plan === 'answer') agent.wake();
    if (recorded.plan === 'autoReply') customerDelivery.wake();
    return { chat: recorded.chat, message: recorded.message };
  }

  return { record };
}

/**
 * The common path: one statement per batch of concurrent messages (ingest-store.ts), the time and the agent's
 * plan read when the batch is written, so a batch's messages are stored in the order of their times.
 */
function createBatches(ingestStore: IngestStore, ingestConcurrency: number, clock: Clock, agent: IngestDeps['agent']) {
  const chatKey = ({ channel, incoming }: { channel: ChannelRow; incoming: IncomingMessage }) => `${channel.id}\u0000${incoming.chat.externalChatId}`;
  /** Chats this process has stored a message in: their messages go in the `known` form (no chat INSERT). */
  const knownChats = new LruMap<true>(100_000);
  return createGroupCommit({
    maxBatch: 256,
    concurrency: ingestConcurrency,
    keyOf: chatKey,
    classOf: (item): IngestForm => (knownChats.get(chatKey(item)) ? 'known' : 'new'),
    write: async (batch, form) => {
      const now = clock.now();
      const at = now.toISOString();
      const rows = batch.map(({ channel, incoming }): IngestRow => {
        const messageId = newId();
        return {
          chatId: newId(),
          accountId: channel.accountId,
          channelId: channel.id,
          channelKind: channel.kind,
          externalChatId: incoming.chat.externalChatId,
          uniqueId: incoming.chat.uniqueId,
          dialogName: incoming.chat.dialogName,
          email: incoming.chat.email ?? null,
          photoUrl: incoming.chat.photoUrl ?? null,
          isGroup: incoming.chat.isGroup ?? false,
          rename: incoming.rename ?? null,
          messageId,
          role: incoming.role,
          origin: incoming.role === 'user' ? 'customer' : 'api',
          senderName: incoming.senderName,
          text: incoming.text,
          attachments: incoming.attachments,
          externalId: incoming.externalId,
          at,
          agentAnswers: incoming.role === 'user' && agent.channelPlan(channel, now) === 'answer',
          webhookMessage: webhookMessage({ id: messageId, role: incoming.role, senderName: incoming.senderName, text: incoming.text, attachments: incoming.attachments, createdAt: now }),
          settings: { ...DEFAULT_SETTINGS, ...channel.settings },
          eventId: newId(),
          deliveryId: newId(),
          jobId: newId(),
        };
      });
      const results = await ingestStore.ingest(rows, form as IngestForm);
      results.forEach((result, index) => {
        const key = chatKey(batch[index] as (typeof batch)[number]);
        if (result === 'missing') knownChats.delete(key);
        else if (result) knownChats.set(key, true);
      });
      return results;
    },
  });
}
