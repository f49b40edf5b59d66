// Sentence vectors of knowledge-base entries, computed when an entry is written (the `knowledge.embed` job),
// never when a customer asks: the vectors of the question and each synonym and of the answer. English bases only
// (the built-in encoder knows English); other languages are found by their words alone.
import type { KnowledgeStore } from './knowledge-store.ts';
import { analyzerFor } from './lexicon/analyzer.ts';
import type { SentenceEncoder } from './encoder/sentence-encoder.ts';

export interface EntryVectorsDeps {
  store: Pick<KnowledgeStore, 'findEntryToEmbed' | 'setVectors' | 'bumpEntriesVersion'>;
  encoder: Pick<SentenceEncoder, 'embed' | 'model'>;
}

export function createEntryVectors({ store, encoder }: EntryVectorsDeps) {
  return {
    /** Computes and stores the entry's vectors; nothing when it is gone, not English, or changed meanwhile. */
    async embedEntry(knowledgeBaseId: string, entryId: string): Promise<void> {
      const entry = await store.findEntryToEmbed(knowledgeBaseId, entryId);
      if (!entry || !analyzerFor(entry.language).english) return;
      const asked = [entry.question, ...entry.synonyms];
      // Outside any transaction: the encoder takes milliseconds per text.
      const vectors = await encoder.embed([...asked, entry.answer]);
      const answerVector = vectors.pop();
      if (!answerVector || vectors.length !== asked.length) throw new Error('sentence encoder: wrong number of vectors');
      // A text changed meanwhile has its own job coming: these vectors are for the old one.
      if (await store.setVectors(entryId, entry.updatedAt, { questionVectors: vectors.flat(), answerVector, model: encoder.model })) {
        await store.bumpEntriesVersion(knowledgeBaseId);
      }
    },
  };
}

export type EntryVectors = ReturnType<typeof createEntryVectors>;
