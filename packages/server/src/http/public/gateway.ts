// The public API gateway (`/api/v1`): rate limit, API-key authentication and scopes in front of every route
// (spec, Authentication and Limits).
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { apiKeyBucket, apiKeyHash, type KeyAuthenticator, type Principal } from './api-key.ts';
import { DomainError, Errors } from '../../errors.ts';
import type { InvalidKeyGuard, RateCounters } from '../../kernel/rate-counters.ts';
import { afterRateLimit, registerRateLimit } from '../rate-limit.ts';
import type { TypedApp } from '../route-options.ts';
import { registerUploads } from './uploads.ts';

export { RATE_LIMIT_WINDOW_MS } from '../../kernel/rate-counters.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** SHA-256 of the Authorization header: the key lookup uses it, never the key (the bucket: `apiKeyBucket`). */
    apiKeyHash: string | undefined;
    principal: Principal | undefined;
    /** Refused before any key lookup: its address sent too many unknown keys (see kernel/rate-counters.ts). */
    keyRefused: boolean;
  }
}

export interface GatewayOptions {
  authenticator: KeyAuthenticator;
  rateLimitMax: number;
  /** The rate-limit counters (Redis shared by API processes, or this process). */
  counters: RateCounters;
  invalidKeys: InvalidKeyGuard;
  /** Registers the routes behind the gateway. */
  routes: (app: TypedApp) => void;
}

/** The authenticated caller of a public-API route (set by the gateway before any handler runs). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw Errors.unauthorized();
  return request.principal;
}

/**
 * Authenticates an API key, counting unknown keys against the caller's address; a request already refused for
 * too many unknown keys gets its 429 without a lookup. Shared by the public API and the demo catalog.
 */
export async function authenticateKey(
  authenticator: KeyAuthenticator,
  invalidKeys: InvalidKeyGuard,
  request: FastifyRequest,
  reply: { header(name: string, value: string): unknown },
  keyHash: string | undefined,
  scope: string | undefined,
): Promise<Principal> {
  if (request.keyRefused) return invalidKeys.refuse(request, reply);
  try {
    const principal = await authenticator.authenticate(keyHash, scope);
    if (keyHash !== undefined) invalidKeys.validKey(keyHash);
    return principal;
  } catch (error) {
    // `Key not found`: a key no account has (a missing key is counted by the address's own bucket).
    if (error instanceof DomainError && error.bodyKind === 'auth' && error.status === 404) await invalidKeys.unknownKey(request);
    throw error;
  }
}

export const gateway: FastifyPluginAsync<GatewayOptions> = async (app, options) => {
  const { authenticator, rateLimitMax, counters, invalidKeys } = options;

  app.decorateRequest('apiKeyHash', undefined);
  app.decorateRequest('principal', undefined);
  app.decorateRequest('keyRefused', false);
  app.addHook('onRequest', (request, _reply, done) => {
    request.apiKeyHash = apiKeyHash(request.headers.authorization);
    done();
  });

  await registerRateLimit(app, {
    counters,
    max: rateLimitMax,
    prefix: 'parley:rate:',
    keyGenerator: async (request) => {
      // An address past its unknown-key cap: its unknown keys share one bucket and are refused without a lookup.
      request.keyRefused = await invalidKeys.refused(request, request.apiKeyHash);
      return request.keyRefused ? `refused:${request.ip}` : (apiKeyBucket(request.headers.authorization, request.apiKeyHash) ?? `ip:${request.ip}`);
    },
  });

  // Runs after the rate limit (added by the plugin above, route by route) and before the body is parsed.
  afterRateLimit(app, async (request, reply) => {
    request.principal = await authenticateKey(
      authenticator,
      invalidKeys,
      request,
      reply,
      request.apiKeyHash,
      request.routeOptions.config.scope,
    );
  });

  app.setNotFoundHandler({ preHandler: app.rateLimit() }, (request, reply) =>
    reply.code(404).send({ message: `Route ${request.method} ${request.url.split('?')[0]} not found`, statusCode: 404 }),
  );

  await registerUploads(app);
  options.routes(app.withTypeProvider());
};
