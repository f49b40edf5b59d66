// Sentence vectors of knowledge-base entries, computed when an entry is written (the `knowledge.embed` job),
// never when a customer asks: the vectors of the question and each synonym and of the answer. A base with an
// embeddings provider gets them from the provider (any language); otherwise from the built-in encoder, English
// bases only (other languages are found by their words alone).
import type { KnowledgeStore } from './knowledge-store.ts';
import { analyzerFor } from './lexicon/analyzer.ts';
import type { SentenceEncoder } from './encoder/sentence-encoder.ts';
import { providerModel, type EmbeddingsClient } from './embeddings-client.ts';

export interface EntryVectorsDeps {
  store: Pick<KnowledgeStore, 'findEntryToEmbed' | 'setVectors' | 'bumpEntriesVersion'>;
  /** The built-in encoder; absent (KB_ENCODER=off): bases without a provider get no vectors. */
  encoder?: Pick<SentenceEncoder, 'embed' | 'model'> | undefined;
  embeddings: Pick<EmbeddingsClient, 'embed'>;
}

export function createEntryVectors({ store, encoder, embeddings }: EntryVectorsDeps) {
  return {
    /**
     * Computes and stores the entry's vectors with its base's current model; nothing when it is gone, or has no
     * model (no provider, and not English or no encoder), or changed meanwhile. A provider failing throws (the job
     * is retried).
     */
    async embedEntry(knowledgeBaseId: string, entryId: string): Promise<void> {
      const entry = await store.findEntryToEmbed(knowledgeBaseId, entryId);
      if (!entry) return;
      const provider = entry.embeddings;
      const asked = [entry.question, ...entry.synonyms];
      const texts = [...asked, entry.answer];
      // Outside any transaction: the encoder takes milliseconds per text, a provider a network round trip.
      let vectors: number[][];
      let model: string;
      if (provider) {
        vectors = await embeddings.embed(provider, texts);
        model = providerModel(provider);
      } else if (encoder && analyzerFor(entry.language).english) {
        vectors = await encoder.embed(texts);
        model = encoder.model;
      } else {
        return;
      }
      const answerVector = vectors.pop();
      if (!answerVector || vectors.length !== asked.length) throw new Error(`${model}: wrong number of vectors`);
      // A text changed meanwhile has its own job coming: these vectors are for the old one. A provider changed
      // meanwhile queued this job again: the next run stores the new model's vectors over these.
      if (await store.setVectors(entryId, entry.updatedAt, { questionVectors: vectors.flat(), answerVector, model })) {
        await store.bumpEntriesVersion(knowledgeBaseId);
      }
    },
  };
}

export type EntryVectors = ReturnType<typeof createEntryVectors>;
