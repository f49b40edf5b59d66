// Messages: send-message-universal of the public API (spec, Endpoints → Messages, rules 1–5), customer messages
// of channel connectors (messengers, the chat widget) through the same ingest path, and the team's replies from
// the Inbox. A customer message and a message delivered to the customer write new_messages in the same
// transaction; a team reply recorded through the API (`role: assistant`) writes none.
import { DEFAULT_SENDER_NAME, type InboxMessage, type SendMessageBody } from '@parley/contracts';
import type { ChannelRow } from '../channels/channels-store.ts';
import { NO_CUSTOMER_DELIVERY } from './customer-delivery.ts';
import type { ChatsStore } from '../chats/chats-store.ts';
import type { Executor } from '../db/client.ts';
import type { StoredAttachment } from '../db/schema.ts';
import { Errors } from '../errors.ts';
import type { Upload } from '../files/file-storage.ts';
import { isUuid, newId } from '../lib/ids.ts';
import { webhookMessage } from '../webhooks/payloads.ts';
import { detectAll, storeAttachments, type AttachmentStore } from './attachments.ts';
import { recordNewMessage } from './message-events.ts';
import { createIngest, type IncomingChat, type Ingested, type IngestDeps } from './message-ingest.ts';
import type { MessageRow } from './messages-store.ts';

export type { AttachmentStore } from './attachments.ts';

export interface MessagesServiceDeps extends IngestDeps {
  files: AttachmentStore;
  chatsStore: (executor: Executor) => Pick<ChatsStore, 'find'>;
}

export type { IncomingChat, Ingested } from './message-ingest.ts';

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
  const fromAgent = row.origin === 'agent';
  const agentOutcome = !fromAgent ? null : row.handoff ? 'handoff' : row.fallback ? 'fallback' : 'answered';
  return { kind: 'message', ...webhookMessage(row), rating: row.rating as InboxMessage['rating'], fromAgent, agentOutcome };
}

export function createMessagesService(deps: MessagesServiceDeps) {
  const { db, files, messagesStore, chatsStore, channelsStore, clock, customerDelivery = NO_CUSTOMER_DELIVERY, eventsCommitted = () => {} } = deps;
  const { record } = createIngest(deps);
  const store = (detected: Awaited<ReturnType<typeof detectAll>>) => storeAttachments(files, detected);

  return {
    /**
     * Returns quietly (the caller answers 201) when the message is ignored: unknown API channel (rule 4, also one
     * deleted while the message is being stored), banned chat (docs/architecture.md decision), repeated messageId (rule 3).
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
     * A customer's message from a messenger (messengers/messenger-inbound.ts): the same path as send-message-universal
     * (chat found or created, new_messages, the agent's plan with the silence rules, a banned chat ignores it), with
     * the chat identity of docs/architecture.md: `uniqueId` `<chat_id>_<channel_id>`, `chatId` the messenger's chat id.
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
    async sendTeamReply(accountId: string, chatId: string, text: string, member: { memberId: string; name: string }): Promise<InboxMessage> {
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
          memberId: member.memberId,
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
