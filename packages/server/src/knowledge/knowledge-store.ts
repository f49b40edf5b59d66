// SQL of knowledge bases and their entries. Every statement is scoped by the account: a base or an entry
// of another account is indistinguishable from a missing one. The queries of the entries are in
// knowledge-entry-store.ts, those of the index and the vectors in knowledge-index-store.ts; both are spread here.
import { asc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { knowledgeBases } from '../db/schema.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import type { EmbeddingsProviderConfig } from './embeddings-client.ts';
import { createKnowledgeEntryStore, ownedBase } from './knowledge-entry-store.ts';
import { createKnowledgeIndexStore, providerColumns, providerOf } from './knowledge-index-store.ts';

export type { EntrySource, EntryText } from './knowledge-entry-store.ts';

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

export function createKnowledgeStore(db: Executor, secrets: Pick<SecretBox, 'seal' | 'open'>) {
  /** The provider's columns to write (the key sealed); all null for none. */
  function providerValues(provider: EmbeddingsProviderConfig | null) {
    return {
      embeddingsBaseUrl: provider?.baseUrl ?? null,
      embeddingsModel: provider?.model ?? null,
      embeddingsApiKey: provider?.apiKey ? secrets.seal(provider.apiKey) : null,
    };
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
      return base && providerOf(secrets, base);
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

    ...createKnowledgeEntryStore(db),
    ...createKnowledgeIndexStore(db, secrets),
  };
}

export type KnowledgeStore = ReturnType<typeof createKnowledgeStore>;
