// SQL of knowledge-base documents and their passages. Statements of the console are scoped by the account (a
// document of another account's base is a missing one); those of the background jobs go by the document's id.
// The queries of the passages are in passages-store.ts, spread here.
import { and, desc, eq, exists, gt, lt, sql, type SQL } from 'drizzle-orm';
import type { DocumentKind } from '@parley/contracts';
import type { Executor } from '../../db/client.ts';
import { knowledgeBases, knowledgeDocuments } from '../../db/schema.ts';
import { createPassagesStore } from './passages-store.ts';

export type { PassageRow } from './passages-store.ts';

export type DocumentStatus = 'processing' | 'ready' | 'failed';

const documentColumns = {
  id: knowledgeDocuments.id,
  knowledgeBaseId: knowledgeDocuments.knowledgeBaseId,
  name: knowledgeDocuments.name,
  kind: knowledgeDocuments.kind,
  status: knowledgeDocuments.status,
  error: knowledgeDocuments.error,
  fileKey: knowledgeDocuments.fileKey,
  passageCount: knowledgeDocuments.passageCount,
};

export function createDocumentsStore(db: Executor) {
  /** Documents of the base, only when the base belongs to the account. */
  function documentsOf(accountId: string, knowledgeBaseId: string): SQL {
    const owned = db
      .select({ one: sql`1` })
      .from(knowledgeBases)
      .where(and(eq(knowledgeBases.id, knowledgeBaseId), eq(knowledgeBases.accountId, accountId)));
    return and(eq(knowledgeDocuments.knowledgeBaseId, knowledgeBaseId), exists(owned)) as SQL;
  }

  return {
    /** INSERT … SELECT from the account's base: undefined when the base is missing or another account's. */
    async insertDocument(
      accountId: string,
      row: { id: string; knowledgeBaseId: string; name: string; kind: DocumentKind; fileKey: string; size: number; now: Date },
    ) {
      const now = sql`${row.now.toISOString()}::timestamptz`;
      // Every column of the table, in the table's order (Drizzle lists them all in the INSERT).
      const [document] = await db
        .insert(knowledgeDocuments)
        .select((qb) =>
          qb
            .select({
              id: sql`${row.id}::uuid`.as('id'),
              knowledgeBaseId: knowledgeBases.id,
              name: sql`${row.name}::text`.as('name'),
              kind: sql`${row.kind}::text`.as('kind'),
              status: sql`'processing'::text`.as('status'),
              error: sql`NULL::text`.as('error'),
              fileKey: sql`${row.fileKey}::text`.as('file_key'),
              size: sql`${row.size}::int`.as('size'),
              passageCount: sql`0::int`.as('passage_count'),
              createdAt: now.as('created_at'),
              updatedAt: now.as('updated_at'),
            })
            .from(knowledgeBases)
            .where(and(eq(knowledgeBases.id, row.knowledgeBaseId), eq(knowledgeBases.accountId, accountId))),
        )
        .returning(documentColumns);
      return document;
    },

    /** The base's documents, newest first. */
    async listDocuments(accountId: string, knowledgeBaseId: string) {
      return db
        .select(documentColumns)
        .from(knowledgeDocuments)
        .where(documentsOf(accountId, knowledgeBaseId))
        .orderBy(desc(knowledgeDocuments.createdAt), desc(knowledgeDocuments.id));
    },

    /** Deletes the document with its passages (cascade); undefined when the account has no such document. */
    async deleteDocument(accountId: string, knowledgeBaseId: string, documentId: string) {
      const [deleted] = await db
        .delete(knowledgeDocuments)
        .where(and(eq(knowledgeDocuments.id, documentId), documentsOf(accountId, knowledgeBaseId)))
        .returning({ name: knowledgeDocuments.name, fileKey: knowledgeDocuments.fileKey, passageCount: knowledgeDocuments.passageCount });
      return deleted;
    },

    /** A document by id (the parse job's), or undefined when deleted. */
    async findDocument(documentId: string) {
      const [document] = await db.select(documentColumns).from(knowledgeDocuments).where(eq(knowledgeDocuments.id, documentId));
      return document;
    },

    /** Locks the base's row until the transaction ends (documents of one base are swapped one at a time); false when gone. */
    async lockBase(knowledgeBaseId: string): Promise<boolean> {
      const rows = await db.select({ id: knowledgeBases.id }).from(knowledgeBases).where(eq(knowledgeBases.id, knowledgeBaseId)).for('update');
      return rows.length > 0;
    },

    /** A later upload of the same name is ready already: this one is superseded. */
    async newerReadyNamesake(document: { id: string; knowledgeBaseId: string; name: string }): Promise<boolean> {
      const rows = await db
        .select({ id: knowledgeDocuments.id })
        .from(knowledgeDocuments)
        .where(
          and(
            eq(knowledgeDocuments.knowledgeBaseId, document.knowledgeBaseId),
            eq(knowledgeDocuments.name, document.name),
            eq(knowledgeDocuments.status, 'ready'),
            gt(knowledgeDocuments.id, document.id),
          ),
        )
        .limit(1);
      return rows.length > 0;
    },

    /** Deletes the earlier uploads of the same name (whatever their status), with their passages; their files' keys. */
    async deleteEarlierNamesakes(document: { id: string; knowledgeBaseId: string; name: string }): Promise<string[]> {
      const rows = await db
        .delete(knowledgeDocuments)
        .where(
          and(
            eq(knowledgeDocuments.knowledgeBaseId, document.knowledgeBaseId),
            eq(knowledgeDocuments.name, document.name),
            lt(knowledgeDocuments.id, document.id),
          ),
        )
        .returning({ fileKey: knowledgeDocuments.fileKey });
      return rows.flatMap((row) => (row.fileKey === null ? [] : [row.fileKey]));
    },

    /** `processing` → `ready` or `failed`, the file forgotten; false when the document is gone or was settled already. */
    async settle(documentId: string, outcome: { status: 'ready'; passageCount: number } | { status: 'failed'; error: string }, now: Date): Promise<boolean> {
      const rows = await db
        .update(knowledgeDocuments)
        .set({
          status: outcome.status,
          error: outcome.status === 'failed' ? outcome.error : null,
          passageCount: outcome.status === 'ready' ? outcome.passageCount : 0,
          fileKey: null,
          updatedAt: now,
        })
        .where(and(eq(knowledgeDocuments.id, documentId), eq(knowledgeDocuments.status, 'processing')))
        .returning({ id: knowledgeDocuments.id });
      return rows.length > 0;
    },

    /** Deletes a document that a later upload of its name superseded while it was parsed. */
    async deleteById(documentId: string): Promise<void> {
      await db.delete(knowledgeDocuments).where(eq(knowledgeDocuments.id, documentId));
    },

    ...createPassagesStore(db),
  };
}

export type DocumentsStore = ReturnType<typeof createDocumentsStore>;
