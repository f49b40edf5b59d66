// Knowledge bases: entries and their vectors (the built-in sentence encoder, or a base's embeddings provider),
// documents parsed into passages (in bounded worker threads) and their vectors, the retriever both agent
// engines answer from, and the console's knowledge-base and document routes.
import type { Kernel } from '../kernel/kernel.ts';
import type { Executor } from '../db/client.ts';
import { registerDocumentRoutes } from './documents/documents-routes.ts';
import { registerKnowledgeRoutes } from './knowledge-routes.ts';
import type { FeatureModule } from '../kernel/module.ts';
import { createDocumentParser, type DocumentParserOptions } from './documents/document-parser.ts';
import { createDocumentsService } from './documents/documents-service.ts';
import { createDocumentsStore } from './documents/documents-store.ts';
import { createPassageVectors } from './documents/passage-vectors.ts';
import { cachedProviderEmbedding, createEmbeddingsClient } from './embeddings-client.ts';
import { BUILT_IN_MODEL, createSentenceEncoder, primedTextEmbedding } from './encoder/sentence-encoder.ts';
import { createEntryVectors } from './entry-vectors.ts';
import { auditRecorderOf } from '../audit/audit-record.ts';
import { createKnowledgeService, type KnowledgeServiceDeps } from './knowledge-service.ts';
import { createKnowledgeStore } from './knowledge-store.ts';
import { createLearnedQuestionsStore } from './learned-questions-store.ts';
import { analyzerFor } from './lexicon/analyzer.ts';
import { createRetriever } from './retrieval.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type KnowledgeShared = Pick<Kernel, 'app' | 'clock' | 'closeWithApp' | 'db' | 'files' | 'jobs' | 'logger' | 'secretBox' | 'urlGuard'>;

export function createKnowledgeModule(core: KnowledgeShared, options: { encoder?: boolean; documentParser?: DocumentParserOptions }) {
  const { app, db, jobs, logger } = core;
  const store = createKnowledgeStore(db, core.secretBox);
  const documentsStore = createDocumentsStore(db);
  // English bases: a worker thread loads the encoder on first use (KB_ENCODER=off: words only).
  const sentenceEncoder = (options.encoder ?? true) ? createSentenceEncoder() : undefined;
  if (sentenceEncoder) app.addHook('onClose', () => sentenceEncoder.close());
  // Bases that name an OpenAI-compatible embeddings provider get their vectors from it instead (any language).
  const embeddingsClient = createEmbeddingsClient({ guard: core.urlGuard });
  core.closeWithApp(embeddingsClient);
  const entryVectors = createEntryVectors({ store, encoder: sentenceEncoder, embeddings: embeddingsClient });
  jobs.handle('knowledge.embed', async ({ knowledgeBaseId, entryId }) => {
    await entryVectors.embedEntry(knowledgeBaseId, entryId);
  });
  const passageVectors = createPassageVectors({ documents: documentsStore, knowledge: store, encoder: sentenceEncoder, embeddings: embeddingsClient });
  jobs.handle('knowledge.embedDocument', async ({ knowledgeBaseId, documentId }) => {
    await passageVectors.embedDocument(knowledgeBaseId, documentId);
  });
  /** An entry's vectors job (keyed by entry: queued once, run again if it is running). */
  const embedJob = (knowledgeBaseId: string, entryId: string) => ({ payload: { knowledgeBaseId, entryId }, key: `knowledge.embed:${entryId}` });
  const queueEntryVectors = (executor: Executor, entries: readonly { knowledgeBaseId: string; entryId: string }[]) =>
    jobs.enqueueMany(executor, 'knowledge.embed', entries.map(({ knowledgeBaseId, entryId }) => embedJob(knowledgeBaseId, entryId)));
  const queueDocumentVectors = (executor: Executor, knowledgeBaseId: string, documentId: string) =>
    jobs.enqueue(executor, 'knowledge.embedDocument', { knowledgeBaseId, documentId }, { key: `knowledge.embedDocument:${documentId}` });
  const documentParser = createDocumentParser(options.documentParser);
  app.addHook('onClose', () => documentParser.close());
  const documents = createDocumentsService({
    db,
    storeOf: createDocumentsStore,
    knowledgeStoreOf: (executor) => createKnowledgeStore(executor, core.secretBox),
    files: core.files.storage,
    jobs,
    parser: documentParser,
    clock: core.clock,
    logger,
  });
  jobs.handle('knowledge.parseDocument', (payload, run) => documents.parse(payload, run));
  const textEmbedding = sentenceEncoder ? primedTextEmbedding(sentenceEncoder) : undefined;
  const retriever = createRetriever({
    store,
    loadPassages: (knowledgeBaseId) => documentsStore.loadPassageRows(knowledgeBaseId),
    embed: textEmbedding?.embed,
    embedWith: cachedProviderEmbedding(embeddingsClient),
    entriesLearning: (knowledgeBaseId, key) => createLearnedQuestionsStore(db).entriesLearning(knowledgeBaseId, key),
    onEmbedError: (knowledgeBaseId, error) =>
      logger.warn({ knowledgeBaseId, err: error }, 'embeddings provider failed: the question is answered by its words alone'),
    entryVectors: (base, entry) => entryVectors.vectorsOf(base, entry),
    onEntryVectorsError: (knowledgeBaseId, error) =>
      logger.warn({ knowledgeBaseId, err: error }, 'an entry\'s vectors could not be computed: it is found by its words until its job stores them'),
  });
  /** What a change writes through over `executor`: the rows, the vectors' jobs, the audit event. */
  const writesOf = (executor: Executor) => {
    const writeStore = createKnowledgeStore(executor, core.secretBox);
    return {
      store: writeStore,
      audit: auditRecorderOf(executor),
      learned: createLearnedQuestionsStore(executor),
      entryWritten: (knowledgeBaseId: string, entryId: string) => {
        const { payload, key } = embedJob(knowledgeBaseId, entryId);
        return jobs.enqueue(executor, 'knowledge.embed', payload, { key });
      },
      // A provider changed: every entry's vectors (a few statements for the whole base) and the documents' passages.
      providerChanged: async (knowledgeBaseId: string) => {
        await queueEntryVectors(executor, (await writeStore.entryIdsOf(knowledgeBaseId)).map((entryId) => ({ knowledgeBaseId, entryId })));
        for (const documentId of await createDocumentsStore(executor).readyDocumentIdsOf(knowledgeBaseId)) {
          await queueDocumentVectors(executor, knowledgeBaseId, documentId);
        }
      },
    };
  };
  /**
   * The service over the database runs each change in a transaction of its own (its rows, the base's version, the
   * vectors' jobs and the audit event together); over an open transaction (a correction saved with the rating that
   * made it), in that one. The console's service also shows which entries a learned phrasing competes with (the
   * retriever reads outside any transaction).
   */
  const serviceOf = (executor: Executor, shown: Pick<KnowledgeServiceDeps, 'competing'> = {}) =>
    createKnowledgeService({
      ...shown,
      ...writesOf(executor),
      clock: core.clock,
      urlGuard: core.urlGuard,
      ...(executor === db ? { transaction: (change) => db.transaction((tx) => change(writesOf(tx))) } : {}),
    });
  const knowledge = serviceOf(db, {
    competing: async (knowledgeBaseId, phrasings) => {
      // The phrasings' vectors in one call of the built-in encoder (English bases), then each ranked.
      const base = await store.findBaseVersion(knowledgeBaseId);
      if (textEmbedding && base && !base.embeddings && analyzerFor(base.language).english) await textEmbedding.prime(phrasings.map((p) => p.text));
      return Promise.all(phrasings.map((phrasing) => retriever.competing(knowledgeBaseId, phrasing.entryId, phrasing.text)));
    },
  });

  return {
    retriever,
    baseLanguage: (accountId: string, knowledgeBaseId: string) => store.findBaseLanguage(accountId, knowledgeBaseId),
    /** Embeds texts about to be asked (a replay's batch) in one call of the built-in encoder: English bases only, else nothing. */
    primeQuestions: async (language: string, texts: readonly string[]): Promise<void> => {
      if (textEmbedding && analyzerFor(language).english) await textEmbedding.prime(texts);
    },
    /**
     * The built-in encoder's vectors of texts in one call (knowledge gaps' grouping by meaning): English bases only;
     * undefined otherwise (no encoder, another language), when the caller compares words instead.
     */
    embedTexts: async (language: string, texts: readonly string[]): Promise<number[][] | undefined> => {
      if (!sentenceEncoder || !analyzerFor(language).english || texts.length === 0) return undefined;
      return sentenceEncoder.embed(texts);
    },
    /** A customer's pick of a clarification's option keeps the question that led to it, in the reply's transaction. */
    learnPhrasing: (executor: Executor, entryId: string, question: string, at: Date, chatId: string) =>
      createLearnedQuestionsStore(executor).record(entryId, question, at, chatId),
    /** The service over a transaction (a correction saved with the rating that made it). */
    serviceOf: (executor: Executor) => serviceOf(executor),
    consoleRoutes: (api) => {
      registerKnowledgeRoutes(api, knowledge);
      registerDocumentRoutes(api, documents, core.files.storage);
    },
    workers: {
      // Entries and passages written before the encoder (an upgrade, or KB_ENCODER was off), embedded by another
      // encoder than this version's, or whose base's provider changed and were not re-embedded yet (a stop in between),
      // get their vectors in the background.
      async start() {
        void (async () => {
          const missing = await store.entriesWithoutVectors(10_000, { builtIn: sentenceEncoder !== undefined, builtInModel: BUILT_IN_MODEL });
          if (missing.length > 0) {
            await queueEntryVectors(db, missing);
            jobs.wake();
            logger.info({ entries: missing.length }, 'knowledge-base entries without vectors queued for embedding');
          }
          const documentsMissing = await documentsStore.documentsWithoutVectors(10_000, { builtIn: sentenceEncoder !== undefined, builtInModel: BUILT_IN_MODEL });
          for (const { knowledgeBaseId, documentId } of documentsMissing) await queueDocumentVectors(db, knowledgeBaseId, documentId);
          if (documentsMissing.length > 0) logger.info({ documents: documentsMissing.length }, 'knowledge-base documents without vectors queued for embedding');
        })().catch((error: unknown) => logger.error({ err: error }, 'queueing knowledge-base entries for embedding failed'));
      },
      async stop() {},
    },
  } satisfies FeatureModule & Record<string, unknown>;
}
