// Sentence vectors of a document's passages, computed after the document is stored (the `knowledge.embedDocument`
// job), as entry-vectors.ts does for entries: of each passage its heading line (the question it answers) and its
// text with its headings. A base's embeddings provider when it has one, else the built-in encoder (English bases).
import type { EmbeddingsClient } from '../embeddings-client.ts';
import { providerModel } from '../embeddings-client.ts';
import type { SentenceEncoder } from '../encoder/sentence-encoder.ts';
import type { KnowledgeStore } from '../knowledge-store.ts';
import { analyzerFor } from '../lexicon/analyzer.ts';
import type { DocumentsStore } from './documents-store.ts';
import { headingLine } from './passages.ts';

/** Passages embedded per request (two texts each). */
const BATCH = 32;

export interface PassageVectorsDeps {
  documents: Pick<DocumentsStore, 'passagesToEmbed' | 'setPassageVectors'>;
  knowledge: Pick<KnowledgeStore, 'findBaseVersion' | 'bumpEntriesVersion'>;
  encoder?: Pick<SentenceEncoder, 'embed' | 'model'> | undefined;
  embeddings: Pick<EmbeddingsClient, 'embed'>;
}

/** What the text vector of a passage is computed from: its headings, then its text. */
export function passageEmbeddingText(passage: { headingPath: readonly string[]; text: string }): string {
  return [...passage.headingPath, passage.text].join('\n');
}

export function createPassageVectors({ documents, knowledge, encoder, embeddings }: PassageVectorsDeps) {
  return {
    /** Embeds every passage of the document lacking its base's current model's vectors; a provider failing throws (retried). */
    async embedDocument(knowledgeBaseId: string, documentId: string): Promise<void> {
      const base = await knowledge.findBaseVersion(knowledgeBaseId);
      if (!base) return;
      const provider = base.embeddings;
      if (!provider && !(encoder && analyzerFor(base.language).english)) return;
      const model = provider ? providerModel(provider) : (encoder?.model ?? '');
      let stored = 0;
      for (;;) {
        const batch = await documents.passagesToEmbed(documentId, model, BATCH);
        if (batch.length === 0) break;
        const texts = batch.flatMap((passage) => [
          headingLine({ document: passage.documentName, headingPath: passage.headingPath }),
          passageEmbeddingText(passage),
        ]);
        // Outside any transaction: a network round trip, or the encoder's thread.
        const vectors = provider ? await embeddings.embed(provider, texts) : await (encoder as NonNullable<typeof encoder>).embed(texts);
        if (vectors.length !== texts.length) throw new Error(`${model}: wrong number of vectors`);
        for (const [i, passage] of batch.entries()) {
          const [headingVector, textVector] = [vectors[2 * i], vectors[2 * i + 1]];
          if (!headingVector || !textVector) throw new Error(`${model}: missing vectors`);
          await documents.setPassageVectors(passage.id, { headingVector, textVector, model });
        }
        stored += batch.length;
        if (batch.length < BATCH) break;
      }
      // Processes rebuild their copy of the base with the vectors.
      if (stored > 0) await knowledge.bumpEntriesVersion(knowledgeBaseId);
    },
  };
}

export type PassageVectors = ReturnType<typeof createPassageVectors>;
