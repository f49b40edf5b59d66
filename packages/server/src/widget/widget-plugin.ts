// The chat widget's HTTP side (docs/architecture.md, Chat widget; mount points `/widget.js` and `/widget/…`): the loader
// script, the frame page (its `frame-ancestors` limited to the channel's allowed origins) and its bundle, and the
// visitor API at `/widget/v1` with its live WebSocket and OpenAPI document. `@fastify/websocket` is registered
// once, at the root (app.ts): every registration adds its own `upgrade` handler to the one HTTP server.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument, ErrorBody, widgetRoutes } from '@parley/contracts';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, preValidationAsyncHookHandler } from 'fastify';
import type { WebSocket } from 'ws';
import { widgetSettingsOf } from '../channels/channels-service.ts';
import { normalizeOrigin } from '../channels/origins.ts';
import type { WidgetService } from './widget-service.ts';
import type { EmbedAttempts } from './embed-attempts.ts';
import type { WidgetStore } from './widget-store.ts';
import type { TypingFeed } from '../events/typing.ts';
import { Errors } from '../errors.ts';
import type { LiveFeed } from '../events/live-feed.ts';
import { VERSION } from '../http/docs.ts';
import { registerUploads } from '../http/public/uploads.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import { serveLive } from './widget-live.ts';

/** The visitor API's own OpenAPI document (`/widget/v1/openapi.json`). */
export function widgetApiDocument() {
  return buildOpenApiDocument(Object.values(widgetRoutes), {
    info: {
      title: 'Parley chat widget visitor API',
      version: VERSION,
      description:
        'What the widget frame calls. `POST /session` returns a visitor token; every other call sends it as ' +
        '`Authorization: Bearer <token>`. Live stream: a WebSocket at `/widget/v1/live`; the first frame is ' +
        '`{"type":"auth","token":"…","conversation":"<id; default the newest>","after":"<last message id the frame has>"}`, then the server sends `{"type":"ready"}`, ' +
        'every message since `after` and each new one as `{"type":"message","message":{…}}`, and `{"type":"typing","typing":true|false}` ' +
        'when the agent starts and stops preparing a reply; `{"type":"ping"}` is ' +
        'answered with `{"type":"pong"}`. A refused token gets `{"type":"error",…}` and the socket is closed.',
    },
    serverUrl: '/widget/v1',
    security: { name: 'visitorToken', scheme: { type: 'http', scheme: 'bearer', description: 'the token of POST /session' } },
    errorBody: ErrorBody,
  });
}

/** Where packages/widget/build.mjs writes the loader and the frame app. */
export const WIDGET_DIST = fileURLToPath(new URL('../../../widget/dist/', import.meta.url));

export interface WidgetPluginOptions {
  widget: WidgetService;
  embedAttempts: Pick<EmbedAttempts, 'check'>;
  store: Pick<WidgetStore, 'findChannel'>;
  liveFeed: Pick<LiveFeed, 'subscribe'>;
  typing: Pick<TypingFeed, 'subscribe' | 'subscribeEnded'>;
  /** Open live connections (closed with 1001 when the app closes, so frames reconnect at once elsewhere). */
  connections: Set<WebSocket>;
  /** PUBLIC_URL: the frame's own origin. */
  publicUrl: string;
  /** Reads a visitor's files like send-message-universal's (http/public/uploads.ts). */
  readUploads: preValidationAsyncHookHandler;
  distDir?: string;
}

const ASSETS: Record<string, { file: string; type: string }> = {
  '/widget.js': { file: 'loader.js', type: 'text/javascript; charset=utf-8' },
  '/widget/frame.js': { file: 'frame.js', type: 'text/javascript; charset=utf-8' },
  '/widget/frame.css': { file: 'frame.css', type: 'text/css; charset=utf-8' },
};

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/** The frame page; `data-origins` lists the embedding origins the frame accepts messages (and the token) from. */
const frameHtml = (origins: readonly string[]) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Chat</title>
<link rel="stylesheet" href="/widget/frame.css">
</head>
<body>
<div id="app" data-origins="${escapeHtml(origins.join(' '))}"></div>
<script src="/widget/frame.js"></script>
</body>
</html>
`;

/**
 * Requests from a browser carry `Origin`: it must be this server (the frame) or a page allowed to embed the
 * channel. Requests without one (servers, curl) are judged by their token alone.
 */
function checkRequestOrigin(request: FastifyRequest, allowed: readonly string[], ownOrigin: string | undefined): void {
  const header = request.headers.origin;
  if (header === undefined) return;
  const origin = normalizeOrigin(header);
  if (origin && isOwnOrigin(request, origin, ownOrigin)) return;
  if (!origin || !allowed.includes(origin)) throw Errors.widgetOriginNotAllowed();
}

/** The frame's origin: PUBLIC_URL's, or the Host the request came to (a proxy may rewrite one of them). */
function isOwnOrigin(request: FastifyRequest, origin: string, ownOrigin: string | undefined): boolean {
  return origin === ownOrigin || new URL(origin).host === request.headers.host;
}

export const widgetPlugin: FastifyPluginAsync<WidgetPluginOptions> = async (fastify, options) => {
  const { widget, store, liveFeed, typing, connections } = options;
  const ownOrigin = normalizeOrigin(options.publicUrl);
  const checkOrigin = (request: FastifyRequest, allowed: readonly string[]) => checkRequestOrigin(request, allowed, ownOrigin);
  const distDir = options.distDir ?? WIDGET_DIST;
  const app: TypedApp = fastify.withTypeProvider();
  app.addHook('preClose', async () => {
    for (const socket of connections) socket.close(1001, 'server shutting down');
  });

  const cache = new Map<string, Buffer>();
  const serveAsset = async (url: string, reply: FastifyReply) => {
    const asset = ASSETS[url];
    if (!asset) throw new Error(`no asset ${url}`);
    let body = cache.get(asset.file);
    if (!body) {
      try {
        body = await readFile(`${distDir}${asset.file}`);
      } catch {
        return reply.code(503).type('text/plain').send('The chat widget is not built: run npm install (or node packages/widget/build.mjs).');
      }
      cache.set(asset.file, body);
    }
    return reply.type(asset.type).header('cache-control', 'public, max-age=300').header('x-content-type-options', 'nosniff').send(body);
  };
  for (const url of Object.keys(ASSETS)) app.get(url, (_request, reply) => serveAsset(url, reply));

  // The frame page: the browser itself refuses to show it inside a page whose origin the channel does not allow.
  app.get('/widget/frame', async (request, reply) => {
    const channelId = (request.query as Record<string, unknown>).channel;
    const channel = typeof channelId === 'string' && channelId.length <= 200 ? await store.findChannel(channelId) : undefined;
    if (!channel) return reply.code(404).type('text/plain').send('Chat widget not found');
    const origins = widgetSettingsOf(channel).allowedOrigins;
    const csp = [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self' 'unsafe-inline'",
      "connect-src 'self'",
      "img-src 'self' data: blob:",
      "media-src 'self' blob:",
      "base-uri 'none'",
      "form-action 'none'",
      `frame-ancestors ${origins.length > 0 ? origins.join(' ') : "'none'"}`,
    ].join('; ');
    return reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', csp)
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .send(frameHtml(origins));
  });

  const documentBody = JSON.stringify(widgetApiDocument());
  app.get('/widget/v1/openapi.json', (_request, reply) => reply.type('application/json').send(documentBody));

  await app.register(async (scope) => {
    const api: TypedApp = scope.withTypeProvider();
    await registerUploads(scope);

    api.route({
      ...routeOptions(widgetRoutes.checkEmbed),
      handler: async (request, reply) => {
        // Asked by the loader from the host page: readable there (no credentials, nothing secret in the answer).
        void reply.header('access-control-allow-origin', '*').header('cache-control', 'no-store');
        const channel = await store.findChannel(request.query.channel);
        if (!channel) throw Errors.channelNotFound();
        return options.embedAttempts.check(channel, request.headers.origin ?? request.query.origin);
      },
    });
    api.route({
      ...routeOptions(widgetRoutes.startSession),
      handler: async (request) => {
        const channel = await store.findChannel(request.body.channelId);
        if (channel) checkOrigin(request, widgetSettingsOf(channel).allowedOrigins);
        return widget.startSession(request.body, request.ip);
      },
    });
    api.route({
      ...routeOptions(widgetRoutes.listMessages),
      handler: async (request) => {
        const context = await widget.authenticate(request.headers.authorization);
        checkOrigin(request, context.settings.allowedOrigins);
        return widget.history(context, await widget.conversationOf(context, request.query.conversation), request.query.after);
      },
    });
    api.route({
      ...routeOptions(widgetRoutes.sendMessage),
      preValidation: options.readUploads,
      handler: async (request, reply) => {
        const context = await widget.authenticate(request.headers.authorization);
        checkOrigin(request, context.settings.allowedOrigins);
        const conversation = await widget.conversationOf(context, request.query.conversation);
        return reply.code(201).send(await widget.send(context, conversation, request.body.text, request.uploads));
      },
    });
    api.route({
      ...routeOptions(widgetRoutes.rateConversation),
      handler: async (request) => {
        const context = await widget.authenticate(request.headers.authorization);
        checkOrigin(request, context.settings.allowedOrigins);
        return widget.rate(context, await widget.conversationOf(context, request.query.conversation), request.body);
      },
    });
    api.route({
      ...routeOptions(widgetRoutes.listConversations),
      handler: async (request) => {
        const context = await widget.authenticate(request.headers.authorization);
        checkOrigin(request, context.settings.allowedOrigins);
        return widget.listConversations(context);
      },
    });
    api.route({
      ...routeOptions(widgetRoutes.newConversation),
      handler: async (request, reply) => {
        const context = await widget.authenticate(request.headers.authorization);
        checkOrigin(request, context.settings.allowedOrigins);
        return reply.code(201).send(await widget.newConversation(context));
      },
    });
    api.route({
      ...routeOptions(widgetRoutes.updateVisitor),
      handler: async (request) => {
        const context = await widget.authenticate(request.headers.authorization);
        checkOrigin(request, context.settings.allowedOrigins);
        return widget.updateDetails(context, request.body);
      },
    });
    scope.get('/live', { websocket: true }, (socket, request) => {
      const origin = request.headers.origin;
      const parsed = origin === undefined ? undefined : normalizeOrigin(origin);
      // Only the frame (this server's own origin) opens the stream from a browser.
      if (origin !== undefined && (!parsed || !isOwnOrigin(request, parsed, ownOrigin))) {
        socket.close(4403, 'origin not allowed');
        return;
      }
      connections.add(socket);
      socket.on('close', () => connections.delete(socket));
      serveLive(socket, { widget, liveFeed, typing, logger: request.log });
    });
  }, { prefix: '/widget/v1' });
};
