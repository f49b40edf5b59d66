// multipart/form-data for send-message-universal: the text fields become the body (validated by the same
// schema as JSON), the `files` parts are streamed to disk within the spec's limits (10 files, 10 MB each): a file
// past 10 MB is refused (413) as soon as its 10 MB are passed. A malformed body is a 400 naming the problem, never a
// 500. A reader receives at most 256 MB of uploads at once, counted by each body's declared size before it is read
// (503 with Retry-After, at once, past it). A refused body, from its headers or midway, is answered at once and its
// rest read and dropped for a bounded time and size (a lingering close), so a client still sending it reads the
// answer. Other routes that take files (a knowledge-base document, a replay: one `file` of 20 MB) pass their own
// limits.
import { open, unlink } from 'node:fs/promises';
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

/** Bytes of uploads being received at once by this process; past it new uploads are refused (503). */
export const MAX_CONCURRENT_UPLOAD_BYTES = 256 * 1024 * 1024;
/** `Retry-After` of the 503: about the time an admitted 100 MB upload takes on a fast link. */
const UPLOADS_BUSY_RETRY_SECONDS = 5;
/** An admitted body that sends nothing for this long loses its connection (it holds bytes others could use). */
export const UPLOAD_IDLE_MS = 20_000;

/**
 * One request's share of the process's upload bytes: a body with a Content-Length takes its declared size (at most
 * the most one request can carry) before any of it is read; a chunked body takes its bytes as they arrive.
 */
interface Admission {
  /** Counts `bytes` more of the request's files; false when the process has no room for them. */
  take(bytes: number): boolean;
  release(): void;
}

/** `perRequest`: the most file bytes one request can carry, what a declared body is counted for at most. */
function createUploadBudget(limit: number, perRequest: number) {
  let inUse = 0;
  const reserve = (bytes: number) => {
    if (inUse + bytes > limit) return false;
    inUse += bytes;
    return true;
  };
  return {
    /** Undefined when the declared size does not fit: the request is refused before its body is read. */
    admit(declared: number | undefined): Admission | undefined {
      let held = Math.min(declared ?? 0, perRequest);
      if (!reserve(held)) return undefined;
      let used = 0;
      return {
        take(bytes) {
          if (used + bytes > held) {
            if (!reserve(used + bytes - held)) return false;
            held = used + bytes;
          }
          used += bytes;
          return true;
        },
        release() {
          inUse -= held;
          held = 0;
        },
      };
    },
  };
}

/** The body size the request declares; undefined for a chunked body. */
function declaredSize(request: FastifyRequest): number | undefined {
  const length = Number(request.headers['content-length']);
  return request.headers['content-length'] !== undefined && Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}

/** How long, and how many bytes of it, the rest of a refused upload's body is read and dropped. */
export const UPLOAD_LINGER_MS = 10_000;
const UPLOAD_LINGER_SLACK_BYTES = 1024 * 1024;

/**
 * Lingering close of a refused upload: the rest of its body is read and dropped, so that a client still sending it
 * reads the answer (a connection closed under a client still sending is reset, and the reset throws away the answer
 * it has not read yet). A body that ends leaves the connection open for the next request; one still coming after
 * `UPLOAD_LINGER_MS` or `maxBytes` more loses its connection.
 */
function discardBody(request: FastifyRequest, maxBytes: number): void {
  const raw = request.raw;
  const socket = raw.socket;
  if (raw.readableEnded || raw.destroyed) return;
  // Refused midway, the body was piped into the multipart parser, whose unpiping paused it.
  raw.unpipe();
  const start = socket.bytesRead;
  const drop = () => {
    clearTimeout(timer);
    raw.off('data', count);
    socket.destroy();
  };
  const count = () => {
    if (socket.bytesRead - start > maxBytes) drop();
  };
  const timer = setTimeout(drop, UPLOAD_LINGER_MS);
  timer.unref();
  raw.on('data', count);
  raw.once('end', () => clearTimeout(timer));
  raw.once('close', () => clearTimeout(timer));
  raw.resume();
}

/** Closes the request's connection when no byte arrived on it for UPLOAD_IDLE_MS; the returned function stops watching. */
function dropWhenIdle(request: FastifyRequest): () => void {
  const socket = request.raw.socket;
  let seen = socket.bytesRead;
  const timer = setInterval(() => {
    if (socket.bytesRead === seen) {
      request.log.warn({ idleMs: UPLOAD_IDLE_MS }, 'upload sent nothing; connection closed');
      socket.destroy();
    }
    seen = socket.bytesRead;
  }, UPLOAD_IDLE_MS);
  timer.unref();
  return () => clearInterval(timer);
}

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
  // A callback hook: most requests carry no file, and pay no promise for it.
  app.addHook('onResponse', (request, _reply, done) => {
    const uploads = request.uploads;
    if (!uploads?.length) return done();
    const paths = uploads.flatMap((upload) => ('path' in upload ? [upload.path] : []));
    void Promise.all(paths.map((file) => unlink(file).catch(() => undefined))).then(() => done());
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

/**
 * The preValidation hook of a route that takes files: a multipart request's fields become `request.body`. Routes
 * given the same reader share its 256 MB of uploads at once.
 */
export function createUploadReader(storage: Pick<FileStorage, 'incomingPath'>, limits: UploadLimits = MESSAGE_UPLOADS): preValidationAsyncHookHandler {
  const budget = createUploadBudget(MAX_CONCURRENT_UPLOAD_BYTES, limits.maxFiles * limits.maxFileBytes);

  /** Streams one file to `.incoming`; its path and size. */
  async function receive(part: { file: NodeJS.ReadableStream & { truncated?: boolean } }, admission: Admission) {
    const target = await storage.incomingPath();
    let size = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        if (!admission.take(chunk.length)) return done(Errors.uploadsBusy());
        size += chunk.length;
        done(null, chunk);
      },
    });
    // busboy would read (and drop) the rest of an oversized file before ending the part: stop at the limit.
    part.file.once('limit', () => meter.destroy(limits.tooLarge()));
    // Created before the body is piped: a stream that opens its file itself can still be opening it when a body
    // that broke off at once fails the pipeline, and would create the file after the unlink below.
    const file = await open(target, 'wx', 0o600);
    try {
      await pipeline(part.file, meter, file.createWriteStream());
    } catch (error) {
      await unlink(target).catch(() => undefined);
      throw error;
    }
    if (part.file.truncated) {
      await unlink(target).catch(() => undefined);
      throw limits.tooLarge();
    }
    return { path: target, size };
  }

  return async function readMultipart(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    request.uploads = [];
    if (!request.isMultipart()) return;
    const admission = budget.admit(declaredSize(request));
    if (!admission) {
      // Refused from its headers: none of the body is stored; it is read and dropped while the answer goes out.
      reply.header('retry-after', String(UPLOADS_BUSY_RETRY_SECONDS));
      discardBody(request, limits.maxFiles * limits.maxFileBytes + UPLOAD_LINGER_SLACK_BYTES);
      throw Errors.uploadsBusy();
    }
    const stopWatching = dropWhenIdle(request);
    const fields: Record<string, string> = {};
    try {
      for await (const part of request.parts()) {
        if (part.type === 'file') {
          if (part.fieldname !== limits.field) throw Errors.multipartField(`property ${part.fieldname} should not exist`);
          if (request.uploads.length === limits.maxFiles) throw limits.tooMany();
          const unstorable = unstorableText(part.filename);
          if (unstorable) throw Errors.multipartField(`${limits.field}: the file name ${unstorable}`);
          request.uploads.push({ name: part.filename, contentType: part.mimetype, ...(await receive(part, admission)) });
        } else {
          if (part.fieldname in fields) throw Errors.multipartField(`${part.fieldname} must be given once`);
          fields[part.fieldname] = String(part.value);
        }
      }
    } catch (error) {
      const refused = clientError(error, limits);
      if (!refused) throw error;
      // Answered at once; the rest of the body is read and dropped meanwhile, nothing of it stored.
      discardBody(request, limits.maxFiles * limits.maxFileBytes + UPLOAD_LINGER_SLACK_BYTES);
      if (refused.status === 503) reply.header('retry-after', String(UPLOADS_BUSY_RETRY_SECONDS));
      throw refused;
    } finally {
      stopWatching();
      admission.release();
    }
    request.body = fields;
  };
}
