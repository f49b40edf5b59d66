// SQL of knowledge bases and their entries. Every statement is scoped by the account: a base or an entry
// of another account is indistinguishable from a missing one.
import { and, asc, count, desc, eq, exists, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { knowledgeBases, knowledgeEntries } from '../db/schema.ts';
import type { IndexRow } from './knowledge-index.ts';
import type { TextSearchConfig } from './text-search.ts';

export type EntrySource = 'manual' | 'correction';

// Spelled out: Drizzle drops the table names of columns in single-table selections and RETURNING.
const entryCount = sql<number>`(SELECT count(*) FROM knowledge_entries AS e
  WHERE e.knowledge_base_id = knowledge_bases.id)::int`.mapWith(Number);

const baseColumns = {
  id: knowledgeBases.id,
  name: knowledgeBases.name,
  language: knowledgeBases.language,
  entryCount,
  createdAt: knowledgeBases.createdAt,
  updatedAt: knowledgeBases.updatedAt,
};

// Every column but `search`, which only the search itself reads.
const entryColumns = {
  id: knowledgeEntries.id,
  knowledgeBaseId: knowledgeEntries.knowledgeBaseId,
  question: knowledgeEntries.question,
  synonyms: knowledgeEntries.synonyms,
  answer: knowledgeEntries.answer,
  source: knowledgeEntries.source,
  messageId: knowledgeEntries.messageId,
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

function ownedBase(accountId: string, knowledgeBaseId: string): SQL {
  return and(eq(knowledgeBases.id, knowledgeBaseId), eq(knowledgeBases.accountId, accountId)) as SQL;
}

export function createKnowledgeStore(db: Executor) {
  /** Entries of the base, only when the base belongs to the account. */
  function entriesOf(accountId: string, knowledgeBaseId: string): SQL {
    const owned = db.select({ one: sql`1` }).from(knowledgeBases).where(ownedBase(accountId, knowledgeBaseId));
    return and(eq(knowledgeEntries.knowledgeBaseId, knowledgeBaseId), exists(owned)) as SQL;
  }

  return {
    async insertBase(row: { id: string; accountId: string; name: string; language: string; now: Date }) {
      const [base] = await db
        .insert(knowledgeBases)
        .values({
          id: row.id,
          accountId: row.accountId,
          name: row.name,
          language: row.language,
          createdAt: row.now,
          updatedAt: row.now,
        })
        .returning(baseColumns);
      if (!base) throw new Error('INSERT … RETURNING gave no row');
      return base;
    },

    async listBases(accountId: string) {
      return db
        .select(baseColumns)
        .from(knowledgeBases)
        .where(eq(knowledgeBases.accountId, accountId))
        .orderBy(asc(knowledgeBases.createdAt), asc(knowledgeBases.id));
    },

    /** The base's language, or undefined when the account has no such base. */
    async findBaseLanguage(accountId: string, knowledgeBaseId: string): Promise<string | undefined> {
      const [base] = await db
        .select({ language: knowledgeBases.language })
        .from(knowledgeBases)
        .where(ownedBase(accountId, knowledgeBaseId));
      return base?.language;
    },

    async renameBase(accountId: string, knowledgeBaseId: string, name: string, now: Date) {
      const [base] = await db
        .update(knowledgeBases)
        .set({ name, updatedAt: now })
        .where(ownedBase(accountId, knowledgeBaseId))
        .returning(baseColumns);
      return base;
    },

    /** Deletes the base with its entries (cascade); false when the account has no such base. */
    async deleteBase(accountId: string, knowledgeBaseId: string): Promise<boolean> {
      const rows = await db
        .delete(knowledgeBases)
        .where(ownedBase(accountId, knowledgeBaseId))
        .returning({ id: knowledgeBases.id });
      return rows.length > 0;
    },

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

    /** Marks the base's entries changed: every process rebuilds its in-memory copy on its next question. */
    async bumpEntriesVersion(knowledgeBaseId: string): Promise<void> {
      await db
        .update(knowledgeBases)
        .set({ entriesVersion: sql`${knowledgeBases.entriesVersion} + 1` })
        .where(eq(knowledgeBases.id, knowledgeBaseId));
    },

    /** The base's language and entries version, or undefined when the base is gone. */
    async findBaseVersion(knowledgeBaseId: string) {
      const [base] = await db
        .select({ language: knowledgeBases.language, entriesVersion: knowledgeBases.entriesVersion })
        .from(knowledgeBases)
        .where(eq(knowledgeBases.id, knowledgeBaseId));
      return base;
    },

    /** Every entry of the base with what the in-memory index needs (knowledge-index.ts). */
    async loadIndexRows(knowledgeBaseId: string): Promise<IndexRow[]> {
      return db
        .select({
          id: knowledgeEntries.id,
          question: knowledgeEntries.question,
          synonyms: knowledgeEntries.synonyms,
          answer: knowledgeEntries.answer,
          keys: knowledgeEntries.questionKeys,
          updatedAt: knowledgeEntries.updatedAt,
          questionVectors: knowledgeEntries.questionVectors,
          answerVector: knowledgeEntries.answerVector,
        })
        .from(knowledgeEntries)
        .where(eq(knowledgeEntries.knowledgeBaseId, knowledgeBaseId));
    },

    /** An entry's text as the vectors are computed from, with the base's language; undefined when gone. */
    async findEntryToEmbed(knowledgeBaseId: string, entryId: string) {
      const [entry] = await db
        .select({
          question: knowledgeEntries.question,
          synonyms: knowledgeEntries.synonyms,
          answer: knowledgeEntries.answer,
          updatedAt: knowledgeEntries.updatedAt,
          language: knowledgeBases.language,
        })
        .from(knowledgeEntries)
        .innerJoin(knowledgeBases, eq(knowledgeBases.id, knowledgeEntries.knowledgeBaseId))
        .where(and(eq(knowledgeEntries.id, entryId), eq(knowledgeEntries.knowledgeBaseId, knowledgeBaseId)));
      return entry;
    },

    /** Entries of English bases that have no vectors (written before the encoder ran), at most `limit`. */
    async entriesWithoutVectors(limit: number): Promise<{ knowledgeBaseId: string; entryId: string }[]> {
      return db
        .select({ knowledgeBaseId: knowledgeEntries.knowledgeBaseId, entryId: knowledgeEntries.id })
        .from(knowledgeEntries)
        .innerJoin(knowledgeBases, eq(knowledgeBases.id, knowledgeEntries.knowledgeBaseId))
        .where(and(sql`${knowledgeEntries.answerVector} IS NULL`, sql`lower(split_part(${knowledgeBases.language}, '-', 1)) = 'en'`))
        .limit(limit);
    },

    /** Stores an entry's vectors when its text is still the one they were computed from; false otherwise. */
    async setVectors(
      entryId: string,
      computedFor: Date,
      vectors: { questionVectors: number[]; answerVector: number[]; model: string },
    ): Promise<boolean> {
      const rows = await db
        .update(knowledgeEntries)
        .set({ questionVectors: vectors.questionVectors, answerVector: vectors.answerVector, vectorsModel: vectors.model })
        .where(and(eq(knowledgeEntries.id, entryId), eq(knowledgeEntries.updatedAt, computedFor)))
        .returning({ id: knowledgeEntries.id });
      return rows.length > 0;
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

export type KnowledgeStore = ReturnType<typeof createKnowledgeStore>;
