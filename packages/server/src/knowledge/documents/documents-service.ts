// Documents of a knowledge base as the console manages them, and the job that parses one. An upload is moved into
// the file store and a `knowledge.parseDocument` job queued with its row, in one transaction; the job parses it in
// a bounded worker (document-parser.ts) and, in one transaction, stores its passages, marks it ready and deletes
// the earlier uploads of its name: questions see the old passages or the new ones, never both or neither.
import { DOCUMENT_MAX_BYTES, DOCUMENT_TYPES, type DocumentKind, type KnowledgeDocument, type UploadedDocument } from '@parley/contracts';
import type { FastifyBaseLogger } from 'fastify';
import { recordAudit, type AuditContext } from '../../audit/audit-record.ts';
import type { Database, Executor } from '../../db/client.ts';
import { Errors } from '../../errors.ts';
import { safeFileName } from '../../files/file-kinds.ts';
import type { FileStorage, Upload } from '../../files/file-storage.ts';
import type { JobQueue, JobRun } from '../../jobs/job-queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { KnowledgeStore } from '../knowledge-store.ts';
import type { DocumentParser } from './document-parser.ts';
import type { DocumentsStore } from './documents-store.ts';
import type { Passage } from './passages.ts';

/** The accepted types, as a 400 lists them. */
export const ACCEPTED_DOCUMENTS = 'PDF (.pdf), DOCX (.docx), Markdown (.md, .markdown), plain text (.txt, .text), HTML (.html, .htm)';

/**
 * The kind an upload claims to be: its extension, or without one its part's content type; undefined when neither
 * names an accepted kind. What the bytes are is the parse job's to find out (a mismatch fails the document).
 */
export function claimedKind(name: string, contentType: string | undefined): { kind: DocumentKind; extension: string } | undefined {
  const base = name.split(/[/\\]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  const extension = dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
  const kinds = Object.entries(DOCUMENT_TYPES) as [DocumentKind, (typeof DOCUMENT_TYPES)[DocumentKind]][];
  if (extension) {
    const found = kinds.find(([, type]) => type.extensions.includes(extension));
    return found && { kind: found[0], extension };
  }
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  const found = kinds.find(([, types]) => type !== undefined && types.contentTypes.includes(type));
  return found && { kind: found[0], extension: found[1].extensions[0] ?? found[0] };
}

/** Also the sign of processes on one database with separate DATA_DIRs (files/file-store-identity.ts). */
export const FILE_MISSING =
  'The uploaded file is no longer in the file store; upload it again. (Parley processes sharing a database must share DATA_DIR, or keep files in object storage.)';

export interface DocumentsServiceDeps {
  db: Database;
  storeOf: (executor: Executor) => DocumentsStore;
  knowledgeStoreOf: (executor: Executor) => Pick<KnowledgeStore, 'findBaseLanguage' | 'bumpEntriesVersion'>;
  files: Pick<FileStorage, 'putFile' | 'open' | 'remove'>;
  jobs: Pick<JobQueue, 'enqueue' | 'wake'>;
  parser: Pick<DocumentParser, 'parse'>;
  clock: Clock;
  logger: FastifyBaseLogger;
}

type DocumentRow = NonNullable<Awaited<ReturnType<DocumentsStore['findDocument']>>>;

function toDocument(row: DocumentRow): KnowledgeDocument {
  return {
    id: row.id,
    name: row.name,
    // The table's check constraints admit only these values.
    kind: row.kind as DocumentKind,
    status: row.status as KnowledgeDocument['status'],
    passages: row.passageCount,
    ...(row.status === 'failed' && row.error ? { error: row.error } : {}),
  };
}

export function createDocumentsService(deps: DocumentsServiceDeps) {
  const { db, storeOf, knowledgeStoreOf, files, jobs, parser, clock, logger } = deps;
  const store = storeOf(db);

  async function requireBase(accountId: string, knowledgeBaseId: string): Promise<void> {
    if ((await knowledgeStoreOf(db).findBaseLanguage(accountId, knowledgeBaseId)) === undefined) throw Errors.knowledgeBaseNotFound();
  }

  /** Files no document refers to any more; a failure leaves a stray file, never a failed request. */
  async function removeFiles(keys: readonly (string | null)[]): Promise<void> {
    for (const key of keys) {
      if (key) await files.remove(key).catch((error: unknown) => logger.warn({ err: error, key }, 'removing a document file failed'));
    }
  }

  /** The bytes of a stored upload, or undefined when the store has lost it. */
  async function readFile(key: string): Promise<Buffer | undefined> {
    const file = await files.open(key);
    if (!file) return undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of file.stream) {
      size += (chunk as Buffer).length;
      // Uploads are refused past the limit: a larger file here is not one of them.
      if (size > DOCUMENT_MAX_BYTES) {
        file.stream.destroy();
        return undefined;
      }
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks);
  }

  async function fail(document: DocumentRow, error: string): Promise<void> {
    if (await store.settle(document.id, { status: 'failed', error }, clock.now())) await removeFiles([document.fileKey]);
  }

  /** Stores the passages and swaps them in for the earlier uploads of the name, in one transaction. */
  async function complete(document: DocumentRow, passages: Passage[]): Promise<void> {
    const unused = await db.transaction(async (tx) => {
      const txStore = storeOf(tx);
      // One swap per base at a time: two uploads of a name never both stay.
      if (!(await txStore.lockBase(document.knowledgeBaseId))) return [];
      const current = await txStore.findDocument(document.id);
      if (!current || current.status !== 'processing') return [];
      // A later upload of the name is in place already: this one gives way.
      if (await txStore.newerReadyNamesake(document)) {
        await txStore.deleteById(document.id);
        return [document.fileKey];
      }
      const earlier = await txStore.deleteEarlierNamesakes(document);
      await txStore.insertPassages(document, passages, newId);
      await txStore.settle(document.id, { status: 'ready', passageCount: passages.length }, clock.now());
      await knowledgeStoreOf(tx).bumpEntriesVersion(document.knowledgeBaseId);
      const payload = { knowledgeBaseId: document.knowledgeBaseId, documentId: document.id };
      await jobs.enqueue(tx, 'knowledge.embedDocument', payload, { key: `knowledge.embedDocument:${document.id}` });
      return [...earlier, document.fileKey];
    });
    jobs.wake();
    await removeFiles(unused);
  }

  return {
    async upload(accountId: string, knowledgeBaseId: string, uploads: readonly Upload[], audit: AuditContext): Promise<UploadedDocument> {
      const upload = uploads[0];
      if (!upload || !('path' in upload)) throw Errors.documentFileMissing();
      const claimed = claimedKind(upload.name, upload.contentType);
      if (!claimed) throw Errors.documentTypeNotAccepted(upload.name.slice(0, 200) || '(no name)', ACCEPTED_DOCUMENTS);
      await requireBase(accountId, knowledgeBaseId);
      const name = safeFileName(upload.name, claimed.extension);
      const stored = await files.putFile(upload.path, { contentType: DOCUMENT_TYPES[claimed.kind].contentTypes[0] ?? 'application/octet-stream', name });
      const id = newId();
      const document = await db.transaction(async (tx) => {
        const inserted = await storeOf(tx).insertDocument(accountId, {
          id,
          knowledgeBaseId,
          name,
          kind: claimed.kind,
          fileKey: stored.key,
          size: stored.size,
          now: clock.now(),
        });
        if (inserted) {
          await jobs.enqueue(tx, 'knowledge.parseDocument', { knowledgeBaseId, documentId: id }, { key: `knowledge.parseDocument:${id}` });
          await recordAudit(tx, audit, {
            accountId,
            kind: 'document.added',
            target: { type: 'document', id, name },
            changes: { knowledgeBaseId: [null, knowledgeBaseId], kind: [null, claimed.kind], size: [null, stored.size] },
          });
        }
        return inserted;
      });
      if (!document) {
        // The base was deleted meanwhile.
        await removeFiles([stored.key]);
        throw Errors.knowledgeBaseNotFound();
      }
      jobs.wake();
      return { id: document.id, name: document.name, kind: claimed.kind, status: 'processing' };
    },

    async list(accountId: string, knowledgeBaseId: string): Promise<{ documents: KnowledgeDocument[] }> {
      await requireBase(accountId, knowledgeBaseId);
      return { documents: (await store.listDocuments(accountId, knowledgeBaseId)).map(toDocument) };
    },

    async remove(accountId: string, knowledgeBaseId: string, documentId: string, audit: AuditContext): Promise<{ success: true }> {
      await requireBase(accountId, knowledgeBaseId);
      const deleted = await db.transaction(async (tx) => {
        const row = await storeOf(tx).deleteDocument(accountId, knowledgeBaseId, documentId);
        if (row) {
          await recordAudit(tx, audit, {
            accountId,
            kind: 'document.deleted',
            target: { type: 'document', id: documentId, name: row.name },
            changes: { knowledgeBaseId: [knowledgeBaseId, null] },
          });
        }
        return row;
      });
      if (!deleted) throw Errors.documentNotFound();
      // Its passages leave every process's copy of the base.
      if (deleted.passageCount > 0) await knowledgeStoreOf(db).bumpEntriesVersion(knowledgeBaseId);
      await removeFiles([deleted.fileKey]);
      return { success: true };
    },

    /**
     * The parse job. What the file is, what it says and how it splits is the worker's; a document that cannot be used
     * ends `failed` with the worker's sentence. A failure of the server itself (the database) is retried, and the
     * last try fails the document: none stays `processing`.
     */
    async parse({ documentId }: { documentId: string }, run: JobRun): Promise<void> {
      const document = await store.findDocument(documentId);
      if (!document || document.status !== 'processing') return;
      try {
        const bytes = document.fileKey ? await readFile(document.fileKey) : undefined;
        if (!bytes) return await fail(document, FILE_MISSING);
        const result = await parser.parse(bytes, document.kind as DocumentKind);
        if ('error' in result) return await fail(document, result.error);
        await complete(document, result.passages);
      } catch (error) {
        if (run.lastAttempt) await fail(document, 'The document could not be processed because of a server error; upload it again.');
        throw error;
      }
    },
  };
}

export type DocumentsService = ReturnType<typeof createDocumentsService>;
