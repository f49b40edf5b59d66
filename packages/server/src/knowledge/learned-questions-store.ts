// SQL of the phrasings customers chose for an entry (clarifying choices: a pick keeps the question that led to the
// clarification), until the team keeps one (it becomes a synonym) or discards it. Reads and deletes are scoped by
// the account through the entry's base: another account's is indistinguishable from a missing one.
import { and, asc, desc, eq, exists, inArray, sql } from 'drizzle-orm';
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
}

const columns = {
  id: knowledgeLearnedQuestions.id,
  entryId: knowledgeLearnedQuestions.entryId,
  text: knowledgeLearnedQuestions.text,
  picks: knowledgeLearnedQuestions.picks,
};

export function createLearnedQuestionsStore(db: Executor) {
  /** The learned question of the account's entry, only when entry and base match. */
  const owned = (accountId: string, knowledgeBaseId: string, entryId: string, learnedId: string) =>
    and(
      eq(knowledgeLearnedQuestions.id, learnedId),
      eq(knowledgeLearnedQuestions.entryId, entryId),
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
     * One more pick of this phrasing for the entry (the same words again count on the same row); nothing when the
     * entry is gone meanwhile or the text is too long to become a synonym.
     */
    async record(entryId: string, text: string, at: Date): Promise<void> {
      const key = questionKey(text);
      if (key.length === 0 || text.length > QUESTION_MAX) return;
      await db.execute(sql`
        INSERT INTO knowledge_learned_questions (id, entry_id, text, text_key, picks, created_at, updated_at)
        SELECT ${newId()}::uuid, id, ${text}::text, ${key}::text, 1, ${at.toISOString()}::timestamptz, ${at.toISOString()}::timestamptz FROM knowledge_entries WHERE id = ${entryId}::uuid
        ON CONFLICT (entry_id, text_key) DO UPDATE SET picks = knowledge_learned_questions.picks + 1, updated_at = excluded.updated_at`);
    },

    /** The learned questions of these entries (already scoped by the caller), the most picked first. */
    async listFor(entryIds: readonly string[]): Promise<LearnedQuestionRow[]> {
      if (entryIds.length === 0) return [];
      return db
        .select(columns)
        .from(knowledgeLearnedQuestions)
        .where(inArray(knowledgeLearnedQuestions.entryId, [...entryIds]))
        .orderBy(desc(knowledgeLearnedQuestions.picks), asc(knowledgeLearnedQuestions.createdAt), asc(knowledgeLearnedQuestions.id));
    },

    async find(accountId: string, knowledgeBaseId: string, entryId: string, learnedId: string): Promise<LearnedQuestionRow | undefined> {
      const [row] = await db.select(columns).from(knowledgeLearnedQuestions).where(owned(accountId, knowledgeBaseId, entryId, learnedId));
      return row;
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
