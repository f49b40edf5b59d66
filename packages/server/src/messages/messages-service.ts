// Messages: send-message-universal of the public API (spec, Endpoints → Messages, rules 1–5), customer messages
// of channel connectors (messengers, the chat widget) through the same ingest path, and the team's replies from
// the Inbox. A customer message and a message delivered to the customer write new_messages in the same
// transaction; a team reply recorded through the API (`role: assistant`) writes none.
import { DEFAULT_SENDER_NAME, type InboxMessage, type SendMessageBody } from '@parley/contracts';
import type { ChannelRow, ChannelsStore } from '../channels/channels-store.ts';
import { NO_CUSTOMER_DELIVERY, type CustomerDelivery } from '../channels/customer-delivery.ts';
import type { AgentService } from '../agent/agent-service.ts';
import type { ChatsServiceDeps } from '../chats/chats-service.ts';
import type { ChatRow, ChatsStore } from '../chats/chats-store.ts';
import type { Database, Executor } from '../db/client.ts';
import type { StoredAttachment } from '../db/schema.ts';
import { Errors } from '../errors.ts';
import { detectUpload, safeFileName } from '../files/file-kinds.ts';
import { fileUrl, type FileStorage, type Upload } from '../files/file-storage.ts';
import type { EventsCommitted } from '../events/outbox.ts';
import type { Clock } from '../lib/clock.ts';
import { isUuid, newId } from '../lib/ids.ts';
import { NO_METRICS, type AppMetrics } from '../metrics/metrics.ts';
import { webhookMessage } from '../webhooks/payloads.ts';
import { recordNewMessage } from './message-events.ts';
import type { MessageRow, MessagesStore } from './messages-store.ts';
import type { IngestForm, IngestRow, IngestStore } from './ingest-store.ts';
import { LruMap } from 'toad-cache';
import { createGroupCommit } from '../lib/group-commit.ts';
import { DEFAULT_SETTINGS } from '../channels/channels-service.ts';

/** Where attachments go and how they are linked (an unguessable URL under PUBLIC_URL). */
export interface AttachmentStore {
  storage: Pick<FileStorage, 'put' | 'putFile'>;
  publicUrl: string;
}

export interface MessagesServiceDeps {
  db: Database;
  files: AttachmentStore;
  messagesStore: (executor: Executor) => MessagesStore;
  chatsStore: (executor: Executor) => Pick<ChatsStore, 'find'>;
  channelsStore: ChatsServiceDeps['channelsStore'] & ((executor: Executor) => Pick<ChannelsStore, 'find'>);
  clock: Clock;
  /** The one-statement ingest of the common path, group-committed (ingest-store.ts). */
  ingestStore: IngestStore;
  /** Ingest batches written at once (a few on a PostgreSQL pool; one on PGlite). */
  ingestConcurrency?: number;
  /** Decides whether the agent answers a customer message (rule 3). */
  agent: Pick<AgentService, 'channelPlan' | 'planFor' | 'afterCustomerMessage' | 'wake'>;
  /** Replies to messenger chats go out through their messenger (a job queued in the reply's transaction). */
  customerDelivery?: CustomerDelivery;
  eventsCommitted?: EventsCommitted;
  /** Each stored message is counted (parley_messages_ingested_total). */
  metrics?: Pick<AppMetrics, 'messageIngested'>;
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

/** A message on its way into a chat (the API channel's, a messenger's or the widget's). */
interface IncomingMessage {
  chat: IncomingChat;
  role: 'user' | 'assistant';
  senderName: string | null;
  text: string;
  attachments: StoredAttachment[];
  externalId: string | null;
  /** The chat's new name (a customer message that names its sender). */
  rename?: string;
}

/** A messenger's customer message, its media already stored. */
export interface MessengerIncoming {
  externalId: string;
  externalChatId: string;
  dialogName: string | null;
  photoUrl: string | null;
  isGroup: boolean;
  senderName: string | null;
  text: string;
  attachments: StoredAttachment[];
}

export function toInboxMessage(row: MessageRow): InboxMessage {
  return { kind: 'message', ...webhookMessage(row), rating: row.rating as InboxMessage['rating'], fromAgent: row.origin === 'agent' };
}

export function createMessagesService({
  db,
  files,
  messagesStore,
  ingestStore,
  ingestConcurrency = 1,
  chatsStore,
  channelsStore,
  clock,
  agent,
  customerDelivery = NO_CUSTOMER_DELIVERY,
  eventsCommitted = () => {},
  metrics = NO_METRICS,
}: MessagesServiceDeps) {
  /** The type of each file from its bytes (spec, Accepted files); one unaccepted file rejects the message. */
  async function detectAll(uploads: readonly Upload[]) {
    const detected = await Promise.all(uploads.map(async (upload) => ({ upload, file: await detectUpload(upload) })));
    return detected.map(({ upload, file }) => {
      if (!file) throw Errors.fileTypeNotAccepted(upload.name);
      return { upload, file };
    });
  }


  async function store(detected: Awaited<ReturnType<typeof detectAll>>): Promise<StoredAttachment[]> {
    return Promise.all(
      detected.map(async ({ upload, file }) => {
        const name = safeFileName(upload.name, file.extension);
        const meta = { contentType: file.contentType, name };
        const stored = 'bytes' in upload ? await files.storage.put(upload.bytes, meta) : await files.storage.putFile(upload.path, meta);
        // Audio is a voice message for the agent; images it considers; other files it does not process.
        return { contentType: file.contentType, url: fileUrl(files.publicUrl, stored), fileSize: stored.size, name, kind: file.kind };
      }),
    );
  }

  /**
   * The common path: one statement per batch of concurrent messages (ingest-store.ts), the time and the agent's
   * plan read when the batch is written, so a batch's messages are stored in the order of their times.
   */
  const chatKey = ({ channel, incoming }: { channel: ChannelRow; incoming: IncomingMessage }) => `${channel.id}\u0000${incoming.chat.externalChatId}`;
  /** Chats this process has stored a message in: their messages go in the `known` form (no chat INSERT). */
  const knownChats = new LruMap<true>(100_000);
  const batches = createGroupCommit({
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
      const touched = await store.touchChat(chat.id, {
        text: incoming.text,
        at: now,
        unread: fromCustomer,
        ...(incoming.rename !== undefined ? { dialogName: incoming.rename } : {}),
      });
      if (!fromCustomer) return { plan: 'context' as const }; // rule 2: saved as context, sent nowhere
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

  return {
    /**
     * Returns quietly (the caller answers 201) when the message is ignored: unknown API channel (rule 4, also one
     * deleted while the message is being stored), banned chat (DESIGN.md decision), repeated messageId (rule 3).
     */
    async sendUniversal(accountId: string, body: SendMessageBody, uploads: readonly Upload[] = []): Promise<void> {
      const detected = await detectAll(uploads);
      const channel = await channelsStore(db).find(accountId, body.channelId);
      if (!channel || channel.kind !== 'custom') return;
      // Files are written before the transaction (never I/O inside one); a message that then turns out to be
      // ignored (banned chat, repeated messageId) leaves its files unreferenced.
      const attachments = await store(detected);
      const fromCustomer = body.role === 'user';
      await record(channel, {
        chat: {
          externalChatId: body.externalChatId,
          uniqueId: `${channel.id}:${body.externalChatId}`,
          dialogName: fromCustomer ? (body.senderName ?? DEFAULT_SENDER_NAME) : DEFAULT_SENDER_NAME,
        },
        role: body.role,
        senderName: body.senderName ?? (fromCustomer ? DEFAULT_SENDER_NAME : null),
        text: body.text,
        attachments,
        externalId: body.messageId ?? null,
        ...(fromCustomer && body.senderName !== undefined ? { rename: body.senderName } : {}),
      });
    },

    /**
     * A customer's message from a messenger (channels/messenger-inbound.ts): the same path as send-message-universal
     * (chat found or created, new_messages, the agent's plan with the silence rules, a banned chat ignores it), with
     * the chat identity of DESIGN.md: `uniqueId` `<chat_id>_<channel_id>`, `chatId` the messenger's chat id.
     */
    async receiveFromMessenger(channel: ChannelRow, incoming: MessengerIncoming): Promise<void> {
      const dialogName = incoming.dialogName ?? DEFAULT_SENDER_NAME;
      await record(channel, {
        chat: {
          externalChatId: incoming.externalChatId,
          uniqueId: `${incoming.externalChatId}_${channel.id}`,
          dialogName,
          photoUrl: incoming.photoUrl,
          isGroup: incoming.isGroup,
        },
        role: 'user',
        senderName: incoming.senderName ?? dialogName,
        text: incoming.text,
        attachments: incoming.attachments,
        externalId: incoming.externalId,
        ...(incoming.dialogName !== null ? { rename: incoming.dialogName } : {}),
      });
    },

    /**
     * A customer's message from the chat widget: the same rules as send-message-universal (accepted files, ban,
     * the agent's silence rules, new_messages). Files that are not accepted reject the message before anything is
     * stored. Undefined when the message was ignored.
     */
    async receiveCustomerMessage(
      channel: ChannelRow,
      chat: IncomingChat,
      message: { text: string; senderName?: string; externalId?: string },
      uploads: readonly Upload[] = [],
    ): Promise<Ingested | undefined> {
      const attachments = await store(await detectAll(uploads));
      return record(channel, {
        chat,
        role: 'user',
        senderName: message.senderName ?? DEFAULT_SENDER_NAME,
        text: message.text,
        attachments,
        externalId: message.externalId ?? null,
        ...(message.senderName !== undefined ? { rename: message.senderName } : {}),
      });
    },

    /** Whether a messenger's message is already stored (a redelivery: its media are not downloaded again). */
    async alreadyReceived(channelId: string, externalChatId: string, externalId: string): Promise<boolean> {
      return messagesStore(db).existsInChannelChat(channelId, externalChatId, externalId);
    },

    async listMessages(accountId: string, chatId: string, limit = 200): Promise<{ messages: InboxMessage[] }> {
      if (!isUuid(chatId) || !(await chatsStore(db).find(accountId, chatId))) throw Errors.consoleChatNotFound();
      const rows = await messagesStore(db).listRecent(accountId, chatId, limit);
      return { messages: rows.map(toInboxMessage) };
    },

    /**
     * A team member's reply from the Inbox: delivered to the customer, so it is a new_messages event, signed with their
     * name. It clears `needsHuman` (a member took the handed-off chat); the agent stays paused until resumed.
     */
    async sendTeamReply(accountId: string, chatId: string, text: string, member: { name: string }): Promise<InboxMessage> {
      const chat = isUuid(chatId) ? await chatsStore(db).find(accountId, chatId) : undefined;
      if (!chat) throw Errors.consoleChatNotFound();
      const reply = await db.transaction(async (tx) => {
        const store = messagesStore(tx);
        const now = clock.now();
        const message = await store.insert({
          id: newId(),
          accountId,
          chatId,
          role: 'assistant',
          origin: 'team',
          senderName: member.name,
          text,
          createdAt: now,
        });
        if (!message) throw new Error('team reply was not stored');
        const touched = await store.touchChat(chatId, { text, at: now, unread: false, needsHuman: false });
        await recordNewMessage(tx, channelsStore, touched, message, now);
        await customerDelivery.enqueue(tx, touched, message);
        return toInboxMessage(message);
      });
      eventsCommitted();
      customerDelivery.wake();
      return reply;
    },
  };
}

export type MessagesService = ReturnType<typeof createMessagesService>;
