// Documents of a knowledge base: a file (PDF, DOCX, Markdown, plain text, HTML) parsed in the background into
// passages, which the openai-compatible engine is given with the best entries.
import { Type, type Static } from 'typebox';
import { ErrorBody } from '../errors.ts';
import { route } from '../route.ts';
import { object, stringEnum } from '../schema.ts';
import { ConsoleErrors, Uuid } from './common.ts';

/** The largest document accepted (413 above). */
export const DOCUMENT_MAX_BYTES = 20 * 1024 * 1024;

export const DOCUMENT_KINDS = ['pdf', 'docx', 'markdown', 'text', 'html'] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

/** The extensions (lower case, without the dot) and content types of each kind, as an upload names it. */
export const DOCUMENT_TYPES: Readonly<Record<DocumentKind, { extensions: readonly string[]; contentTypes: readonly string[] }>> = {
  pdf: { extensions: ['pdf'], contentTypes: ['application/pdf'] },
  docx: { extensions: ['docx'], contentTypes: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'] },
  markdown: { extensions: ['md', 'markdown'], contentTypes: ['text/markdown'] },
  text: { extensions: ['txt', 'text'], contentTypes: ['text/plain'] },
  html: { extensions: ['html', 'htm'], contentTypes: ['text/html'] },
};

export const DOCUMENT_STATUSES = ['processing', 'ready', 'failed'] as const;

export const KnowledgeDocument = object({
  id: Type.String(),
  name: Type.String({ description: 'the file name as uploaded; uploading the same name again replaces the document' }),
  kind: stringEnum(DOCUMENT_KINDS),
  status: stringEnum(DOCUMENT_STATUSES, { description: '`processing` until parsed; `failed` with `error`' }),
  passages: Type.Integer({ minimum: 0, description: 'passages the document was split into' }),
  error: Type.Optional(Type.String({ description: 'why the document could not be used (status `failed`)' })),
});
export type KnowledgeDocument = Static<typeof KnowledgeDocument>;

export const UploadedDocument = object({
  id: Type.String(),
  name: Type.String(),
  kind: stringEnum(DOCUMENT_KINDS),
  status: stringEnum(['processing', 'ready'] as const),
});
export type UploadedDocument = Static<typeof UploadedDocument>;

const KbParams = object({ id: Uuid });

export const documentRoutes = {
  uploadDocument: route({
    method: 'POST',
    url: '/knowledge-bases/:id/documents',
    operationId: 'uploadDocument',
    role: 'admin',
    summary: 'Upload a document (PDF, DOCX, Markdown, plain text, HTML) to a knowledge base',
    description:
      '`multipart/form-data` with one file in the field `file`, up to 20 MB (413 above). Its type is named by its extension ' +
      '(`.pdf`, `.docx`, `.md`, `.markdown`, `.txt`, `.text`, `.html`, `.htm`) or, without one, its part\'s content type; any ' +
      'other is a 400 listing these. The file is parsed in the background (`status` `processing`): list the documents to see ' +
      'it `ready`, or `failed` with a sentence saying why (a file whose content is not what its name says, an encrypted or ' +
      'empty PDF, a file the parser cannot read). A document of the same name in the base is replaced once the new one is ' +
      'ready: its passages give way to the new ones at once.',
    tags: ['Knowledge bases'],
    consumes: ['multipart/form-data'],
    files: {
      field: 'file',
      maxFiles: 1,
      contentTypes: Object.values(DOCUMENT_TYPES).flatMap((type) => type.contentTypes),
      description: 'One file of at most 20 MB: PDF, DOCX, Markdown, plain text or HTML.',
    },
    schema: {
      params: KbParams,
      response: { 201: UploadedDocument, ...ConsoleErrors, 413: ErrorBody, 503: ErrorBody },
    },
  }),
  listDocuments: route({
    method: 'GET',
    url: '/knowledge-bases/:id/documents',
    operationId: 'listDocuments',
    role: 'agent',
    summary: 'Documents of a knowledge base, newest first, with their status and passages',
    tags: ['Knowledge bases'],
    schema: { params: KbParams, response: { 200: object({ documents: Type.Array(KnowledgeDocument) }), ...ConsoleErrors } },
  }),
  deleteDocument: route({
    method: 'DELETE',
    url: '/knowledge-bases/:id/documents/:docId',
    operationId: 'deleteDocument',
    role: 'admin',
    summary: 'Delete a document with its passages',
    tags: ['Knowledge bases'],
    schema: { params: object({ id: Uuid, docId: Uuid }), response: { 200: object({ success: Type.Literal(true) }), ...ConsoleErrors } },
  }),
} as const;
