// multipart/form-data for send-message-universal: the text fields become the body (validated by the same
// schema as JSON), the `files` parts are read into memory within the spec's limits (10 files, 10 MB each).
import multipart from '@fastify/multipart';
import { MAX_FILE_BYTES, MAX_FILES } from '@parley/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Errors } from '../../errors.ts';
import type { Upload } from '../../files/file-storage.ts';


declare module 'fastify' {
  interface FastifyRequest {
    uploads: Upload[];
  }
}

export async function registerUploads(app: FastifyInstance): Promise<void> {
  app.decorateRequest('uploads', undefined as unknown as Upload[]);
  // One more file than allowed is let through the parser so the 11th is a 400 of ours, not its 413.
  await app.register(multipart, {
    limits: { fileSize: MAX_FILE_BYTES, files: MAX_FILES + 1, fields: 20, fieldSize: 64 * 1024, parts: MAX_FILES + 21 },
  });
}

function isFileTooLarge(error: unknown): boolean {
  return (error as { code?: unknown }).code === 'FST_REQ_FILE_TOO_LARGE';
}

/** preValidation of a route that takes files: a multipart request's fields become `request.body`. */
export async function readMultipart(request: FastifyRequest): Promise<void> {
  request.uploads = [];
  if (!request.isMultipart()) return;
  const fields: Record<string, string> = {};
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'files') throw Errors.multipartField(`property ${part.fieldname} should not exist`);
        if (request.uploads.length === MAX_FILES) throw Errors.tooManyFiles();
        request.uploads.push({ name: part.filename, bytes: await part.toBuffer() });
      } else {
        if (part.fieldname in fields) throw Errors.multipartField(`${part.fieldname} must be given once`);
        fields[part.fieldname] = String(part.value);
      }
    }
  } catch (error) {
    if (isFileTooLarge(error)) throw Errors.fileTooLarge();
    throw error;
  }
  request.body = fields;
}
