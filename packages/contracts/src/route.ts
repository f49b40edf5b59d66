import type { TSchema } from 'typebox';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * One route of one surface: the single source of its validation, serialization, handler types and
 * OpenAPI description. `url` uses Fastify's `:param` syntax, relative to the surface's prefix.
 */
export interface RouteContract {
  readonly method: HttpMethod;
  readonly url: string;
  readonly operationId: string;
  readonly summary: string;
  readonly tags: readonly string[];
  readonly description?: string;
  readonly deprecated?: boolean;
  /** Scope an API key needs (public API only). */
  readonly scope?: string;
  /** Request content types besides JSON (for example `multipart/form-data`). */
  readonly consumes?: readonly string[];
  readonly schema: {
    readonly querystring?: TSchema;
    readonly params?: TSchema;
    readonly body?: TSchema;
    readonly response: Readonly<Record<number, TSchema>>;
  };
}

/** Identity helper that keeps the literal types of a contract while checking its shape. */
export function route<const T extends RouteContract>(contract: T): T {
  return contract;
}
