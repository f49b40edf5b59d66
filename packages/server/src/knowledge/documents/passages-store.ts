// SQL of the passages of knowledge-base documents: written when a document is parsed, loaded by the in-memory
// index, and their vectors. These statements go by the document's or the base's id (background jobs). Part of the
// documents store (documents-store.ts), which spreads these queries into its own.
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { knowledgeBases, knowledgeDocuments, knowledgePassages } from '../../db/schema.ts';
import type { Passage } from './passages.ts';

/** One passage as the in-memory index loads it (knowledge-index.ts). */
export interface PassageRow {
  id: string;
  documentName: string;
  headingPath: string[];
  text: string;
  headingVector: number[] | null;
  textVector: number[] | null;
  vectorsModel: string | null;
}

/** Rows of one multi-row INSERT of passages (6 parameters each, far below PostgreSQL's 65,535). */
const INSERT_BATCH = 500;

export function createPassagesStore(db: Executor) {
  return {
    async insertPassages(document: { id: string; knowledgeBaseId: string }, passages: readonly Passage[], newId: () => string): Promise<void> {
      for (let at = 0; at < passages.length; at += INSERT_BATCH) {
        await db.insert(knowledgePassages).values(
          passages.slice(at, at + INSERT_BATCH).map((passage, i) => ({
            id: newId(),
            documentId: document.id,
            knowledgeBaseId: document.knowledgeBaseId,
            position: at + i,
            headingPath: passage.headingPath,
            text: passage.text,
          })),
        );
      }
    },

    /** Every passage of the base's ready documents, with what the in-memory index needs. */
    async loadPassageRows(knowledgeBaseId: string): Promise<PassageRow[]> {
      return db
        .select({
          id: knowledgePassages.id,
          documentName: knowledgeDocuments.name,
          headingPath: knowledgePassages.headingPath,
          text: knowledgePassages.text,
          headingVector: knowledgePassages.headingVector,
          textVector: knowledgePassages.textVector,
          vectorsModel: knowledgePassages.vectorsModel,
        })
        .from(knowledgePassages)
        .innerJoin(knowledgeDocuments, eq(knowledgeDocuments.id, knowledgePassages.documentId))
        .where(and(eq(knowledgePassages.knowledgeBaseId, knowledgeBaseId), eq(knowledgeDocuments.status, 'ready')))
        .orderBy(asc(knowledgePassages.documentId), asc(knowledgePassages.position));
    },

    /** The document's passages lacking vectors of `model`, at most `limit`, in order. */
    async passagesToEmbed(documentId: string, model: string, limit: number) {
      return db
        .select({
          id: knowledgePassages.id,
          documentName: knowledgeDocuments.name,
          headingPath: knowledgePassages.headingPath,
          text: knowledgePassages.text,
        })
        .from(knowledgePassages)
        .innerJoin(knowledgeDocuments, eq(knowledgeDocuments.id, knowledgePassages.documentId))
        .where(
          and(
            eq(knowledgePassages.documentId, documentId),
            sql`${knowledgePassages.vectorsModel} IS DISTINCT FROM ${model}`,
          ),
        )
        .orderBy(asc(knowledgePassages.position))
        .limit(limit);
    },

    async setPassageVectors(passageId: string, vectors: { headingVector: number[]; textVector: number[]; model: string }): Promise<void> {
      await db
        .update(knowledgePassages)
        .set({ headingVector: vectors.headingVector, textVector: vectors.textVector, vectorsModel: vectors.model })
        .where(eq(knowledgePassages.id, passageId));
    },

    /** The ready documents of the base (to embed them again when its provider changed). */
    async readyDocumentIdsOf(knowledgeBaseId: string): Promise<string[]> {
      const rows = await db
        .select({ id: knowledgeDocuments.id })
        .from(knowledgeDocuments)
        .where(and(eq(knowledgeDocuments.knowledgeBaseId, knowledgeBaseId), eq(knowledgeDocuments.status, 'ready')));
      return rows.map((row) => row.id);
    },

    /**
     * Documents with passages lacking vectors of their base's current model, at most `limit` (as entriesWithoutVectors
     * in knowledge-index-store.ts): of bases with a provider, another model's; of English bases without one, when `builtIn`, none.
     */
    async documentsWithoutVectors(limit: number, { builtIn, builtInModel }: { builtIn: boolean; builtInModel: string }) {
      const providerModel = sql`(${knowledgeBases.embeddingsModel} || ' @ ' || rtrim(${knowledgeBases.embeddingsBaseUrl}, '/'))`;
      const ofProvider = sql`(${knowledgeBases.embeddingsBaseUrl} IS NOT NULL AND ${knowledgePassages.vectorsModel} IS DISTINCT FROM ${providerModel})`;
      const ofEncoder = sql`(${knowledgeBases.embeddingsBaseUrl} IS NULL AND ${knowledgePassages.vectorsModel} IS DISTINCT FROM ${builtInModel}
        AND lower(split_part(${knowledgeBases.language}, '-', 1)) = 'en')`;
      return db
        .selectDistinct({ knowledgeBaseId: knowledgePassages.knowledgeBaseId, documentId: knowledgePassages.documentId })
        .from(knowledgePassages)
        .innerJoin(knowledgeBases, eq(knowledgeBases.id, knowledgePassages.knowledgeBaseId))
        .where(builtIn ? sql`(${ofProvider} OR ${ofEncoder})` : ofProvider)
        .limit(limit);
    },
  };
}
