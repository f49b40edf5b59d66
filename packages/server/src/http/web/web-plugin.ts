// The web account (docs/architecture.md, Web account): packages/web/dist served at `/`, with a history fallback for the
// app's own paths only (never the API surfaces, the widget or the messenger webhooks). Hashed assets are
// immutable; index.html is revalidated on every load. The pages may not be framed and run no inline script.
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';

export interface WebOptions {
  /** The built app (packages/web/dist); when missing, `/` says how to build it. */
  distDir: string;
}

/** The app's client-side routes: these paths (and below) get index.html. */
export const WEB_APP_PATHS = ['/', '/login', '/overview', '/inbox', '/reports', '/channels', '/knowledge-bases', '/deliveries', '/crm', '/actions', '/team', '/saved-replies', '/invite', '/profile', '/forgot-password', '/reset-password', '/settings'] as const;

export const WEB_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob: https: http:",
  "media-src 'self' blob: https: http:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

function pageHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', WEB_CSP)
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin');
}

export const webApp: FastifyPluginAsync<WebOptions> = async (app, { distDir }) => {
  let index: Buffer | undefined;
  const assets = new Map<string, { body: Buffer; type: string }>();
  try {
    index = await readFile(path.join(distDir, 'index.html'));
    for (const name of await readdir(path.join(distDir, 'assets'))) {
      assets.set(name, { body: await readFile(path.join(distDir, 'assets', name)), type: TYPES[path.extname(name)] ?? 'application/octet-stream' });
    }
  } catch {
    app.log.warn({ distDir }, 'the web account is not built (npm install or npm start builds it)');
  }

  const sendIndex = async (_request: unknown, reply: FastifyReply) => {
    pageHeaders(reply).header('cache-control', 'no-cache');
    if (!index) return reply.code(503).type('text/plain; charset=utf-8').send('The web account is not built: run npm install.');
    return reply.type('text/html; charset=utf-8').send(index);
  };
  for (const base of WEB_APP_PATHS) {
    app.get(base, sendIndex);
    if (base !== '/') app.get(`${base}/*`, sendIndex);
  }

  app.get<{ Params: { name: string } }>('/assets/:name', async (request, reply) => {
    const asset = assets.get(request.params.name);
    if (!asset) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    return pageHeaders(reply).header('cache-control', 'public, max-age=31536000, immutable').type(asset.type).send(asset.body);
  });
};
