// SQL of knowledge bases and their entries. Every statement is scoped by the account: a base or an entry
// of another account is indistinguishable from a missing one.
import { and, asc, count, desc, eq, exists, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { knowledgeBases, knowledgeEntries } from '../db/schema.ts';
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
  answer: knowledgeEntries.answer,
  source: knowledgeEntries.source,
  messageId: knowledgeEntries.messageId,
  createdAt: knowledgeEntries.createdAt,
  updatedAt: knowledgeEntries.updatedAt,
};

/** Question (weight A) and answer (weight B) in the base's configuration, a bound parameter from the allow-list. */
function searchVector(config: TextSearchConfig, question: SQL, answer: SQL): SQL {
  return sql`setweight(to_tsvector(${config}::regconfig, ${question}), 'A')
    || setweight(to_tsvector(${config}::regconfig, ${answer}), 'B')`;
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

    async listEntries(accountId: string, knowledgeBaseId: string, page: { limit: number; offset: number }) {
      const where = entriesOf(accountId, knowledgeBaseId);
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
      row: {
        id: string;
        knowledgeBaseId: string;
        question: string;
        answer: string;
        source: EntrySource;
        messageId: string | null;
        now: Date;
      },
      config: TextSearchConfig,
    ) {
      const question = sql`${row.question}::text`;
      const answer = sql`${row.answer}::text`;
      const now = sql`${row.now.toISOString()}::timestamptz`;
      // Every column of the table, in the table's order (Drizzle lists them all in the INSERT).
      const [entry] = await db
        .insert(knowledgeEntries)
        .select((qb) =>
          qb
            .select({
              id: sql`${row.id}::uuid`.as('id'),
              knowledgeBaseId: knowledgeBases.id,
              question: question.as('question'),
              answer: answer.as('answer'),
              source: sql`${row.source}::text`.as('source'),
              messageId: sql`${row.messageId}::text`.as('message_id'),
              search: searchVector(config, question, answer).as('search'),
              createdAt: now.as('created_at'),
              updatedAt: now.as('updated_at'),
            })
            .from(knowledgeBases)
            .where(ownedBase(accountId, row.knowledgeBaseId)),
        )
        .returning(entryColumns);
      return entry;
    },

    /** Changes the given fields and recomputes `search` from the resulting text; undefined when no such entry. */
    async updateEntry(
      accountId: string,
      knowledgeBaseId: string,
      entryId: string,
      patch: { question?: string; answer?: string },
      config: TextSearchConfig,
      now: Date,
    ) {
      // In SET, a column name means the value before the update: the kept text when a field is not given.
      const question = patch.question === undefined ? sql`${knowledgeEntries.question}` : sql`${patch.question}::text`;
      const answer = patch.answer === undefined ? sql`${knowledgeEntries.answer}` : sql`${patch.answer}::text`;
      const [entry] = await db
        .update(knowledgeEntries)
        .set({
          question: patch.question,
          answer: patch.answer,
          search: searchVector(config, question, answer),
          updatedAt: now,
        })
        .where(and(eq(knowledgeEntries.id, entryId), entriesOf(accountId, knowledgeBaseId)))
        .returning(entryColumns);
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

export type KnowledgeStore = ReturnType<typeof createKnowledgeStore>;
