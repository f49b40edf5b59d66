// OpenAPI documents, generated from the contracts, and the interactive reference at /docs (assets served
// from the package itself: no CDN).
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import {
  adminRoutes,
  buildOpenApiDocument,
  consoleRoutes,
  DEMO_API_VERSION,
  DemoError,
  demoRoutes,
  ErrorBody,
  publicRoutes,
  RATE_LIMIT_HEADERS,
  RETRY_AFTER_HEADER,
  USER_LANG_HEADER,
  webhookDocs,
} from '@parley/contracts';
import type { FastifyPluginAsync } from 'fastify';
import type { OpenAPIV3 } from 'openapi-types';

export const VERSION = '1.0.0';

export function publicApiDocument() {
  return buildOpenApiDocument(Object.values(publicRoutes), {
    info: {
      title: 'Parley public chat-agent API',
      version: VERSION,
      description:
        'Chats, tags, messages and answer feedback. Send the API key in `Authorization` as is, without a `Bearer` prefix.',
    },
    serverUrl: '/api/v1',
    security: { name: 'apiKey', scheme: { type: 'apiKey', in: 'header', name: 'Authorization' } },
    errorBody: ErrorBody,
    // The gateway's rate limit (gateway.ts) answers every /api/v1 request, errors included.
    responseHeaders: RATE_LIMIT_HEADERS,
    statusHeaders: { 429: RETRY_AFTER_HEADER },
    webhooks: webhookDocs,
  });
}

export function adminApiDocument() {
  return buildOpenApiDocument(Object.values(adminRoutes), {
    info: { title: 'Parley operator API', version: VERSION },
    serverUrl: '/admin/v1',
    security: { name: 'adminToken', scheme: { type: 'http', scheme: 'bearer' } },
    errorBody: ErrorBody,
  });
}

export function consoleApiDocument() {
  return buildOpenApiDocument(consoleRoutes, {
    info: {
      title: 'Parley console API',
      version: VERSION,
      description: 'The web account\'s backend. Log in with `POST /auth/login`, then send `Authorization: Bearer <token>`; `UserLang` (en, ru) picks the language of error messages.',
    },
    serverUrl: '/console/v1',
    security: { name: 'bearer', scheme: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    errorBody: ErrorBody,
    requestHeaders: [USER_LANG_HEADER],
    // Per token (per address before login; the login itself 20 a minute per address): http/rate-limit.ts.
    responseHeaders: RATE_LIMIT_HEADERS,
    statusHeaders: { 429: RETRY_AFTER_HEADER },
    rateLimited: true,
  });
}

export function demoApiDocument() {
  return buildOpenApiDocument(Object.values(demoRoutes), {
    info: {
      title: 'Parley demo animal catalog',
      version: DEMO_API_VERSION,
      description:
        'A per-account demo catalog of animals. Send an API key as `Authorization: Bearer <key>`. Every error is ' +
        'the Error resource `{ code, message, status }`. Integers marked int64 are exact JSON numbers, also above 2^53.',
    },
    serverUrl: '/demo/v1',
    security: { name: 'bearerAuth', scheme: { type: 'http', scheme: 'bearer', description: 'An API key of the account' } },
    errorBody: DemoError,
    // Per API key, like /api/v1 (http/rate-limit.ts).
    responseHeaders: RATE_LIMIT_HEADERS,
    statusHeaders: { 429: RETRY_AFTER_HEADER },
    rateLimited: true,
  });
}

export const docs: FastifyPluginAsync = async (app) => {
  const publicDocument = publicApiDocument();
  // Each document's JSON is made on its first request, not at start: the console's alone is 0.9 MB of text, and
  // building the three others took a third of a second of every start.
  const documents: Record<string, () => unknown> = {
    '/api/v1/openapi.json': () => publicDocument,
    '/console/v1/openapi.json': consoleApiDocument,
    '/admin/v1/openapi.json': adminApiDocument,
    '/demo/v1/openapi.json': demoApiDocument,
  };
  for (const [url, build] of Object.entries(documents)) {
    let body: string | undefined;
    app.get(url, (_request, reply) => reply.type('application/json').send((body ??= JSON.stringify(build()))));
  }
  await app.register(swagger, {
    mode: 'static',
    specification: { document: publicDocument as unknown as OpenAPIV3.Document },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: {
      urls: [
        { url: '/api/v1/openapi.json', name: 'Public API (/api/v1)' },
        { url: '/console/v1/openapi.json', name: 'Console API (/console/v1)' },
        { url: '/admin/v1/openapi.json', name: 'Operator API (/admin/v1)' },
        { url: '/demo/v1/openapi.json', name: 'Demo animal catalog (/demo/v1)' },
      ],
    },
  });
};
