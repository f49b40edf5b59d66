// Sentence vectors of knowledge-base entries, computed when an entry is written (the `knowledge.embed` job), and by
// the retriever for an entry whose job has not stored them yet (retrieval.ts): the vectors of the question and each
// synonym and of the answer. A base with an embeddings provider gets them from the provider (any language);
// otherwise from the built-in encoder, English bases only (other languages are found by their words alone).
import type { KnowledgeStore } from './knowledge-store.ts';
import { analyzerFor } from './lexicon/analyzer.ts';
import type { SentenceEncoder } from './encoder/sentence-encoder.ts';
import { providerModel, type EmbeddingsClient, type EmbeddingsProviderConfig } from './embeddings-client.ts';

/** An entry's vectors: its question's and each synonym's one after the other, its answer's, and their model. */
export interface EntryVectorSet {
  questionVectors: number[];
  answerVector: number[];
  model: string;
}

export interface EntryVectorsDeps {
  store: Pick<KnowledgeStore, 'findEntryToEmbed' | 'setVectors' | 'bumpEntriesVersion'>;
  /** The built-in encoder; absent (KB_ENCODER=off): bases without a provider get no vectors. */
  encoder?: Pick<SentenceEncoder, 'embed' | 'model'> | undefined;
  embeddings: Pick<EmbeddingsClient, 'embed'>;
}

export function createEntryVectors({ store, encoder, embeddings }: EntryVectorsDeps) {
  /**
   * The vectors of an entry's texts (its question, each synonym, its answer) with its base's current model; undefined
   * when it has none (no provider, and not English or no encoder). A provider failing throws.
   */
  async function vectorsOf(
    base: { language: string; embeddings: EmbeddingsProviderConfig | null },
    entry: { question: string; synonyms: readonly string[]; answer: string },
  ): Promise<EntryVectorSet | undefined> {
    const asked = [entry.question, ...entry.synonyms];
    const texts = [...asked, entry.answer];
    // Outside any transaction: the encoder takes milliseconds per text, a provider a network round trip.
    let vectors: number[][];
    let model: string;
    if (base.embeddings) {
      vectors = await embeddings.embed(base.embeddings, texts);
      model = providerModel(base.embeddings);
    } else if (encoder && analyzerFor(base.language).english) {
      vectors = await encoder.embed(texts);
      model = encoder.model;
    } else {
      return undefined;
    }
    const answerVector = vectors.pop();
    if (!answerVector || vectors.length !== asked.length) throw new Error(`${model}: wrong number of vectors`);
    return { questionVectors: vectors.flat(), answerVector, model };
  }

  return {
    vectorsOf,
    /**
     * Computes and stores the entry's vectors with its base's current model; nothing when it is gone, or has no
     * model (no provider, and not English or no encoder), or changed meanwhile. A provider failing throws (the job
     * is retried).
     */
    async embedEntry(knowledgeBaseId: string, entryId: string): Promise<void> {
      const entry = await store.findEntryToEmbed(knowledgeBaseId, entryId);
      if (!entry) return;
      const vectors = await vectorsOf(entry, entry);
      if (!vectors) return;
      // A text changed meanwhile has its own job coming: these vectors are for the old one. A provider changed
      // meanwhile queued this job again: the next run stores the new model's vectors over these.
      if (await store.setVectors(entryId, entry.updatedAt, vectors)) {
        await store.bumpEntriesVersion(knowledgeBaseId);
      }
    },
  };
}

export type EntryVectors = ReturnType<typeof createEntryVectors>;
