// The demo animal catalog (`/demo/v1`, the spec's area B): bearer API-key authentication, the pet routes, and
// int64 handled exactly (JSON bodies parsed without losing digits, a validation keyword that yields bigint).
// Every error, an unknown route included, is the Error resource (see ../error-handler.ts).
import { demoRoutes, GET_PET_SUNSET } from '@parley/contracts';
import { Ajv, type ErrorObject, type FuncKeywordDefinition, type SchemaValidateFunction } from 'ajv';
import type { FastifyPluginAsync, FastifyRequest, FastifySchemaCompiler } from 'fastify';
import { parse as parseLosslessJson } from 'lossless-json';
import { apiKeyHash, type KeyAuthenticator } from '../http/public/api-key.ts';
import type { PetsService } from './pets-service.ts';
import { DomainError } from '../errors.ts';
import { authenticateKey } from '../http/public/gateway.ts';
import { afterRateLimit, registerRateLimit } from '../http/rate-limit.ts';
import type { InvalidKeyGuard, RateCounters } from '../kernel/rate-counters.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import { checkingStorableText, compiledOnFirstUse, jsonNestedDeeperThan, MAX_BODY_DEPTH, TOO_DEEP_MESSAGE } from '../http/validation.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The account of the demo caller's API key (set before any demo handler runs). */
    demoAccountId: string | undefined;
  }
}

export interface DemoOptions {
  authenticator: KeyAuthenticator;
  pets: PetsService;
  rateLimitMax: number;
  counters: RateCounters;
  invalidKeys: InvalidKeyGuard;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const INTEGER_LITERAL = /^-?\d+$/;

/**
 * JSON with exact integers: an integer literal beyond 2^53 becomes a bigint (JSON.parse would round it).
 * Other numbers are ordinary numbers; `__proto__` stays an own property (then an unknown field), like
 * JSON.parse; a key repeated with another value is refused rather than silently overwritten.
 */
export function parseDemoJson(text: string): unknown {
  return parseLosslessJson(text, null, (literal) => {
    if (!INTEGER_LITERAL.test(literal)) return Number(literal);
    const value = Number(literal);
    return Number.isSafeInteger(value) ? value : BigInt(literal);
  });
}

function int64Error(message: string): Partial<ErrorObject> {
  return { keyword: 'int64', message, params: {} };
}

/**
 * The `int64` keyword: accepts an integer within int64 and the schema's bounds (a bigint, a safe-integer
 * number, or digits in a query or path) and replaces it by a bigint, so handlers always get the exact value.
 */
function int64Keyword(fromText: boolean): FuncKeywordDefinition {
  const validate: SchemaValidateFunction = (bounds: { minimum?: number; maximum?: number }, data, _parent, context) => {
    let value: bigint | undefined;
    if (typeof data === 'bigint') value = data;
    else if (typeof data === 'number' && Number.isSafeInteger(data)) value = BigInt(data);
    else if (fromText && typeof data === 'string' && INTEGER_LITERAL.test(data)) value = BigInt(data);
    const problem =
      value === undefined || value < INT64_MIN || value > INT64_MAX
        ? `must be an integer from ${INT64_MIN} to ${INT64_MAX}`
        : bounds.minimum !== undefined && value < BigInt(bounds.minimum)
          ? `must be >= ${bounds.minimum}`
          : bounds.maximum !== undefined && value > BigInt(bounds.maximum)
            ? `must be <= ${bounds.maximum}`
            : undefined;
    if (problem !== undefined) {
      validate.errors = [int64Error(problem)];
      return false;
    }
    if (context) context.parentData[context.parentDataProperty] = value;
    return true;
  };
  return { keyword: 'int64', schemaType: 'object', modifying: true, errors: true, validate };
}

/** `{ type: integer, format: int64 }` (the contracts' int64, as OpenAPI shows it) → the `int64` keyword. */
function withInt64Keyword(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withInt64Keyword);
  if (typeof schema !== 'object' || schema === null) return schema;
  const node = schema as Record<string, unknown>;
  if (node.format === 'int64') {
    const rest = Object.entries(node).filter(([key]) => !['type', 'format', 'minimum', 'maximum'].includes(key));
    return { ...Object.fromEntries(rest), int64: { minimum: node.minimum, maximum: node.maximum } };
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, withInt64Keyword(value)]));
}

// The same options as the app's validators (../validation.ts), plus the int64 keyword.
const ajvOptions = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false } as const;
const bodyAjv = new Ajv({ ...ajvOptions, coerceTypes: false }).addKeyword(int64Keyword(false));
const textAjv = new Ajv({ ...ajvOptions, coerceTypes: true }).addKeyword(int64Keyword(true));

const demoValidatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  compiledOnFirstUse(() => checkingStorableText((httpPart === 'body' ? bodyAjv : textAjv).compile(withInt64Keyword(schema) as object)));

const BEARER = /^Bearer +(\S+) *$/i;

/** Any key that cannot be used is a 401 here: the demo documents no other authentication status. */
const unauthorized = (message: string) => new DomainError(401, message, 'default', 'unauthorized');

function reasonOf(error: DomainError): string {
  switch (error.status) {
    case 402:
      return 'The subscription of the API key\'s account is stopped';
    case 403:
      return 'API key not active';
    default:
      return 'Invalid API key';
  }
}

export const demoApi: FastifyPluginAsync<DemoOptions> = async (fastify, { authenticator, pets, rateLimitMax, counters, invalidKeys }) => {
  fastify.decorateRequest('demoAccountId', undefined);
  fastify.decorateRequest('keyRefused', false);
  fastify.setValidatorCompiler(demoValidatorCompiler);
  // JSON only: any other body type (text/plain included) is a 415.
  fastify.removeContentTypeParser(['application/json', 'text/plain']);
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, async (_request: FastifyRequest, body: string) => {
    // The parser recurses per level: a body nested deeper than the stack is refused before it, as elsewhere after JSON.parse.
    if (jsonNestedDeeperThan(body, MAX_BODY_DEPTH)) throw new DomainError(400, TOO_DEEP_MESSAGE);
    try {
      return parseDemoJson(body);
    } catch (error) {
      throw new DomainError(400, `Body is not valid JSON: ${(error as Error).message}`);
    }
  });
  // Like /api/v1, an unknown route is a 404 whether or not a key is given.
  fastify.setNotFoundHandler(async (request) => {
    throw new DomainError(404, `Route ${request.method} ${request.url.split('?')[0]} not found`);
  });

  const prefix = fastify.prefix;
  await fastify.register(async (scope) => {
    // The same limiter as /api/v1 (its own buckets): per API key, by address without one.
    const keyOf = (request: FastifyRequest) => {
      const match = BEARER.exec(request.headers.authorization ?? '');
      return match?.[1] ? apiKeyHash(match[1]) : undefined;
    };
    await registerRateLimit(scope, {
      counters,
      max: rateLimitMax,
      prefix: 'parley:rate:demo:',
      keyGenerator: async (request) => {
        const keyHash = keyOf(request);
        request.keyRefused = await invalidKeys.refused(request, keyHash);
        return request.keyRefused ? `refused:${request.ip}` : (keyHash ?? `ip:${request.ip}`);
      },
    });
    const app: TypedApp = scope.withTypeProvider();
    afterRateLimit(scope, async (request, reply) => {
      const keyHash = keyOf(request);
      try {
        if (keyHash === undefined) {
          throw unauthorized(
            request.headers.authorization ? 'Authorization must be "Bearer <API key>"' : 'Missing API key',
          );
        }
        const principal = await authenticateKey(authenticator, invalidKeys, request, reply, keyHash, undefined);
        request.demoAccountId = principal.accountId;
      } catch (error) {
        if (!(error instanceof DomainError) || error.status >= 500 || error.status === 429) throw error;
        reply.header('www-authenticate', 'Bearer realm="demo"');
        throw error.status === 401 && error.key === 'unauthorized' ? error : unauthorized(reasonOf(error));
      }
    });
    const accountOf = (request: FastifyRequest): string => {
      if (request.demoAccountId === undefined) throw unauthorized('Missing API key');
      return request.demoAccountId;
    };

    app.route({
      ...routeOptions(demoRoutes.listPets),
      handler: async (request, reply) => {
        const page = await pets.listPets(accountOf(request), request.query);
        if (page.after !== undefined) {
          const next = new URLSearchParams({ limit: String(page.limit), after: String(page.after) });
          if (request.query.status !== undefined) next.set('status', request.query.status);
          // A relative reference (RFC 8288): right behind any proxy, whatever PUBLIC_URL or Host say.
          reply.header('link', `<${prefix}/pets?${next}>; rel="next"`);
        }
        return page.pets;
      },
    });
    app.route({
      ...routeOptions(demoRoutes.createPet),
      handler: async (request, reply) => reply.code(201).send(await pets.createPet(accountOf(request), request.body)),
    });
    app.route({
      ...routeOptions(demoRoutes.getPet),
      // Every response of the deprecated route says so, errors included.
      onSend: async (_request, reply) => {
        reply.header('deprecation', 'true');
        reply.header('sunset', GET_PET_SUNSET);
      },
      handler: (request) => pets.getPet(accountOf(request), request.params.petId),
    });
  });
};
