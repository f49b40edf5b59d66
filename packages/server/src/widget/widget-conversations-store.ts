// SQL of a widget visitor's conversations and of their chats' messages, as the visitor API reads them. Part of
// the widget store (widget-store.ts), which spreads these queries into its own.
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { chats, messages, widgetConversations } from '../db/schema.ts';
import type { MessageRow } from '../messages/messages-store.ts';

export type ConversationRow = typeof widgetConversations.$inferSelect;

export function createWidgetConversationsStore(db: Executor) {
  return {
    async insertConversation(row: typeof widgetConversations.$inferInsert): Promise<ConversationRow> {
      const [created] = await db.insert(widgetConversations).values(row).onConflictDoNothing().returning();
      if (created) return created;
      const [existing] = await db.select().from(widgetConversations).where(eq(widgetConversations.id, row.id));
      if (!existing) throw new Error('conversation vanished after insert');
      return existing;
    },

    async findConversation(visitorId: string, id: string): Promise<ConversationRow | undefined> {
      const [row] = await db
        .select()
        .from(widgetConversations)
        .where(and(eq(widgetConversations.visitorId, visitorId), eq(widgetConversations.id, id)));
      return row;
    },

    async latestConversation(visitorId: string): Promise<ConversationRow | undefined> {
      const [row] = await db
        .select()
        .from(widgetConversations)
        .where(eq(widgetConversations.visitorId, visitorId))
        .orderBy(desc(widgetConversations.createdAt), desc(widgetConversations.id))
        .limit(1);
      return row;
    },

    /** The visitor's conversations, oldest first, with their chat's last message when there is one. */
    async conversations(visitorId: string) {
      return db
        .select({
          id: widgetConversations.id,
          createdAt: widgetConversations.createdAt,
          lastText: chats.lastText,
          lastMessageAt: chats.lastMessageAt,
        })
        .from(widgetConversations)
        .leftJoin(chats, and(eq(chats.channelId, widgetConversations.channelId), eq(chats.externalChatId, sql`${widgetConversations.id}::text`)))
        .where(eq(widgetConversations.visitorId, visitorId))
        .orderBy(asc(widgetConversations.createdAt), asc(widgetConversations.id));
    },

    /** Messages of the chat, oldest first; from `since` on when given (at most `limit`). */
    async messages(chatId: string, since: Date | undefined, limit: number): Promise<MessageRow[]> {
      return db
        .select()
        .from(messages)
        .where(
          and(eq(messages.chatId, chatId), since ? sql`${messages.createdAt} >= ${since.toISOString()}::timestamptz` : undefined),
        )
        .orderBy(asc(messages.createdAt), asc(messages.id))
        .limit(limit);
    },

    /** The chat's last `limit` messages, oldest first. */
    async recentMessages(chatId: string, limit: number): Promise<MessageRow[]> {
      const rows = await db
        .select()
        .from(messages)
        .where(eq(messages.chatId, chatId))
        .orderBy(desc(messages.createdAt), desc(messages.id))
        .limit(limit);
      return rows.reverse();
    },

    async findMessage(chatId: string, messageId: string): Promise<MessageRow | undefined> {
      const [row] = await db
        .select()
        .from(messages)
        .where(and(eq(messages.chatId, chatId), eq(messages.id, messageId)));
      return row;
    },
  };
}
