// The public API gateway (`/api/v1`): rate limit, API-key authentication and scopes in front of every route
// (spec, Authentication and Limits).
import rateLimit from '@fastify/rate-limit';
import type { FastifyPluginAsync, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { Redis } from 'ioredis';
import { apiKeyHash, type ApiKeyAuthenticator, type Principal } from '../../accounts/api-key-auth.ts';
import { Errors } from '../../errors.ts';
import type { TypedApp } from '../route-options.ts';
import { registerUploads } from './uploads.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** SHA-256 of the Authorization header: the rate-limit bucket and the key lookup use it, never the key. */
    apiKeyHash: string | undefined;
    principal: Principal | undefined;
  }
}

export const RATE_LIMIT_WINDOW_MS = 10_000;

export interface GatewayOptions {
  authenticator: Pick<ApiKeyAuthenticator, 'authenticate'>;
  rateLimitMax: number;
  /** Shared counters for several API processes; in memory when absent. */
  redis: Redis | undefined;
  /** Registers the routes behind the gateway. */
  routes: (app: TypedApp) => void;
}

/** The authenticated caller of a public-API route (set by the gateway before any handler runs). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw Errors.unauthorized();
  return request.principal;
}

export const gateway: FastifyPluginAsync<GatewayOptions> = async (app, options) => {
  const { authenticator, rateLimitMax, redis } = options;
  const allHeaders = { 'ratelimit-limit': true, 'ratelimit-remaining': true, 'ratelimit-reset': true } as const;

  app.decorateRequest('apiKeyHash', undefined);
  app.decorateRequest('principal', undefined);
  app.addHook('onRequest', async (request) => {
    request.apiKeyHash = apiKeyHash(request.headers.authorization);
  });

  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    max: rateLimitMax,
    timeWindow: RATE_LIMIT_WINDOW_MS,
    keyGenerator: (request) => request.apiKeyHash ?? `ip:${request.ip}`,
    enableDraftSpec: true,
    addHeaders: { ...allHeaders, 'retry-after': true },
    addHeadersOnExceeding: allHeaders,
    ...(redis ? { redis, nameSpace: 'parley:rate:' } : {}),
    // Counters out of reach (Redis down) must not take the API down with them.
    skipOnError: true,
    errorResponseBuilder: () => Errors.tooManyRequests(),
  });

  // Runs after the rate limit (added by the plugin above, route by route) and before the body is parsed.
  const authenticate: onRequestAsyncHookHandler = async (request) => {
    request.principal = await authenticator.authenticate(request.apiKeyHash, request.routeOptions.config.scope);
  };
  app.addHook('onRoute', (route) => {
    const hooks = route.onRequest;
    route.onRequest = hooks === undefined ? [authenticate] : [...(Array.isArray(hooks) ? hooks : [hooks]), authenticate];
  });

  const policy = `${rateLimitMax};w=${RATE_LIMIT_WINDOW_MS / 1000}`;
  app.addHook('onSend', async (_request, reply) => {
    reply.header('RateLimit-Policy', policy);
  });

  app.setNotFoundHandler({ preHandler: app.rateLimit() }, (request, reply) =>
    reply.code(404).send({ message: `Route ${request.method} ${request.url.split('?')[0]} not found`, statusCode: 404 }),
  );

  await registerUploads(app);
  options.routes(app.withTypeProvider());
};
