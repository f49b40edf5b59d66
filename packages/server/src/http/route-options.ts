import type { MemberRole, RouteContract } from '@parley/contracts';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';

/** A Fastify instance whose handlers are typed by the TypeBox schemas of the contracts. */
export type TypedApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** API key scope the route needs (public API). */
    scope?: string;
    /** The least member role that may call it (console; see console-plugin.ts). */
    role?: MemberRole;
  }
}

/** A request without a body, to a route whose body is optional, is validated as `{}`. */
async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
  request.body ??= {};
}

/**
 * The Fastify options of a contract: the same schema validates, serializes and types the handler. A route
 * that sets its own `preValidation` must not have `bodyOptional` (the spread would drop this one).
 */
export function routeOptions<const C extends RouteContract>(
  contract: C,
): {
  method: C['method'];
  url: C['url'];
  schema: C['schema'];
  config: { scope: string | undefined; role?: MemberRole };
  preValidation?: (request: FastifyRequest) => Promise<void>;
} {
  return {
    method: contract.method,
    url: contract.url,
    schema: contract.schema,
    config: { scope: contract.scope, ...(contract.role ? { role: contract.role } : {}) },
    ...(contract.bodyOptional ? { preValidation: emptyBodyAsObject } : {}),
  };
}
