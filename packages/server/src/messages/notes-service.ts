// The team's private notes in a chat's console history (issue #25). They live apart from messages, so nothing that
// sends messages (the customer's delivery, webhooks, the event feed, the public API, CRM transcripts) can see one;
// adding one tells open Inboxes (a console-only notice, never an event).
import type { InboxAction, InboxMessage, InboxNote, InboxSummary, Note } from '@parley/contracts';
import type { ChatsStore } from '../chats/chats-store.ts';
import type { Database, Executor } from '../db/client.ts';
import { Errors } from '../errors.ts';
import { notifyChatChanged } from '../events/live-feed.ts';
import type { Clock } from '../lib/clock.ts';
import { isUuid, newId } from '../lib/ids.ts';
import type { NoteRow, NotesStore } from './notes-store.ts';

export interface NotesServiceDeps {
  db: Database;
  notesStore: (executor: Executor) => NotesStore;
  chatsStore: (executor: Executor) => Pick<ChatsStore, 'find'>;
  clock: Clock;
  /** The agent's action runs in a chat, newest first (actions/actions-service.ts `historyOf`); absent: none. */
  actionRuns?: (accountId: string, chatId: string, limit: number) => Promise<InboxAction[]>;
}

function toNote(row: NoteRow): Note {
  return { id: row.id, text: row.text, author: { id: row.authorId, name: row.authorName }, createdAt: row.createdAt.toISOString() };
}

export type HistoryItem = InboxMessage | InboxNote | InboxSummary | InboxAction;

export function createNotesService({ db, notesStore, chatsStore, clock, actionRuns }: NotesServiceDeps) {
  return {
    async addNote(author: { accountId: string; memberId: string; name: string }, chatId: string, text: string): Promise<Note> {
      const chat = isUuid(chatId) ? await chatsStore(db).find(author.accountId, chatId) : undefined;
      if (!chat) throw Errors.consoleChatNotFound();
      const row = await db.transaction(async (tx) => {
        const note = await notesStore(tx).insert({
          id: newId(),
          accountId: author.accountId,
          chatId,
          authorId: author.memberId,
          authorName: author.name,
          text,
          createdAt: clock.now(),
        });
        await notifyChatChanged(tx, author.accountId, chatId);
        return note;
      });
      return toNote(row);
    },

    /** A chat's console history: its most recent `limit` messages, notes and action runs together, oldest first. */
    async history(accountId: string, chatId: string, messages: InboxMessage[], limit: number): Promise<HistoryItem[]> {
      const notes = (await notesStore(db).listRecent(accountId, chatId, limit)).map(
        (row): InboxNote | InboxSummary => ({ kind: row.kind === 'summary' ? 'summary' : 'note', ...toNote(row) }),
      );
      const runs = actionRuns ? await actionRuns(accountId, chatId, limit) : [];
      if (notes.length === 0 && runs.length === 0) return messages;
      const merged: HistoryItem[] = [...messages, ...notes.reverse(), ...runs.reverse()];
      // Messages, notes and runs ids are all time-ordered UUIDv7: equal timestamps keep their creation order.
      merged.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
      return merged.slice(-limit);
    },
  };
}

export type NotesService = ReturnType<typeof createNotesService>;
