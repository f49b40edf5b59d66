import type { MemberRole, RouteContract } from '@parley/contracts';
import type { FastifyRequest } from 'fastify';

export type { TypedApp } from '../kernel/module.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** API key scope the route needs (public API). */
    scope?: string;
    /** The least member role that may call it (console; see console-plugin.ts). */
    role?: MemberRole;
    /** Callable by a session that can only set two-factor sign-in up (console; see console-plugin.ts). */
    twoFactorSetup?: boolean;
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
  config: { scope: string | undefined; role?: MemberRole; twoFactorSetup?: boolean };
  preValidation?: (request: FastifyRequest) => Promise<void>;
} {
  return {
    method: contract.method,
    url: contract.url,
    schema: contract.schema,
    config: { scope: contract.scope, ...(contract.role ? { role: contract.role } : {}), ...(contract.twoFactorSetup ? { twoFactorSetup: true } : {}) },
    ...(contract.bodyOptional ? { preValidation: emptyBodyAsObject } : {}),
  };
}
