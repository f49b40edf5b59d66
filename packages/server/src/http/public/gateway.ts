// The public API gateway (`/api/v1`): rate limit, API-key authentication and scopes in front of every route
// (spec, Authentication and Limits).
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { apiKeyBucket, apiKeyHash, type KeyAuthenticator, type Principal } from './api-key.ts';
import { DomainError, Errors } from '../../errors.ts';
import type { InvalidKeyGuard, RateCounters } from '../../kernel/rate-counters.ts';
import { afterRateLimit, registerRateLimit } from '../rate-limit.ts';
import type { TypedApp } from '../route-options.ts';
import { createRefusalMemory } from './refusal-memory.ts';
import { registerUploads } from './uploads.ts';

export { RATE_LIMIT_WINDOW_MS } from '../../kernel/rate-counters.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** SHA-256 of the Authorization header: the key lookup uses it, never the key (the bucket: `apiKeyBucket`). */
    apiKeyHash: string | undefined;
    principal: Principal | undefined;
    /** Refused before any key lookup: its address sent too many unknown keys (see kernel/rate-counters.ts). */
    keyRefused: boolean;
    /** The rate-limit bucket the request was counted in. */
    rateBucket: string | undefined;
    /** The request's path or query failed validation. */
    urlRefused: boolean;
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
  app.decorateRequest('rateBucket', undefined);
  app.decorateRequest('urlRefused', false);
  app.addHook('onRequest', (request, _reply, done) => {
    request.apiKeyHash = apiKeyHash(request.headers.authorization);
    done();
  });

  const prefix = 'parley:rate:';
  await registerRateLimit(app, {
    counters,
    max: rateLimitMax,
    prefix,
    keyGenerator: async (request) => {
      // An address past its unknown-key cap: its unknown keys share one bucket and are refused without a lookup.
      request.keyRefused = await invalidKeys.refused(request, request.apiKeyHash);
      request.rateBucket = request.keyRefused
        ? `refused:${request.ip}`
        : (apiKeyBucket(request.headers.authorization, request.apiKeyHash) ?? `ip:${request.ip}`);
      return request.rateBucket;
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

  // A GET refused for its URL with a valid key is answered from memory when it comes again (refusal-memory.ts).
  const refusals = createRefusalMemory({ counters, max: rateLimitMax, logger: app.log, front: app.frontDoor });
  app.frontDoor.answerWith(refusals.answer);
  authenticator.onChange(refusals.forgetAll);
  app.addHook('onClose', (_instance, done) => {
    refusals.forgetAll();
    done();
  });
  app.addHook('onError', (request, _reply, error, done) => {
    if (error.validationContext === 'querystring' || error.validationContext === 'params') request.urlRefused = true;
    done();
  });
  // The last onSend of the gateway's own (the request id's and the rate limit's headers are set by then).
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.urlRefused && request.method === 'GET' && reply.statusCode === 400 && typeof payload === 'string' && request.principal && request.rateBucket) {
      refusals.remember(request, reply, payload, prefix + request.rateBucket);
    }
    done(null, payload);
  });

  await registerUploads(app);
  options.routes(app.withTypeProvider());
};
