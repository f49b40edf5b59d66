// Messages: send-message-universal of the public API (spec, Endpoints → Messages, rules 1–5) and the team's
// replies from the Inbox. A customer message and a message delivered to the customer write new_messages
// in the same transaction; a team reply recorded through the API (`role: assistant`) writes none.
import { DEFAULT_SENDER_NAME, type InboxMessage, type SendMessageBody } from '@parley/contracts';
import type { ChannelsStore } from '../channels/channels-store.ts';
import type { AgentService } from '../agent/agent-service.ts';
import type { ChatsServiceDeps } from '../chats/chats-service.ts';
import type { ChatsStore } from '../chats/chats-store.ts';
import type { Database, Executor } from '../db/client.ts';
import type { StoredAttachment } from '../db/schema.ts';
import { Errors } from '../errors.ts';
import { detectUpload, safeFileName } from '../files/file-kinds.ts';
import { fileUrl, type FileStorage, type Upload } from '../files/file-storage.ts';
import type { EventsCommitted } from '../events/outbox.ts';
import type { Clock } from '../lib/clock.ts';
import { isUuid, newId } from '../lib/ids.ts';
import { webhookMessage } from '../webhooks/payloads.ts';
import { recordNewMessage } from './message-events.ts';
import type { MessageRow, MessagesStore } from './messages-store.ts';

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
  /** Decides, in the message's transaction, whether the agent answers a customer message (rule 3). */
  agent: Pick<AgentService, 'planFor' | 'afterCustomerMessage' | 'wake'>;
  eventsCommitted?: EventsCommitted;
}

export function toInboxMessage(row: MessageRow): InboxMessage {
  return { ...webhookMessage(row), rating: row.rating as InboxMessage['rating'], fromAgent: row.origin === 'agent' };
}

export function createMessagesService({
  db,
  files,
  messagesStore,
  chatsStore,
  channelsStore,
  clock,
  agent,
  eventsCommitted = () => {},
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

  return {
    /**
     * Returns quietly (the caller answers 201) when the message is ignored: unknown API channel (rule 4),
     * banned chat (DESIGN.md decision), repeated messageId (rule 3).
     */
    async sendUniversal(accountId: string, body: SendMessageBody, uploads: readonly Upload[] = []): Promise<void> {
      const detected = await detectAll(uploads);
      const channel = await channelsStore(db).find(accountId, body.channelId);
      if (!channel || channel.kind !== 'custom') return;
      // Files are written before the transaction (never I/O inside one); a message that then turns out to be
      // ignored (banned chat, repeated messageId) leaves its files unreferenced.
      const attachments = await store(detected);
      const recorded = await db.transaction(async (tx) => {
        const store = messagesStore(tx);
        const now = clock.now();
        const chat = await store.findOrCreateChat({
          id: newId(),
          accountId,
          channelId: channel.id,
          channelKind: channel.kind,
          externalChatId: body.externalChatId,
          uniqueId: `${channel.id}:${body.externalChatId}`,
          dialogName: body.role === 'user' ? (body.senderName ?? DEFAULT_SENDER_NAME) : DEFAULT_SENDER_NAME,
          createdAt: now,
          updatedAt: now,
          lastMessageAt: now,
        });
        if (chat.banned) return 'ignored';
        const fromCustomer = body.role === 'user';
        const plan = fromCustomer ? agent.planFor(channel, chat, now) : 'silent';
        const message = await store.insert({
          id: newId(),
          accountId,
          chatId: chat.id,
          role: body.role,
          origin: fromCustomer ? 'customer' : 'api',
          senderName: body.senderName ?? (fromCustomer ? DEFAULT_SENDER_NAME : null),
          text: body.text,
          attachments,
          externalId: body.messageId ?? null,
          awaitingAgent: plan === 'answer',
          createdAt: now,
        });
        if (!message) return 'ignored'; // a repeated messageId: no event, no reply
        const touched = await store.touchChat(chat.id, {
          text: body.text,
          at: now,
          unread: fromCustomer,
          ...(fromCustomer && body.senderName !== undefined ? { dialogName: body.senderName } : {}),
        });
        if (!fromCustomer) return 'ignored'; // rule 2: saved as context, sent nowhere
        await recordNewMessage(tx, channelsStore, touched, message, now);
        await agent.afterCustomerMessage(tx, plan, channel, touched, now);
        return plan;
      });
      if (recorded === 'ignored') return;
      eventsCommitted();
      if (recorded === 'answer') agent.wake();
    },

    async listMessages(accountId: string, chatId: string, limit = 200): Promise<{ messages: InboxMessage[] }> {
      if (!isUuid(chatId) || !(await chatsStore(db).find(accountId, chatId))) throw Errors.consoleChatNotFound();
      const rows = await messagesStore(db).listRecent(accountId, chatId, limit);
      return { messages: rows.map(toInboxMessage) };
    },

    /** A team member's reply from the Inbox: delivered to the customer, so it is a new_messages event. */
    async sendTeamReply(accountId: string, chatId: string, text: string, member: { email: string }): Promise<InboxMessage> {
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
          senderName: member.email,
          text,
          createdAt: now,
        });
        if (!message) throw new Error('team reply was not stored');
        const touched = await store.touchChat(chatId, { text, at: now, unread: false });
        await recordNewMessage(tx, channelsStore, touched, message, now);
        return toInboxMessage(message);
      });
      eventsCommitted();
      return reply;
    },
  };
}

export type MessagesService = ReturnType<typeof createMessagesService>;
