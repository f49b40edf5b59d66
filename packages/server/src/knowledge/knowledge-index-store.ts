// SQL of what the in-memory index and the vectors read and write (knowledge-index.ts, entry-vectors.ts): the
// entries version, the rows of a base, the entries to embed and their vectors. Part of the knowledge store
// (knowledge-store.ts), which spreads these queries into its own.
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { knowledgeBases, knowledgeEntries } from '../db/schema.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import type { EmbeddingsProviderConfig } from './embeddings-client.ts';
import type { IndexRow } from './knowledge-index.ts';

/** The provider columns of a base (the key sealed), as one value; null when the base has none. */
export const providerColumns = {
  embeddingsBaseUrl: knowledgeBases.embeddingsBaseUrl,
  embeddingsModel: knowledgeBases.embeddingsModel,
  embeddingsApiKey: knowledgeBases.embeddingsApiKey,
};

/** The model name stored with vectors a provider made, in SQL (providerModel of embeddings-client.ts). */
const providerModelSql = sql`(${knowledgeBases.embeddingsModel} || ' @ ' || rtrim(${knowledgeBases.embeddingsBaseUrl}, '/'))`;

/** The provider of a base's provider columns, the key opened; null when the base has none. */
export function providerOf(
  secrets: Pick<SecretBox, 'open'>,
  row: { embeddingsBaseUrl: string | null; embeddingsModel: string | null; embeddingsApiKey: string | null },
): EmbeddingsProviderConfig | null {
  if (row.embeddingsBaseUrl === null || row.embeddingsModel === null) return null;
  return {
    baseUrl: row.embeddingsBaseUrl,
    model: row.embeddingsModel,
    apiKey: row.embeddingsApiKey === null ? null : secrets.open(row.embeddingsApiKey),
  };
}

export function createKnowledgeIndexStore(db: Executor, secrets: Pick<SecretBox, 'open'>) {
  return {
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
      return base && { language: base.language, entriesVersion: base.entriesVersion, embeddings: providerOf(secrets, base) };
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
          keptKeys: sql<string[]>`array(SELECT l.text_key FROM knowledge_learned_questions l
            WHERE l.entry_id = knowledge_entries.id AND l.kept_at IS NOT NULL)`,
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
      return { question, synonyms, answer, updatedAt, language, embeddings: providerOf(secrets, entry) };
    },

    /**
     * Entries lacking vectors of their base's current model, at most `limit`: of bases with a provider, any whose
     * vectors another model made (a change the re-embedding jobs did not finish); of English bases without one,
     * when `builtIn` (the encoder runs), those without vectors of `builtInModel` (written before the encoder ran, or
     * embedded by another encoder or a provider since removed: an index ignores such vectors).
     */
    async entriesWithoutVectors(
      limit: number,
      { builtIn, builtInModel }: { builtIn: boolean; builtInModel: string },
    ): Promise<{ knowledgeBaseId: string; entryId: string }[]> {
      const ofProvider = sql`(${knowledgeBases.embeddingsBaseUrl} IS NOT NULL AND ${knowledgeEntries.vectorsModel} IS DISTINCT FROM ${providerModelSql})`;
      const ofEncoder = sql`(${knowledgeBases.embeddingsBaseUrl} IS NULL AND ${knowledgeEntries.vectorsModel} IS DISTINCT FROM ${builtInModel}
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
  };
}
