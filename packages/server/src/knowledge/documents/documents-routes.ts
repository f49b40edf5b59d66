// Console routes of knowledge-base documents: one service call each, always for the logged-in account. The upload
// takes one file in the multipart field `file`, streamed to disk within 20 MB (uploads.ts), in a scope of its own.
import { DOCUMENT_MAX_BYTES, documentRoutes } from '@parley/contracts';
import { Errors } from '../../errors.ts';
import type { FileStorage } from '../../files/file-storage.ts';
import type { DocumentsService } from './documents-service.ts';
import { createUploadReader, registerUploads, type UploadLimits } from '../../http/public/uploads.ts';
import { routeOptions, type TypedApp } from '../../http/route-options.ts';
import { consoleAccountOf } from '../../http/console/console-plugin.ts';
import { auditOf } from '../../audit/audit-context.ts';

const DOCUMENT_UPLOADS: UploadLimits = {
  field: 'file',
  maxFiles: 1,
  maxFileBytes: DOCUMENT_MAX_BYTES,
  tooLarge: Errors.documentTooLarge,
  tooMany: Errors.tooManyDocumentFiles,
};

export function registerDocumentRoutes(app: TypedApp, documents: DocumentsService, storage: Pick<FileStorage, 'incomingPath'>): void {
  void app.register(async (scope) => {
    await registerUploads(scope, DOCUMENT_UPLOADS);
    const api: TypedApp = scope.withTypeProvider();
    api.route({
      ...routeOptions(documentRoutes.uploadDocument),
      preValidation: createUploadReader(storage, DOCUMENT_UPLOADS),
      handler: async (request, reply) => {
        const uploaded = await documents.upload(consoleAccountOf(request).accountId, request.params.id, request.uploads, auditOf(request));
        return reply.code(201).send(uploaded);
      },
    });
  });
  app.route({
    ...routeOptions(documentRoutes.listDocuments),
    handler: (request) => documents.list(consoleAccountOf(request).accountId, request.params.id),
  });
  app.route({
    ...routeOptions(documentRoutes.deleteDocument),
    handler: (request) => documents.remove(consoleAccountOf(request).accountId, request.params.id, request.params.docId, auditOf(request)),
  });
}
