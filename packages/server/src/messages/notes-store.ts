// SQL of the team's private notes (issue #25): a table apart from messages, read only by the console's history.
import { and, desc, eq } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { chatNotes } from '../db/schema.ts';

export type NoteRow = typeof chatNotes.$inferSelect;

export function createNotesStore(db: Executor) {
  return {
    async insert(row: Omit<NoteRow, 'createdAt' | 'kind'> & { createdAt: Date; kind?: NoteRow['kind'] }): Promise<NoteRow> {
      const [inserted] = await db.insert(chatNotes).values(row).returning();
      if (!inserted) throw new Error('note was not stored');
      return inserted;
    },

    async find(accountId: string, noteId: string): Promise<NoteRow | undefined> {
      const [row] = await db.select().from(chatNotes).where(and(eq(chatNotes.accountId, accountId), eq(chatNotes.id, noteId)));
      return row;
    },

    /** A handoff's summary rewritten by the channel's model (agent/handoff/model-summary.ts). */
    async setSummaryText(accountId: string, noteId: string, text: string): Promise<void> {
      await db
        .update(chatNotes)
        .set({ text })
        .where(and(eq(chatNotes.accountId, accountId), eq(chatNotes.id, noteId), eq(chatNotes.kind, 'summary')));
    },

    /** The chat's most recent `limit` notes, newest first. */
    async listRecent(accountId: string, chatId: string, limit: number): Promise<NoteRow[]> {
      return db
        .select()
        .from(chatNotes)
        .where(and(eq(chatNotes.accountId, accountId), eq(chatNotes.chatId, chatId)))
        .orderBy(desc(chatNotes.createdAt), desc(chatNotes.id))
        .limit(limit);
    },
  };
}

export type NotesStore = ReturnType<typeof createNotesStore>;
