// Knowledge bases and their question-and-answer entries, as the console manages them; the dislike
// endpoint adds corrections through `addEntry`. The entries' operations are in knowledge-entries.ts.
import type { EmbeddingsProviderInput, KnowledgeBase } from '@parley/contracts';
import { diffChanges, type AuditContext, type AuditRecorder } from '../audit/audit-record.ts';
import { Errors } from '../errors.ts';
import { newId } from '../lib/ids.ts';
import type { UrlGuard } from '../kernel/url-guard.ts';
import { providerModel, type EmbeddingsProviderConfig } from './embeddings-client.ts';
import { createKnowledgeEntries, type EntryWrites, type KnowledgeEntriesDeps } from './knowledge-entries.ts';
import type { KnowledgeStore } from './knowledge-store.ts';

export interface KnowledgeServiceDeps extends Omit<KnowledgeEntriesDeps, 'transaction'> {
  /** The base's embeddings provider changed: its entries' and documents' vectors are to be computed again (in the change's transaction). */
  providerChanged?: (knowledgeBaseId: string) => Promise<void>;
  /** Checks a provider's base URL as saved (scheme, credentials, private networks). */
  urlGuard: Pick<UrlGuard, 'check'>;
  /** Writes an audit event with the service's executor (in the change's transaction: see `transaction`). */
  audit: AuditRecorder;
  /**
   * Runs a change in one database transaction, given the dependencies that write over it (knowledge-entries.ts);
   * absent, over these very dependencies (a service already over a transaction). Nothing that waits on the network
   * (the provider URL's check) runs inside it.
   */
  transaction?: <T>(change: (writes: BaseWrites) => Promise<T>) => Promise<T>;
}

/** What a change writes through, over its transaction. */
export type BaseWrites = EntryWrites & Pick<KnowledgeServiceDeps, 'providerChanged' | 'audit'>;

const EMBEDDINGS_URL_FIELD = 'embeddings.baseUrl';

export const DEFAULT_LANGUAGE = 'en';

export type { NewEntry } from './knowledge-entries.ts';

type BaseRow = Awaited<ReturnType<KnowledgeStore['listBases']>>[number];

function toKnowledgeBase(row: BaseRow): KnowledgeBase {
  const { embeddingsBaseUrl, embeddingsModel, embeddingsApiKeySet, ...base } = row;
  return {
    ...base,
    embeddings:
      embeddingsBaseUrl === null || embeddingsModel === null
        ? null
        : { baseUrl: embeddingsBaseUrl, model: embeddingsModel, apiKeySet: embeddingsApiKeySet },
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** A base's fields in the audit log: the provider's URL and model, whether it has a key (never the key). */
const baseFields = (row: BaseRow) => ({
  name: row.name,
  language: row.language,
  embeddingsBaseUrl: row.embeddingsBaseUrl,
  embeddingsModel: row.embeddingsModel,
  embeddingsApiKeySet: row.embeddingsApiKeySet,
});
const baseTarget = (row: BaseRow) => ({ type: 'knowledge_base', id: row.id, name: row.name });

export function createKnowledgeService(deps: KnowledgeServiceDeps) {
  const { store, clock, urlGuard } = deps;
  const transaction = deps.transaction ?? (<T>(change: (writes: BaseWrites) => Promise<T>) => change(deps));

  /**
   * The provider to store for the input (null: none). Its URL goes through the private-network guard; an omitted
   * key keeps the stored one only when the URL is unchanged, so a key is never sent to another server.
   */
  async function providerFor(
    input: EmbeddingsProviderInput | null,
    current: EmbeddingsProviderConfig | null,
  ): Promise<EmbeddingsProviderConfig | null> {
    if (input === null) return null;
    // Unresolvable now is allowed (a model server not up yet): every connection is checked again.
    await urlGuard.check(input.baseUrl, EMBEDDINGS_URL_FIELD, { allowUnresolvable: true });
    const apiKey = input.apiKey ?? (current && current.baseUrl === input.baseUrl ? current.apiKey : null);
    return { baseUrl: input.baseUrl, model: input.model, apiKey };
  }


  return {
    async createKnowledgeBase(
      accountId: string,
      input: { name: string; language?: string; embeddings?: EmbeddingsProviderInput | null },
      context: AuditContext,
    ): Promise<KnowledgeBase> {
      const embeddings = await providerFor(input.embeddings ?? null, null);
      const base = await transaction(async (writes) => {
        const inserted = await writes.store.insertBase({
          id: newId(),
          accountId,
          name: input.name,
          language: input.language ?? DEFAULT_LANGUAGE,
          embeddings,
          now: clock.now(),
        });
        await writes.audit(context, { accountId, kind: 'knowledge_base.created', target: baseTarget(inserted), changes: diffChanges(undefined, baseFields(inserted)) });
        return inserted;
      });
      return toKnowledgeBase(base);
    },

    async listKnowledgeBases(accountId: string): Promise<{ knowledgeBases: KnowledgeBase[] }> {
      return { knowledgeBases: (await store.listBases(accountId)).map(toKnowledgeBase) };
    },

    /**
     * Renames the base and/or sets its embeddings provider. A provider set, changed (URL or model) or removed
     * re-embeds every entry in the background; until an entry is done it lacks the semantic signal.
     */
    async updateKnowledgeBase(
      accountId: string,
      knowledgeBaseId: string,
      patch: { name?: string; embeddings?: EmbeddingsProviderInput | null },
      context: AuditContext,
    ): Promise<KnowledgeBase> {
      const current = await store.findProvider(accountId, knowledgeBaseId);
      if (current === undefined) throw Errors.knowledgeBaseNotFound();
      const previous = (await store.listBases(accountId)).find((row) => row.id === knowledgeBaseId);
      const embeddings = patch.embeddings === undefined ? undefined : await providerFor(patch.embeddings, current);
      const modelOf = (provider: EmbeddingsProviderConfig | null) => (provider ? providerModel(provider) : null);
      const base = await transaction(async (writes) => {
        const updated = await writes.store.updateBase(accountId, knowledgeBaseId, { name: patch.name, embeddings }, clock.now());
        if (!updated) throw Errors.knowledgeBaseNotFound();
        const changes = diffChanges(previous && baseFields(previous), baseFields(updated));
        if (Object.keys(changes).length > 0) await writes.audit(context, { accountId, kind: 'knowledge_base.updated', target: baseTarget(updated), changes });
        if (embeddings !== undefined && modelOf(embeddings) !== modelOf(current)) await writes.providerChanged?.(knowledgeBaseId);
        return updated;
      });
      return toKnowledgeBase(base);
    },

    async deleteKnowledgeBase(accountId: string, knowledgeBaseId: string, context: AuditContext): Promise<{ success: true }> {
      const previous = (await store.listBases(accountId)).find((row) => row.id === knowledgeBaseId);
      await transaction(async (writes) => {
        if (!(await writes.store.deleteBase(accountId, knowledgeBaseId))) throw Errors.knowledgeBaseNotFound();
        if (previous) {
          await writes.audit(context, { accountId, kind: 'knowledge_base.deleted', target: baseTarget(previous), changes: diffChanges(baseFields(previous), undefined) });
        }
      });
      return { success: true };
    },

    ...createKnowledgeEntries({ ...deps, transaction }),
  };
}

export type KnowledgeService = ReturnType<typeof createKnowledgeService>;
