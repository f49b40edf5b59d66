// SQL of a customer's data (issue #45, item 5): their chats found by e-mail or by one chat, read for an export, and
// erased in one transaction (texts, files' references, names, e-mails, identifiers, events), counts untouched.
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import {
  agentFailures,
  channels,
  chatNotes,
  chats,
  conversations,
  events,
  messages,
  widgetConversations,
  widgetVisitors,
  type StoredAttachment,
} from '../db/schema.ts';

export interface CustomerChatRow {
  id: string;
  channelId: string;
  channelKind: string;
  channelName: string | null;
  externalChatId: string;
  uniqueId: string;
  dialogName: string;
  email: string | null;
  photoUrl: string | null;
  createdAt: Date;
}

export interface CustomerMessageRow {
  id: string;
  chatId: string;
  role: string;
  origin: string;
  senderName: string | null;
  text: string;
  attachments: StoredAttachment[];
  rating: string | null;
  createdAt: Date;
}

export interface CustomerNoteRow {
  id: string;
  chatId: string;
  authorName: string;
  text: string;
  createdAt: Date;
}

export interface CustomerRatingRow {
  conversationId: string;
  chatId: string;
  rating: number;
  comment: string | null;
  at: Date | null;
}

export function createCustomerDataStore(db: Executor) {
  return {
    /** The account's chats with this e-mail (any case), on every channel. */
    async chatIdsByEmail(accountId: string, email: string): Promise<string[]> {
      const rows = await db
        .select({ id: chats.id })
        .from(chats)
        .where(and(eq(chats.accountId, accountId), sql`lower(${chats.email}) = lower(${email})`));
      return rows.map((row) => row.id);
    },

    /** One chat of the account: its e-mail, or undefined when the account has no such chat. */
    async chatOf(accountId: string, chatId: string): Promise<{ id: string; email: string | null } | undefined> {
      const [row] = await db
        .select({ id: chats.id, email: chats.email })
        .from(chats)
        .where(and(eq(chats.accountId, accountId), eq(chats.id, chatId)));
      return row;
    },

    async chats(ids: string[]): Promise<CustomerChatRow[]> {
      return db
        .select({
          id: chats.id,
          channelId: chats.channelId,
          channelKind: chats.channelKind,
          channelName: channels.name,
          externalChatId: chats.externalChatId,
          uniqueId: chats.uniqueId,
          dialogName: chats.dialogName,
          email: chats.email,
          photoUrl: chats.photoUrl,
          createdAt: chats.createdAt,
        })
        .from(chats)
        .leftJoin(channels, eq(channels.id, chats.channelId))
        .where(inArray(chats.id, ids))
        .orderBy(asc(chats.createdAt), asc(chats.id));
    },

    async messages(chatIds: string[]): Promise<CustomerMessageRow[]> {
      return db
        .select({
          id: messages.id,
          chatId: messages.chatId,
          role: messages.role,
          origin: messages.origin,
          senderName: messages.senderName,
          text: messages.text,
          attachments: messages.attachments,
          rating: messages.rating,
          createdAt: messages.createdAt,
        })
        .from(messages)
        .where(inArray(messages.chatId, chatIds))
        .orderBy(asc(messages.createdAt), asc(messages.id));
    },

    async notes(chatIds: string[]): Promise<CustomerNoteRow[]> {
      return db
        .select({ id: chatNotes.id, chatId: chatNotes.chatId, authorName: chatNotes.authorName, text: chatNotes.text, createdAt: chatNotes.createdAt })
        .from(chatNotes)
        .where(inArray(chatNotes.chatId, chatIds))
        .orderBy(asc(chatNotes.createdAt), asc(chatNotes.id));
    },

    /** The customer's answers to `How did we do?` (1–5, with a comment). */
    async ratings(chatIds: string[]): Promise<CustomerRatingRow[]> {
      const rows = await db
        .select({
          conversationId: conversations.id,
          chatId: conversations.chatId,
          rating: conversations.csatRating,
          comment: conversations.csatComment,
          at: conversations.csatAt,
        })
        .from(conversations)
        .where(and(inArray(conversations.chatId, chatIds), sql`${conversations.csatRating} is not null`))
        .orderBy(asc(conversations.startedAt), asc(conversations.id));
      return rows.flatMap((row) => (row.rating === null ? [] : [{ ...row, rating: row.rating }]));
    },

    /**
     * Erases the chats (run in a transaction): messages and notes lose their text and attachments, the chats their
     * name, e-mail, photo and identifiers, ratings their comment, widget visitors what they told, and the chats'
     * events go (with their pending deliveries: nothing is sent to webhooks again). No row that reports count is
     * deleted. The attachments it held, for the caller to delete from the file store after the commit.
     */
    async erase(chatIds: string[]): Promise<{ messages: number; attachments: StoredAttachment[] }> {
      const held = await db
        .select({ attachments: messages.attachments })
        .from(messages)
        .where(and(inArray(messages.chatId, chatIds), sql`jsonb_array_length(${messages.attachments}) > 0`));
      const erasedMessages = await db
        .update(messages)
        .set({ text: '', attachments: [], senderName: null, externalId: null, choices: null, actionPending: null })
        .where(inArray(messages.chatId, chatIds))
        .returning({ id: messages.id });
      const erasedNotes = await db.update(chatNotes).set({ text: '' }).where(inArray(chatNotes.chatId, chatIds)).returning({ id: chatNotes.id });
      // A widget chat's external id is its widget conversation: its visitor's name, e-mail, identifier and page go.
      await db
        .update(widgetVisitors)
        .set({ name: null, email: null, identifier: null, pageUrl: null })
        .where(
          inArray(
            widgetVisitors.id,
            db
              .select({ id: widgetConversations.visitorId })
              .from(widgetConversations)
              .innerJoin(chats, and(eq(chats.channelId, widgetConversations.channelId), eq(chats.externalChatId, sql`${widgetConversations.id}::text`)))
              .where(inArray(chats.id, chatIds)),
          ),
        );
      // Identifiers become the chat's own id: unique per channel and account as before, and naming no one. A new
      // message from the same person starts a new chat.
      await db
        .update(chats)
        .set({
          dialogName: '',
          email: null,
          photoUrl: null,
          lastText: '',
          externalChatId: sql`'erased:' || ${chats.id}::text`,
          uniqueId: sql`'erased:' || ${chats.id}::text`,
        })
        .where(inArray(chats.id, chatIds));
      await db.update(conversations).set({ csatComment: null }).where(inArray(conversations.chatId, chatIds));
      await db.delete(events).where(inArray(events.chatId, chatIds));
      await db.delete(agentFailures).where(inArray(agentFailures.chatId, chatIds));
      return { messages: erasedMessages.length + erasedNotes.length, attachments: held.flatMap((row) => row.attachments) };
    },
  };
}

export type CustomerDataStore = ReturnType<typeof createCustomerDataStore>;
