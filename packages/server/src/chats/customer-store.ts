// SQL of the Inbox's customer card (issue #34, item 5): the widget host page and the customer's other chats. Each
// query walks an index: a widget chat's conversation by id, the visitor's conversations (visitor, created), their chats
// by (channel, external id), and the account's chats with one e-mail (migration 0026).
import { and, desc, eq, ne, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { channels, chats, widgetConversations, widgetVisitors } from '../db/schema.ts';
import { isUuid } from '../lib/ids.ts';
import type { ChatRow } from './chats-store.ts';

/** One of the customer's other chats, with its channel's name. */
export interface OtherChatRow {
  id: string;
  channelKind: string;
  channelName: string | null;
  dialogName: string;
  lastText: string;
  lastMessageAt: Date;
}

const otherChatColumns = {
  id: chats.id,
  channelKind: chats.channelKind,
  channelName: channels.name,
  dialogName: chats.dialogName,
  lastText: chats.lastText,
  lastMessageAt: chats.lastMessageAt,
};

export function createCustomerStore(db: Executor) {
  /** The widget visitor a widget chat is with (its conversation's visitor); undefined for other chats. */
  async function visitorOf(chat: ChatRow): Promise<{ id: string; pageUrl: string | null } | undefined> {
    if (chat.channelKind !== 'widget' || !isUuid(chat.externalChatId)) return undefined;
    const [row] = await db
      .select({ id: widgetVisitors.id, pageUrl: widgetVisitors.pageUrl })
      .from(widgetConversations)
      .innerJoin(widgetVisitors, eq(widgetVisitors.id, widgetConversations.visitorId))
      .where(and(eq(widgetConversations.id, chat.externalChatId), eq(widgetConversations.channelId, chat.channelId)));
    return row;
  }

  return {
    visitorOf,

    /** The visitor's other conversations' chats in the channel, newest activity first. */
    async visitorChats(chat: ChatRow, visitorId: string, limit: number): Promise<OtherChatRow[]> {
      return db
        .select(otherChatColumns)
        .from(widgetConversations)
        .innerJoin(chats, and(eq(chats.channelId, widgetConversations.channelId), eq(chats.externalChatId, sql`${widgetConversations.id}::text`)))
        .leftJoin(channels, eq(channels.id, chats.channelId))
        .where(and(eq(widgetConversations.visitorId, visitorId), eq(chats.accountId, chat.accountId), ne(chats.id, chat.id)))
        .orderBy(desc(chats.lastMessageAt), desc(chats.id))
        .limit(limit);
    },

    /** The account's other chats with this e-mail, newest activity first. */
    async emailChats(chat: ChatRow, email: string, limit: number): Promise<OtherChatRow[]> {
      return db
        .select(otherChatColumns)
        .from(chats)
        .leftJoin(channels, eq(channels.id, chats.channelId))
        .where(and(eq(chats.accountId, chat.accountId), eq(chats.email, email), ne(chats.id, chat.id)))
        .orderBy(desc(chats.lastMessageAt), desc(chats.id))
        .limit(limit);
    },
  };
}
