// multipart/form-data for send-message-universal: the text fields become the body (validated by the same
// schema as JSON), the `files` parts are streamed to disk within the spec's limits (10 files, 10 MB each): a file
// past 10 MB is refused (413) as soon as its 10 MB are passed, and the connection is closed so the rest is not
// read. A malformed body is a 400 naming the problem, never a 500. Other routes that take files (a knowledge-base
// document: one `file` of 20 MB) pass their own limits.
import { createWriteStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import { MAX_FILE_BYTES, MAX_FILES } from '@parley/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest, preValidationAsyncHookHandler } from 'fastify';
import { DomainError, Errors } from '../../errors.ts';
import type { FileStorage, Upload } from '../../files/file-storage.ts';
import { unstorableText } from '../validation.ts';

declare module 'fastify' {
  interface FastifyRequest {
    uploads: Upload[];
  }
}

/** Bytes of uploads being received at once by this process; past it new upload bytes are refused (503). */
export const MAX_CONCURRENT_UPLOAD_BYTES = 256 * 1024 * 1024;

/** What a route's multipart body may carry: files in the part `field`, each refused past `maxFileBytes`. */
export interface UploadLimits {
  field: string;
  maxFiles: number;
  maxFileBytes: number;
  tooLarge: () => DomainError;
  tooMany: () => DomainError;
}

/** send-message-universal's (spec, Files). */
export const MESSAGE_UPLOADS: UploadLimits = {
  field: 'files',
  maxFiles: MAX_FILES,
  maxFileBytes: MAX_FILE_BYTES,
  tooLarge: Errors.fileTooLarge,
  tooMany: Errors.tooManyFiles,
};

export async function registerUploads(app: FastifyInstance, limits: UploadLimits = MESSAGE_UPLOADS): Promise<void> {
  app.decorateRequest('uploads', undefined as unknown as Upload[]);
  // One more file than allowed is let through the parser so the 11th is a 400 of ours, not its 413.
  await app.register(multipart, {
    limits: { fileSize: limits.maxFileBytes, files: limits.maxFiles + 1, fields: 20, fieldSize: 64 * 1024, parts: limits.maxFiles + 21 },
  });
  // Files not moved into the store (a refused or ignored message) are removed once the answer is sent.
  app.addHook('onResponse', async (request) => {
    for (const upload of request.uploads ?? []) {
      if ('path' in upload) await unlink(upload.path).catch(() => undefined);
    }
  });
}

/** Errors of the multipart parser that describe the request, not the server: 400 (or 413 for a size limit). */
function clientError(error: unknown, limits: UploadLimits): DomainError | undefined {
  if (error instanceof DomainError) return error;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code === 'FST_REQ_FILE_TOO_LARGE') return limits.tooLarge();
  if (code === 'FST_FILES_LIMIT') return limits.tooMany();
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') return Errors.malformedMultipart('too many parts');
  if (code === 'FST_PROTO_VIOLATION') return Errors.multipartField('prototype property is not allowed as field name');
  if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE') return Errors.malformedMultipart('not multipart/form-data');
  // busboy's own parse errors ("Unexpected end of form", "Multipart: Boundary not found", "Malformed part
  // header", …) and a request that ended early.
  if (typeof message === 'string' && (code === undefined || code === 'FST_PREMATURE_CLOSE' || code === 'ERR_STREAM_PREMATURE_CLOSE')) {
    return Errors.malformedMultipart(message.replace(/^Multipart: /, '').toLowerCase() || 'cannot be parsed');
  }
  return undefined;
}

/** The preValidation hook of a route that takes files: a multipart request's fields become `request.body`. */
export function createUploadReader(storage: Pick<FileStorage, 'incomingPath'>, limits: UploadLimits = MESSAGE_UPLOADS): preValidationAsyncHookHandler {
  let bytesInFlight = 0;

  async function receive(part: { file: NodeJS.ReadableStream & { truncated?: boolean } }, counted: { bytes: number }): Promise<string> {
    const target = await storage.incomingPath();
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        if (bytesInFlight + chunk.length > MAX_CONCURRENT_UPLOAD_BYTES) return done(Errors.uploadsBusy());
        bytesInFlight += chunk.length;
        counted.bytes += chunk.length;
        done(null, chunk);
      },
    });
    // busboy would read (and drop) the rest of an oversized file before ending the part: stop at the limit.
    part.file.once('limit', () => meter.destroy(limits.tooLarge()));
    try {
      await pipeline(part.file, meter, createWriteStream(target, { flags: 'wx', mode: 0o600 }));
    } catch (error) {
      await unlink(target).catch(() => undefined);
      throw error;
    }
    if (part.file.truncated) {
      await unlink(target).catch(() => undefined);
      throw limits.tooLarge();
    }
    return target;
  }

  return async function readMultipart(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    request.uploads = [];
    if (!request.isMultipart()) return;
    const fields: Record<string, string> = {};
    const counted = { bytes: 0 };
    try {
      for await (const part of request.parts()) {
        if (part.type === 'file') {
          if (part.fieldname !== limits.field) throw Errors.multipartField(`property ${part.fieldname} should not exist`);
          if (request.uploads.length === limits.maxFiles) throw limits.tooMany();
          const unstorable = unstorableText(part.filename);
          if (unstorable) throw Errors.multipartField(`${limits.field}: the file name ${unstorable}`);
          const path = await receive(part, counted);
          request.uploads.push({ name: part.filename, path, size: counted.bytes, contentType: part.mimetype });
          counted.bytes = 0;
        } else {
          if (part.fieldname in fields) throw Errors.multipartField(`${part.fieldname} must be given once`);
          fields[part.fieldname] = String(part.value);
        }
      }
    } catch (error) {
      const refused = clientError(error, limits);
      if (!refused) throw error;
      // The rest of the body is not read: the connection closes after the answer.
      reply.header('connection', 'close');
      throw refused;
    } finally {
      bytesInFlight -= counted.bytes;
      for (const upload of request.uploads) if ('size' in upload) bytesInFlight -= upload.size;
    }
    request.body = fields;
  };
}
