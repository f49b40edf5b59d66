// SQL of the entries of a knowledge base (console API, corrections): every statement is scoped by the account
// through the base, so an entry of another account is indistinguishable from a missing one. Part of the knowledge
// store (knowledge-store.ts), which spreads these queries into its own.
import { and, count, desc, eq, exists, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { actions, knowledgeBases, knowledgeEntries } from '../db/schema.ts';
import type { TextSearchConfig } from './text-search.ts';

export type EntrySource = 'manual' | 'correction';

// Every column but `search`, which only the search itself reads.
const entryColumns = {
  id: knowledgeEntries.id,
  knowledgeBaseId: knowledgeEntries.knowledgeBaseId,
  question: knowledgeEntries.question,
  synonyms: knowledgeEntries.synonyms,
  answer: knowledgeEntries.answer,
  source: knowledgeEntries.source,
  messageId: knowledgeEntries.messageId,
  actionId: knowledgeEntries.actionId,
  createdAt: knowledgeEntries.createdAt,
  updatedAt: knowledgeEntries.updatedAt,
};

/** The text of an entry as stored and searched: what it answers (question and synonyms) and the answer. */
export interface EntryText {
  question: string;
  synonyms: string[];
  answer: string;
  /** questionKeys(question, synonyms) (normalize.ts). */
  keys: string[];
}

/**
 * Question and synonyms (weight A) and answer (weight B) in the base's configuration, a bound parameter from the
 * allow-list. The synonyms are separate lines of the A part: each is another way to ask the question.
 */
function searchVector(config: TextSearchConfig, text: EntryText): SQL {
  const asked = [text.question, ...text.synonyms].join('\n');
  return sql`setweight(to_tsvector(${config}::regconfig, ${asked}::text), 'A')
    || setweight(to_tsvector(${config}::regconfig, ${text.answer}::text), 'B')`;
}

function textArray(values: readonly string[]): SQL {
  return sql`${JSON.stringify(values)}::jsonb`;
}

export function ownedBase(accountId: string, knowledgeBaseId: string): SQL {
  return and(eq(knowledgeBases.id, knowledgeBaseId), eq(knowledgeBases.accountId, accountId)) as SQL;
}

export function createKnowledgeEntryStore(db: Executor) {
  /** Entries of the base, only when the base belongs to the account. */
  function entriesOf(accountId: string, knowledgeBaseId: string): SQL {
    const owned = db.select({ one: sql`1` }).from(knowledgeBases).where(ownedBase(accountId, knowledgeBaseId));
    return and(eq(knowledgeEntries.knowledgeBaseId, knowledgeBaseId), exists(owned)) as SQL;
  }

  return {
    async listEntries(accountId: string, knowledgeBaseId: string, page: { limit: number; offset: number; q?: string | undefined }) {
      // `q`: entries whose question, synonyms or answer contain the text (case-insensitive), for the console's search box.
      const pattern = page.q ? `%${page.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : undefined;
      const where = pattern
        ? and(
            entriesOf(accountId, knowledgeBaseId),
            sql`(${knowledgeEntries.question} ilike ${pattern} or ${knowledgeEntries.answer} ilike ${pattern} or array_to_string(${knowledgeEntries.synonyms}, ' ') ilike ${pattern})`,
          )
        : entriesOf(accountId, knowledgeBaseId);
      const [rows, [total]] = await Promise.all([
        db
          .select(entryColumns)
          .from(knowledgeEntries)
          .where(where)
          .orderBy(desc(knowledgeEntries.createdAt), desc(knowledgeEntries.id))
          .limit(page.limit)
          .offset(page.offset),
        db.select({ value: count() }).from(knowledgeEntries).where(where),
      ]);
      return { rows, count: total?.value ?? 0 };
    },

    async findEntry(accountId: string, knowledgeBaseId: string, entryId: string) {
      const [entry] = await db
        .select(entryColumns)
        .from(knowledgeEntries)
        .where(and(eq(knowledgeEntries.id, entryId), entriesOf(accountId, knowledgeBaseId)));
      return entry;
    },

    /** INSERT … SELECT from the account's base: no row (undefined) when the base is missing or foreign. */
    async insertEntry(
      accountId: string,
      row: EntryText & {
        id: string;
        knowledgeBaseId: string;
        source: EntrySource;
        messageId: string | null;
        actionId: string | null;
        now: Date;
      },
      config: TextSearchConfig,
    ) {
      const now = sql`${row.now.toISOString()}::timestamptz`;
      // Every column of the table, in the table's order (Drizzle lists them all in the INSERT).
      const [entry] = await db
        .insert(knowledgeEntries)
        .select((qb) =>
          qb
            .select({
              id: sql`${row.id}::uuid`.as('id'),
              knowledgeBaseId: knowledgeBases.id,
              question: sql`${row.question}::text`.as('question'),
              synonyms: sql`array(SELECT jsonb_array_elements_text(${textArray(row.synonyms)}))`.as('synonyms'),
              questionKeys: sql`array(SELECT jsonb_array_elements_text(${textArray(row.keys)}))`.as('question_keys'),
              answer: sql`${row.answer}::text`.as('answer'),
              source: sql`${row.source}::text`.as('source'),
              messageId: sql`${row.messageId}::text`.as('message_id'),
              actionId: sql`${row.actionId}::uuid`.as('action_id'),
              search: searchVector(config, row).as('search'),
              questionVectors: sql`NULL::real[]`.as('question_vectors'),
              answerVector: sql`NULL::real[]`.as('answer_vector'),
              vectorsModel: sql`NULL::text`.as('vectors_model'),
              createdAt: now.as('created_at'),
              updatedAt: now.as('updated_at'),
            })
            .from(knowledgeBases)
            .where(ownedBase(accountId, row.knowledgeBaseId)),
        )
        .returning(entryColumns);
      return entry;
    },

    /** Sets the entry's text and recomputes `search` and the keys from it; undefined when no such entry. */
    async updateEntry(
      accountId: string,
      knowledgeBaseId: string,
      entryId: string,
      text: EntryText,
      config: TextSearchConfig,
      now: Date,
    ) {
      const [entry] = await db
        .update(knowledgeEntries)
        .set({
          question: text.question,
          synonyms: text.synonyms,
          questionKeys: text.keys,
          answer: text.answer,
          search: searchVector(config, text),
          // Computed again for the new text (knowledge.embed job); until then the entry is found by its words.
          questionVectors: null,
          answerVector: null,
          vectorsModel: null,
          updatedAt: now,
        })
        .where(and(eq(knowledgeEntries.id, entryId), entriesOf(accountId, knowledgeBaseId)))
        .returning(entryColumns);
      return entry;
    },

    /** Sets the entry's action (null: none); undefined when no such entry. */
    async setEntryAction(accountId: string, knowledgeBaseId: string, entryId: string, actionId: string | null, now: Date) {
      const [entry] = await db
        .update(knowledgeEntries)
        .set({ actionId, updatedAt: now })
        .where(and(eq(knowledgeEntries.id, entryId), entriesOf(accountId, knowledgeBaseId)))
        .returning(entryColumns);
      return entry;
    },

    /** Whether the action is one of the account's (an entry answers only with its own account's). */
    async actionExists(accountId: string, actionId: string): Promise<boolean> {
      const rows = await db.select({ id: actions.id }).from(actions).where(and(eq(actions.accountId, accountId), eq(actions.id, actionId)));
      return rows.length > 0;
    },

    /** The most recently changed entry of the base whose answer is exactly this text (trimmed), if any. */
    async findByAnswer(knowledgeBaseId: string, answer: string) {
      const [entry] = await db
        .select(entryColumns)
        .from(knowledgeEntries)
        .where(and(eq(knowledgeEntries.knowledgeBaseId, knowledgeBaseId), sql`btrim(${knowledgeEntries.answer}) = ${answer.trim()}`))
        .orderBy(desc(knowledgeEntries.updatedAt), desc(knowledgeEntries.createdAt), desc(knowledgeEntries.id))
        .limit(1);
      return entry;
    },

    async deleteEntry(accountId: string, knowledgeBaseId: string, entryId: string): Promise<boolean> {
      const rows = await db
        .delete(knowledgeEntries)
        .where(and(eq(knowledgeEntries.id, entryId), entriesOf(accountId, knowledgeBaseId)))
        .returning({ id: knowledgeEntries.id });
      return rows.length > 0;
    },
  };
}
