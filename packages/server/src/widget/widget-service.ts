// The chat widget's visitor side (docs/architecture.md, Chat widget): sessions with a server-signed visitor token, identity
// verification, the visitor's messages through the one ingest path of customer messages, and the abuse limits.
// The sessions (start, details, authentication) are in visitor-sessions.ts.
import { DEFAULT_SENDER_NAME, type WidgetConversation, type WidgetMessage } from '@parley/contracts';
import type { Database } from '../db/client.ts';
import { Errors } from '../errors.ts';
import type { Upload } from '../files/file-storage.ts';
import { isUuid, newId } from '../lib/ids.ts';
import type { MessagesService } from '../messages/messages-service.ts';
import type { MessageRow } from '../messages/messages-store.ts';
import type { ChannelRow } from '../channels/channels-store.ts';
import { createVisitorSessions, MINUTE_MS, missingDetails, type VisitorContext, type VisitorSessionsDeps } from './visitor-sessions.ts';
import type { ConversationRow, VisitorRow } from './widget-store.ts';
import type { Csat } from '../conversations/csat.ts';

/** Messages committed out of time-stamp order (concurrent transactions) are caught by reading this far back. */
export const RESUME_OVERLAP_MS = 5_000;
const HISTORY_LIMIT = 500;

export type { VisitorContext } from './visitor-sessions.ts';

export function toWidgetMessage(row: MessageRow): WidgetMessage {
  const from = row.role === 'user' ? 'visitor' : row.origin === 'team' || row.origin === 'api' ? 'team' : 'agent';
  return {
    id: row.id,
    role: row.role === 'user' ? 'user' : 'assistant',
    from,
    // A team member's name; never their e-mail (team replies were signed with it before members had names).
    name: from === 'team' && row.senderName && !row.senderName.includes('@') ? row.senderName : null,
    text: row.text,
    attachments: row.attachments.map(({ name, url, contentType, fileSize }) => ({ name, url, contentType, fileSize })),
    ...(row.choices ? { choices: [...row.choices.options.map((option) => option.label), row.choices.other] } : {}),
    createdAt: row.createdAt.toISOString(),
  };
}

export { identifierHash } from './visitor-sessions.ts';

export interface WidgetServiceDeps extends VisitorSessionsDeps {
  /** The customer's rating of an ended conversation (conversations/csat.ts). */
  csat?: Pick<Csat, 'pending' | 'rate'>;
  db: Database;
  messages: Pick<MessagesService, 'receiveCustomerMessage'>;
}

export function createWidgetService({ store, tokens, messages, clock, ipKey, csat }: WidgetServiceDeps) {
  function incomingChat(channel: ChannelRow, visitor: VisitorRow, conversation: ConversationRow) {
    return {
      externalChatId: conversation.id,
      uniqueId: `${conversation.id}_${channel.id}`,
      dialogName: visitor.name ?? DEFAULT_SENDER_NAME,
      email: visitor.email,
    };
  }

  return {
    ...createVisitorSessions({ store, tokens, clock, ipKey }),

    /** One of the visitor's conversations (the newest when none is named); 404 for anyone else's. */
    async conversationOf({ visitor }: VisitorContext, id?: string): Promise<ConversationRow> {
      const found = id === undefined ? await store.latestConversation(visitor.id) : isUuid(id) ? await store.findConversation(visitor.id, id) : undefined;
      if (!found) throw Errors.widgetConversationNotFound();
      return found;
    },

    async listConversations({ visitor }: VisitorContext): Promise<{ conversations: WidgetConversation[] }> {
      const rows = await store.conversations(visitor.id);
      return {
        conversations: rows.map((row) => ({
          id: row.id,
          createdAt: row.createdAt.toISOString(),
          lastText: row.lastMessageAt ? row.lastText : null,
          lastMessageAt: row.lastMessageAt?.toISOString() ?? null,
        })),
      };
    },

    /** A new conversation; while the newest has no message yet, that one (no empty conversations pile up). */
    async newConversation({ channel, visitor }: VisitorContext): Promise<{ conversation: WidgetConversation }> {
      const latest = await store.latestConversation(visitor.id);
      if (latest && !(await store.findChat(channel.id, latest.id))) {
        return { conversation: { id: latest.id, createdAt: latest.createdAt.toISOString(), lastText: null, lastMessageAt: null } };
      }
      const created = await store.insertConversation({ id: newId(), accountId: channel.accountId, channelId: channel.id, visitorId: visitor.id, createdAt: clock.now() });
      return { conversation: { id: created.id, createdAt: created.createdAt.toISOString(), lastText: null, lastMessageAt: null } };
    },

    /**
     * A conversation's messages, oldest first (the last 500). With `after`: the messages from shortly before that
     * one on (RESUME_OVERLAP_MS), so none committed late is missed; the frame drops ids it has.
     */
    async history({ channel }: VisitorContext, conversation: ConversationRow, after?: string): Promise<{ messages: WidgetMessage[] }> {
      const chat = await store.findChat(channel.id, conversation.id);
      if (!chat) return { messages: [] };
      const anchor = after && isUuid(after) ? await store.findMessage(chat.id, after) : undefined;
      const since = anchor ? new Date(anchor.createdAt.getTime() - RESUME_OVERLAP_MS) : undefined;
      const rows = since ? await store.messages(chat.id, since, HISTORY_LIMIT) : await store.recentMessages(chat.id, HISTORY_LIMIT);
      return { messages: rows.map(toWidgetMessage) };
    },

    /** A conversation's messages from `since` on (the live stream's catch-up), oldest first. */
    async messagesSince({ channel }: VisitorContext, conversation: ConversationRow, since: Date | undefined): Promise<MessageRow[]> {
      const chat = await store.findChat(channel.id, conversation.id);
      if (!chat) return [];
      return since ? store.messages(chat.id, since, HISTORY_LIMIT) : store.recentMessages(chat.id, HISTORY_LIMIT);
    },

    /** The ended conversation of the visitor's chat to rate now (`How did we do?`), if any. */
    async csatPending({ channel }: VisitorContext, conversation: ConversationRow): Promise<{ conversationId: string } | null> {
      const chat = csat ? await store.findChat(channel.id, conversation.id) : undefined;
      return chat && csat ? csat.pending(chat.id) : null;
    },

    /** The visitor rates an ended conversation of their own chat, once. */
    async rate(
      { channel }: VisitorContext,
      conversation: ConversationRow,
      body: { conversationId: string; rating: number; comment?: string },
    ): Promise<{ success: true }> {
      const chat = await store.findChat(channel.id, conversation.id);
      if (!chat || !csat) throw Errors.csatNotAsked();
      await csat.rate(chat.id, body.conversationId, body.rating, body.comment ?? null);
      return { success: true };
    },

    /** A resume point: the time of the message with that id in the conversation, when there is one. */
    async resumePoint({ channel }: VisitorContext, conversation: ConversationRow, messageId: string): Promise<Date | undefined> {
      if (!isUuid(messageId)) return undefined;
      const chat = await store.findChat(channel.id, conversation.id);
      const message = chat ? await store.findMessage(chat.id, messageId) : undefined;
      return message?.createdAt;
    },

    /** The visitor's message, within the channel's limits, through the ingest path of every customer message. */
    async send(
      context: VisitorContext,
      conversation: ConversationRow,
      text: string,
      uploads: readonly Upload[],
    ): Promise<{ message: WidgetMessage | null }> {
      const { channel, settings, visitor } = context;
      if (text.trim() === '' && uploads.length === 0) throw Errors.widgetMessageEmpty();
      if ([...text].length > settings.maxMessageLength) throw Errors.widgetMessageTooLong(settings.maxMessageLength);
      const missing = missingDetails(settings, visitor);
      if (missing.length > 0) throw Errors.widgetDetailsRequired(missing);
      const chat = await store.findChat(channel.id, conversation.id);
      if (chat?.banned) return { message: null }; // ignored before any file is written
      const recent = await store.countCustomerMessages(channel.id, visitor.id, new Date(clock.now().getTime() - MINUTE_MS));
      if (recent >= settings.messagesPerMinute) throw Errors.widgetTooManyMessages(settings.messagesPerMinute);
      const result = await messages.receiveCustomerMessage(
        channel,
        incomingChat(channel, visitor, conversation),
        { text, ...(visitor.name ? { senderName: visitor.name } : {}) },
        uploads,
      );
      return { message: result ? toWidgetMessage(result.message) : null };
    },
  };
}

export type WidgetService = ReturnType<typeof createWidgetService>;
