// GET /files/:key/:name: attachments served back to whoever holds the link (webhook payloads carry it). No
// authentication: the unguessable key is the secret; the name must match too, so a key alone is not a URL.
import type { FastifyPluginAsync } from 'fastify';
import type { FileStorage } from './file-storage.ts';

/** Types a browser may show in place; anything else downloads, so nothing HTML-like ever renders from our origin. */
function isInline(contentType: string): boolean {
  return (
    /^(image\/(jpeg|png|gif|webp)|audio\/[\w.+-]+|video\/[\w.+-]+|application\/pdf|text\/plain)$/.test(contentType)
  );
}

/** RFC 8187 `filename*`: percent-encoded UTF-8, with the characters encodeURIComponent leaves alone but the ABNF does not. */
function encodeFilename(name: string): string {
  return encodeURIComponent(name).replace(/['()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Stored text was checked to be UTF-8 (files/file-kinds.ts); without the charset a browser would guess. */
function contentTypeHeader(contentType: string): string {
  return contentType === 'text/plain' ? 'text/plain; charset=utf-8' : contentType;
}

const NOT_FOUND = { message: 'File not found', statusCode: 404 } as const;

export const filesPlugin: FastifyPluginAsync<{ storage: FileStorage }> = async (app, { storage }) => {
  // The name is a wildcard rather than `:name`: Fastify caps a named parameter at 100 characters, names are longer.
  app.get<{ Params: { key: string; '*': string } }>('/files/:key/*', async (request, reply) => {
    const file = await storage.open(request.params.key);
    if (!file) return reply.code(404).send(NOT_FOUND);
    if (file.name !== request.params['*']) {
      file.stream.destroy();
      return reply.code(404).send(NOT_FOUND);
    }
    return reply
      .header('content-type', contentTypeHeader(file.contentType))
      .header('content-length', file.size)
      .header('content-disposition', `${isInline(file.contentType) ? 'inline' : 'attachment'}; filename*=UTF-8''${encodeFilename(file.name)}`)
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', 'private, max-age=31536000, immutable')
      .send(file.stream);
  });
};
