// SQL of the chat widget: its channels (found by id alone: the visitor API has no account), visitors, and the
// visitor's chat and messages. Every visitor query is scoped by the channel the visitor token names.
import { and, asc, count, eq, gt, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { channels, chats, messages, widgetVisitors } from '../../db/schema.ts';
import type { ChannelRow } from '../channels-store.ts';
import type { ChatRow } from '../../chats/chats-store.ts';
import type { MessageRow } from '../../messages/messages-store.ts';

export type VisitorRow = typeof widgetVisitors.$inferSelect;

export function createWidgetStore(db: Executor) {
  return {
    async findChannel(channelId: string): Promise<ChannelRow | undefined> {
      const [row] = await db
        .select()
        .from(channels)
        .where(and(eq(channels.id, channelId), eq(channels.kind, 'widget')));
      return row;
    },

    async findVisitor(channelId: string, visitorId: string): Promise<VisitorRow | undefined> {
      const [row] = await db
        .select()
        .from(widgetVisitors)
        .where(and(eq(widgetVisitors.channelId, channelId), eq(widgetVisitors.id, visitorId)));
      return row;
    },

    async findVisitorByIdentifier(channelId: string, identifier: string): Promise<VisitorRow | undefined> {
      const [row] = await db
        .select()
        .from(widgetVisitors)
        .where(and(eq(widgetVisitors.channelId, channelId), eq(widgetVisitors.identifier, identifier)));
      return row;
    },

    /** A new visitor; with an identifier already taken (a concurrent first visit), that visitor. */
    async insertVisitor(row: typeof widgetVisitors.$inferInsert): Promise<VisitorRow> {
      const [created] = await db.insert(widgetVisitors).values(row).onConflictDoNothing().returning();
      if (created) return created;
      const [existing] = await db
        .select()
        .from(widgetVisitors)
        .where(and(eq(widgetVisitors.channelId, row.channelId), eq(widgetVisitors.identifier, row.identifier ?? '')));
      if (!existing) throw new Error('visitor vanished after insert');
      return existing;
    },

    async updateVisitor(visitorId: string, changes: Partial<Pick<VisitorRow, 'identifier' | 'name' | 'email'>>): Promise<VisitorRow> {
      const [row] = await db.update(widgetVisitors).set(changes).where(eq(widgetVisitors.id, visitorId)).returning();
      if (!row) throw new Error('visitor vanished');
      return row;
    },

    /** New visitors of the channel from one address since `since` (abuse limit). */
    async countNewVisitors(channelId: string, ipKey: string, since: Date): Promise<number> {
      const [row] = await db
        .select({ n: count() })
        .from(widgetVisitors)
        .where(and(eq(widgetVisitors.channelId, channelId), eq(widgetVisitors.ipKey, ipKey), gt(widgetVisitors.createdAt, since)));
      return row?.n ?? 0;
    },

    /** The visitor's chat: `externalChatId` is the visitor id. */
    async findChat(channelId: string, visitorId: string): Promise<ChatRow | undefined> {
      const [row] = await db
        .select()
        .from(chats)
        .where(and(eq(chats.channelId, channelId), eq(chats.externalChatId, visitorId)));
      return row;
    },

    /** The visitor's name and e-mail on their chat, once they identify. */
    async updateChatIdentity(chatId: string, changes: { dialogName?: string; email?: string }): Promise<void> {
      if (Object.keys(changes).length === 0) return;
      await db.update(chats).set(changes).where(eq(chats.id, chatId));
    },

    /** The visitor's own messages in the chat since `since` (abuse limit). */
    async countCustomerMessages(chatId: string, since: Date): Promise<number> {
      const [row] = await db
        .select({ n: count() })
        .from(messages)
        .where(and(eq(messages.chatId, chatId), eq(messages.role, 'user'), gt(messages.createdAt, since)));
      return row?.n ?? 0;
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

    async findMessage(chatId: string, messageId: string): Promise<MessageRow | undefined> {
      const [row] = await db
        .select()
        .from(messages)
        .where(and(eq(messages.chatId, chatId), eq(messages.id, messageId)));
      return row;
    },
  };
}

export type WidgetStore = ReturnType<typeof createWidgetStore>;
