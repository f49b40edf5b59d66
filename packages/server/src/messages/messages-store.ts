// SQL of messages, and of the chat (and channel) rows a new message touches.
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { channels, chats, messages } from '../db/schema.ts';

export type MessageRow = typeof messages.$inferSelect;
export type NewMessageRow = typeof messages.$inferInsert;
type ChatRow = typeof chats.$inferSelect;

export function createMessagesStore(db: Executor) {
  return {
    /**
     * Holds the channel row until the transaction ends, so its delete waits (first, before any chat row is touched:
     * no deadlock with the delete's cascade); false when the channel is gone.
     */
    async holdChannel(channelId: string): Promise<boolean> {
      const rows = await db.select({ id: channels.id }).from(channels).where(eq(channels.id, channelId)).for('key share');
      return rows.length > 0;
    },

    /** The chat of (channel, externalChatId), created when missing; safe under concurrent first messages. */
    async findOrCreateChat(row: typeof chats.$inferInsert): Promise<ChatRow> {
      await db.insert(chats).values(row).onConflictDoNothing({ target: [chats.channelId, chats.externalChatId] });
      const [chat] = await db
        .select()
        .from(chats)
        .where(and(eq(chats.channelId, row.channelId), eq(chats.externalChatId, row.externalChatId)));
      if (!chat) throw new Error('chat vanished after insert');
      return chat;
    },

    /** A message with this `externalId` is stored in the channel's chat of `externalChatId` (a messenger's redelivery). */
    async existsInChannelChat(channelId: string, externalChatId: string, externalId: string): Promise<boolean> {
      const rows = await db
        .select({ id: messages.id })
        .from(messages)
        .innerJoin(chats, eq(chats.id, messages.chatId))
        .where(and(eq(chats.channelId, channelId), eq(chats.externalChatId, externalChatId), eq(messages.externalId, externalId)))
        .limit(1);
      return rows.length > 0;
    },

    /** Inserts a message; undefined when its `externalId` already exists in the chat (a repeat, ignored). */
    async insert(row: NewMessageRow): Promise<MessageRow | undefined> {
      const [message] = await db
        .insert(messages)
        .values(row)
        .onConflictDoNothing({ target: [messages.chatId, messages.externalId], where: sql`${messages.externalId} is not null` })
        .returning();
      return message;
    },

    /** The chat after a new message: last text and time, unread count for customer messages, the name. */
    /** The chat after a new message; `needsHuman: false` when a member's reply takes over a handed-off chat. */
    async touchChat(chatId: string, change: { text: string; at: Date; unread: boolean; dialogName?: string; needsHuman?: boolean }) {
      const [chat] = await db
        .update(chats)
        .set({
          lastText: change.text,
          lastMessageAt: change.at,
          updatedAt: change.at,
          ...(change.unread ? { unreadCount: sql`${chats.unreadCount} + 1` } : {}),
          ...(change.dialogName !== undefined ? { dialogName: change.dialogName } : {}),
          ...(change.needsHuman !== undefined ? { needsHuman: change.needsHuman } : {}),
        })
        .where(eq(chats.id, chatId))
        .returning();
      if (!chat) throw new Error('chat vanished');
      return chat;
    },

    /** The most recent `limit` messages of a chat, oldest first. */
    async listRecent(accountId: string, chatId: string, limit: number): Promise<MessageRow[]> {
      const rows = await db
        .select()
        .from(messages)
        .where(and(eq(messages.accountId, accountId), eq(messages.chatId, chatId)))
        .orderBy(desc(messages.createdAt), desc(messages.id))
        .limit(limit);
      return rows.reverse();
    },

    async find(accountId: string, messageId: string): Promise<MessageRow | undefined> {
      const [row] = await db
        .select()
        .from(messages)
        .where(and(eq(messages.accountId, accountId), eq(messages.id, messageId)));
      return row;
    },

    /** The customer's last message before `before` in the chat (the question an agent reply answered). */
    async previousCustomerMessage(chatId: string, before: MessageRow): Promise<MessageRow | undefined> {
      const [row] = await db
        .select()
        .from(messages)
        .where(
          and(
            eq(messages.chatId, chatId),
            eq(messages.role, 'user'),
            sql`(${messages.createdAt}, ${messages.id}) < (${before.createdAt.toISOString()}::timestamptz, ${before.id}::uuid)`,
          ),
        )
        .orderBy(desc(messages.createdAt), desc(messages.id))
        .limit(1);
      return row;
    },

    /** Sets a rating only when the message has none; undefined otherwise. */
    async rate(messageId: string, rating: 'liked' | 'disliked'): Promise<MessageRow | undefined> {
      const [row] = await db
        .update(messages)
        .set({ rating })
        .where(and(eq(messages.id, messageId), sql`${messages.rating} is null`))
        .returning();
      return row;
    },
  };
}

export type MessagesStore = ReturnType<typeof createMessagesStore>;
