// SQL of the phrasings customers chose for an entry (clarifying choices: a pick keeps the question that led to the
// clarification, and the chat it was made in), until the team keeps one (it becomes a synonym, and its row stays,
// kept, so the engine knows the synonym came from customers) or discards it. Reads and writes of the console are
// scoped by the account through the entry's base: another account's is indistinguishable from a missing one.
import { and, asc, desc, eq, exists, inArray, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { knowledgeBases, knowledgeEntries, knowledgeLearnedQuestions } from '../db/schema.ts';
import { newId } from '../lib/ids.ts';
import { QUESTION_MAX } from '@parley/contracts';
import { questionKey } from './normalize.ts';

export interface LearnedQuestionRow {
  id: string;
  entryId: string;
  text: string;
  picks: number;
  /** How many different chats the entry was chosen in for the phrasing. */
  customers: number;
}

const columns = {
  id: knowledgeLearnedQuestions.id,
  entryId: knowledgeLearnedQuestions.entryId,
  text: knowledgeLearnedQuestions.text,
  picks: knowledgeLearnedQuestions.picks,
  customers: sql<number>`(SELECT count(*) FROM knowledge_learned_question_chats c
    WHERE c.learned_question_id = knowledge_learned_questions.id)::int`.mapWith(Number),
};

export function createLearnedQuestionsStore(db: Executor) {
  /** The account's entry's learned question still waiting for the team (not kept), only when entry and base match. */
  const owned = (accountId: string, knowledgeBaseId: string, entryId: string, learnedId: string) =>
    and(
      eq(knowledgeLearnedQuestions.id, learnedId),
      eq(knowledgeLearnedQuestions.entryId, entryId),
      isNull(knowledgeLearnedQuestions.keptAt),
      exists(
        db
          .select({ one: sql`1` })
          .from(knowledgeEntries)
          .innerJoin(knowledgeBases, eq(knowledgeBases.id, knowledgeEntries.knowledgeBaseId))
          .where(and(eq(knowledgeEntries.id, entryId), eq(knowledgeBases.id, knowledgeBaseId), eq(knowledgeBases.accountId, accountId))),
      ),
    );

  return {
    /**
     * One more pick of this phrasing for the entry in the chat (the same words again count on the same row, a chat
     * once among its customers); nothing when the entry is gone meanwhile or the text is too long to become a synonym.
     */
    async record(entryId: string, text: string, at: Date, chatId: string): Promise<void> {
      const key = questionKey(text);
      if (key.length === 0 || text.length > QUESTION_MAX) return;
      await db.execute(sql`
        WITH learned AS (
          INSERT INTO knowledge_learned_questions (id, entry_id, text, text_key, picks, created_at, updated_at)
          SELECT ${newId()}::uuid, id, ${text}::text, ${key}::text, 1, ${at.toISOString()}::timestamptz, ${at.toISOString()}::timestamptz
          FROM knowledge_entries WHERE id = ${entryId}::uuid
          ON CONFLICT (entry_id, text_key) DO UPDATE SET picks = knowledge_learned_questions.picks + 1, updated_at = excluded.updated_at,
            -- Kept, then taken out of the synonyms by the team: it waits for the team again.
            kept_at = CASE WHEN EXISTS (SELECT 1 FROM knowledge_entries e WHERE e.id = excluded.entry_id AND excluded.text_key = ANY (e.question_keys))
                           THEN knowledge_learned_questions.kept_at END
          RETURNING id)
        INSERT INTO knowledge_learned_question_chats (learned_question_id, chat_id)
        SELECT id, ${chatId}::uuid FROM learned
        ON CONFLICT DO NOTHING`);
    },

    /** The learned questions of these entries (already scoped by the caller) not kept yet, the most picked first. */
    async listFor(entryIds: readonly string[]): Promise<LearnedQuestionRow[]> {
      if (entryIds.length === 0) return [];
      return db
        .select(columns)
        .from(knowledgeLearnedQuestions)
        .where(and(inArray(knowledgeLearnedQuestions.entryId, [...entryIds]), isNull(knowledgeLearnedQuestions.keptAt)))
        .orderBy(desc(knowledgeLearnedQuestions.picks), asc(knowledgeLearnedQuestions.createdAt), asc(knowledgeLearnedQuestions.id));
    },

    /** The entries of the base that customers chose for this phrasing (its key), kept or not. */
    async entriesLearning(knowledgeBaseId: string, key: string): Promise<string[]> {
      const rows = await db
        .select({ entryId: knowledgeLearnedQuestions.entryId })
        .from(knowledgeLearnedQuestions)
        .innerJoin(knowledgeEntries, eq(knowledgeEntries.id, knowledgeLearnedQuestions.entryId))
        .where(and(eq(knowledgeLearnedQuestions.textKey, key), eq(knowledgeEntries.knowledgeBaseId, knowledgeBaseId)));
      return rows.map((row) => row.entryId);
    },

    async find(accountId: string, knowledgeBaseId: string, entryId: string, learnedId: string): Promise<LearnedQuestionRow | undefined> {
      const [row] = await db.select(columns).from(knowledgeLearnedQuestions).where(owned(accountId, knowledgeBaseId, entryId, learnedId));
      return row;
    },

    /** Marks the phrasing kept (the caller added it to the entry's synonyms); false when no such waiting phrasing. */
    async keep(accountId: string, knowledgeBaseId: string, entryId: string, learnedId: string, at: Date): Promise<boolean> {
      const rows = await db
        .update(knowledgeLearnedQuestions)
        .set({ keptAt: at })
        .where(owned(accountId, knowledgeBaseId, entryId, learnedId))
        .returning({ id: knowledgeLearnedQuestions.id });
      return rows.length > 0;
    },

    async delete(accountId: string, knowledgeBaseId: string, entryId: string, learnedId: string): Promise<boolean> {
      const rows = await db
        .delete(knowledgeLearnedQuestions)
        .where(owned(accountId, knowledgeBaseId, entryId, learnedId))
        .returning({ id: knowledgeLearnedQuestions.id });
      return rows.length > 0;
    },
  };
}

export type LearnedQuestionsStore = ReturnType<typeof createLearnedQuestionsStore>;
