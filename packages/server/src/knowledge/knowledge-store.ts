// SQL of knowledge bases and their entries. Every statement is scoped by the account: a base or an entry
// of another account is indistinguishable from a missing one.
import { and, asc, count, desc, eq, exists, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { knowledgeBases, knowledgeEntries } from '../db/schema.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import type { EmbeddingsProviderConfig } from './embeddings-client.ts';
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
  embeddingsBaseUrl: knowledgeBases.embeddingsBaseUrl,
  embeddingsModel: knowledgeBases.embeddingsModel,
  /** Null or not only: the key itself is never read for display. */
  embeddingsApiKeySet: sql<boolean>`(knowledge_bases.embeddings_api_key IS NOT NULL)`.mapWith(Boolean),
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

/** The provider columns of a base (the key sealed), as one value; null when the base has none. */
const providerColumns = {
  embeddingsBaseUrl: knowledgeBases.embeddingsBaseUrl,
  embeddingsModel: knowledgeBases.embeddingsModel,
  embeddingsApiKey: knowledgeBases.embeddingsApiKey,
};

/** The model name stored with vectors a provider made, in SQL (providerModel of embeddings-client.ts). */
const providerModelSql = sql`(${knowledgeBases.embeddingsModel} || ' @ ' || rtrim(${knowledgeBases.embeddingsBaseUrl}, '/'))`;

export function createKnowledgeStore(db: Executor, secrets: Pick<SecretBox, 'seal' | 'open'>) {
  function providerOf(row: { embeddingsBaseUrl: string | null; embeddingsModel: string | null; embeddingsApiKey: string | null }): EmbeddingsProviderConfig | null {
    if (row.embeddingsBaseUrl === null || row.embeddingsModel === null) return null;
    return {
      baseUrl: row.embeddingsBaseUrl,
      model: row.embeddingsModel,
      apiKey: row.embeddingsApiKey === null ? null : secrets.open(row.embeddingsApiKey),
    };
  }

  /** The provider's columns to write (the key sealed); all null for none. */
  function providerValues(provider: EmbeddingsProviderConfig | null) {
    return {
      embeddingsBaseUrl: provider?.baseUrl ?? null,
      embeddingsModel: provider?.model ?? null,
      embeddingsApiKey: provider?.apiKey ? secrets.seal(provider.apiKey) : null,
    };
  }

  /** Entries of the base, only when the base belongs to the account. */
  function entriesOf(accountId: string, knowledgeBaseId: string): SQL {
    const owned = db.select({ one: sql`1` }).from(knowledgeBases).where(ownedBase(accountId, knowledgeBaseId));
    return and(eq(knowledgeEntries.knowledgeBaseId, knowledgeBaseId), exists(owned)) as SQL;
  }

  return {
    async insertBase(row: { id: string; accountId: string; name: string; language: string; embeddings: EmbeddingsProviderConfig | null; now: Date }) {
      const [base] = await db
        .insert(knowledgeBases)
        .values({
          id: row.id,
          accountId: row.accountId,
          name: row.name,
          language: row.language,
          ...providerValues(row.embeddings),
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

    /** The base's embeddings provider (the key opened): null when it has none, undefined when no such base. */
    async findProvider(accountId: string, knowledgeBaseId: string): Promise<EmbeddingsProviderConfig | null | undefined> {
      const [base] = await db.select(providerColumns).from(knowledgeBases).where(ownedBase(accountId, knowledgeBaseId));
      return base && providerOf(base);
    },

    /** Sets the name and/or the provider (undefined: unchanged); undefined when no such base. */
    async updateBase(
      accountId: string,
      knowledgeBaseId: string,
      patch: { name?: string | undefined; embeddings?: EmbeddingsProviderConfig | null | undefined },
      now: Date,
    ) {
      const [base] = await db
        .update(knowledgeBases)
        .set({
          ...(patch.name === undefined ? {} : { name: patch.name }),
          // A provider change bumps the version with it: processes rebuild their copy without the old model's vectors.
          ...(patch.embeddings === undefined
            ? {}
            : { ...providerValues(patch.embeddings), entriesVersion: sql`${knowledgeBases.entriesVersion} + 1` }),
          updatedAt: now,
        })
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

    /** The base's language, entries version and embeddings provider, or undefined when the base is gone. */
    async findBaseVersion(knowledgeBaseId: string) {
      const [base] = await db
        .select({ language: knowledgeBases.language, entriesVersion: knowledgeBases.entriesVersion, ...providerColumns })
        .from(knowledgeBases)
        .where(eq(knowledgeBases.id, knowledgeBaseId));
      return base && { language: base.language, entriesVersion: base.entriesVersion, embeddings: providerOf(base) };
    },

    /** Ids of every entry of the base (to re-embed them all when its provider changed). */
    async entryIdsOf(knowledgeBaseId: string): Promise<string[]> {
      const rows = await db
        .select({ id: knowledgeEntries.id })
        .from(knowledgeEntries)
        .where(eq(knowledgeEntries.knowledgeBaseId, knowledgeBaseId));
      return rows.map((row) => row.id);
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
          vectorsModel: knowledgeEntries.vectorsModel,
        })
        .from(knowledgeEntries)
        .where(eq(knowledgeEntries.knowledgeBaseId, knowledgeBaseId));
    },

    /**
     * An entry's text as the vectors are computed from, with the base's language and embeddings provider (the key
     * opened); undefined when gone.
     */
    async findEntryToEmbed(knowledgeBaseId: string, entryId: string) {
      const [entry] = await db
        .select({
          question: knowledgeEntries.question,
          synonyms: knowledgeEntries.synonyms,
          answer: knowledgeEntries.answer,
          updatedAt: knowledgeEntries.updatedAt,
          language: knowledgeBases.language,
          ...providerColumns,
        })
        .from(knowledgeEntries)
        .innerJoin(knowledgeBases, eq(knowledgeBases.id, knowledgeEntries.knowledgeBaseId))
        .where(and(eq(knowledgeEntries.id, entryId), eq(knowledgeEntries.knowledgeBaseId, knowledgeBaseId)));
      if (!entry) return undefined;
      const { question, synonyms, answer, updatedAt, language } = entry;
      return { question, synonyms, answer, updatedAt, language, embeddings: providerOf(entry) };
    },

    /**
     * Entries lacking vectors of their base's current model, at most `limit`: of bases with a provider, any whose
     * vectors another model made (a change the re-embedding jobs did not finish); of English bases without one,
     * when `builtIn` (the encoder runs), those without vectors (written before the encoder ran).
     */
    async entriesWithoutVectors(limit: number, { builtIn }: { builtIn: boolean }): Promise<{ knowledgeBaseId: string; entryId: string }[]> {
      const ofProvider = sql`(${knowledgeBases.embeddingsBaseUrl} IS NOT NULL AND ${knowledgeEntries.vectorsModel} IS DISTINCT FROM ${providerModelSql})`;
      const ofEncoder = sql`(${knowledgeBases.embeddingsBaseUrl} IS NULL AND ${knowledgeEntries.answerVector} IS NULL
        AND lower(split_part(${knowledgeBases.language}, '-', 1)) = 'en')`;
      return db
        .select({ knowledgeBaseId: knowledgeEntries.knowledgeBaseId, entryId: knowledgeEntries.id })
        .from(knowledgeEntries)
        .innerJoin(knowledgeBases, eq(knowledgeBases.id, knowledgeEntries.knowledgeBaseId))
        .where(builtIn ? sql`(${ofProvider} OR ${ofEncoder})` : ofProvider)
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
