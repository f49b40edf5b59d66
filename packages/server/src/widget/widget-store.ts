// SQL of the chat widget: its channels (found by id alone: the visitor API has no account), visitors, and the
// visitor's chat and messages. Every visitor query is scoped by the channel the visitor token names.
// The queries of the conversations and their messages are in widget-conversations-store.ts, spread here.
import { and, count, eq, gt, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { chats, messages, widgetConversations, widgetVisitors } from '../db/schema.ts';
import type { ChannelRow, ChannelsStore } from '../channels/channels-store.ts';
import type { ChatRow } from '../chats/chats-store.ts';
import { createWidgetConversationsStore } from './widget-conversations-store.ts';

export type { ConversationRow } from './widget-conversations-store.ts';

export type VisitorRow = typeof widgetVisitors.$inferSelect;

/** `channels`: the channels store, which opens the identity secret sealed at rest. */
export function createWidgetStore(db: Executor, channels: Pick<ChannelsStore, 'findForInbound'>) {
  return {
    async findChannel(channelId: string): Promise<ChannelRow | undefined> {
      const row = await channels.findForInbound(channelId);
      return row?.kind === 'widget' ? row : undefined;
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

    async updateVisitor(visitorId: string, changes: Partial<Pick<VisitorRow, 'identifier' | 'name' | 'email' | 'pageUrl'>>): Promise<VisitorRow> {
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

    /** A conversation's chat: `externalChatId` is the conversation id (created by its first message). */
    async findChat(channelId: string, conversationId: string): Promise<ChatRow | undefined> {
      const [row] = await db
        .select()
        .from(chats)
        .where(and(eq(chats.channelId, channelId), eq(chats.externalChatId, conversationId)));
      return row;
    },

    /** The visitor's name and e-mail on the chats of all their conversations, once they identify. */
    async updateChatsIdentity(channelId: string, visitorId: string, changes: { dialogName?: string; email?: string }): Promise<void> {
      if (Object.keys(changes).length === 0) return;
      const ids = db.select({ id: sql`${widgetConversations.id}::text` }).from(widgetConversations).where(eq(widgetConversations.visitorId, visitorId));
      await db
        .update(chats)
        .set(changes)
        .where(and(eq(chats.channelId, channelId), inArray(chats.externalChatId, ids)));
    },

    /** The visitor's own messages in all their conversations since `since` (abuse limit). */
    async countCustomerMessages(channelId: string, visitorId: string, since: Date): Promise<number> {
      const ids = db.select({ id: sql`${widgetConversations.id}::text` }).from(widgetConversations).where(eq(widgetConversations.visitorId, visitorId));
      const [row] = await db
        .select({ n: count() })
        .from(messages)
        .innerJoin(chats, eq(chats.id, messages.chatId))
        .where(
          and(eq(chats.channelId, channelId), inArray(chats.externalChatId, ids), eq(messages.role, 'user'), gt(messages.createdAt, since)),
        );
      return row?.n ?? 0;
    },

    ...createWidgetConversationsStore(db),
  };
}

export type WidgetStore = ReturnType<typeof createWidgetStore>;
