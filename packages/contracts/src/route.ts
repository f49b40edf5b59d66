import type { TSchema } from 'typebox';
import { openSchema } from './schema.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A console member's role, from most to least powerful. */
export const MEMBER_ROLES = ['owner', 'admin', 'agent'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** Whether a member of `role` may call a route that needs `needed` (each role may do all that the ones below it may). */
export function roleAllows(role: MemberRole, needed: MemberRole): boolean {
  return MEMBER_ROLES.indexOf(role) <= MEMBER_ROLES.indexOf(needed);
}

/** A response header, as the OpenAPI documents declare it. */
export interface ResponseHeader {
  readonly description: string;
  readonly schema: TSchema;
}

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
  /**
   * The least member role that may call it (console only; `agent`: every member). Every console route that is not
   * `anonymous` declares one: the console refuses to start with a route that does not.
   */
  readonly role?: MemberRole;
  /**
   * Callable by a session that must set two-factor sign-in up first (the account requires it and the member has not
   * turned it on, issue #45); every other console route answers such a session 403 `Two-factor sign-in is required`.
   */
  readonly twoFactorSetup?: boolean;
  /** Request content types besides JSON (for example `multipart/form-data`). */
  readonly consumes?: readonly string[];
  /** Callable without credentials (the surface's security scheme does not apply), e.g. the console login. */
  readonly anonymous?: boolean;
  /** The body may be omitted altogether (it is then taken as `{}`). */
  readonly bodyOptional?: boolean;
  /**
   * Files a multipart request may carry, as the documents describe them: the part `field` (default `files`); a route
   * without a body schema takes nothing but the file (multipart alone).
   */
  readonly files?: {
    readonly field?: string;
    readonly maxFiles: number;
    readonly contentTypes: readonly string[];
    readonly description: string;
  };
  /** Headers sent on every response of this route (beyond those of its surface). */
  readonly responseHeaders?: Readonly<Record<string, ResponseHeader>>;
  readonly schema: {
    readonly querystring?: TSchema;
    readonly params?: TSchema;
    readonly body?: TSchema;
    readonly response: Readonly<Record<number, TSchema>>;
  };
}

/**
 * Declares a route: keeps the literal types of a contract while checking its shape, and opens its response
 * schemas (`openSchema`): requests stay closed (unknown parameter → 400), responses may gain fields. Every
 * contract goes through here, so validation, serialization and the OpenAPI documents all see the same thing.
 */
export function route<const T extends RouteContract>(contract: T): T {
  const response = Object.fromEntries(Object.entries(contract.schema.response).map(([status, schema]) => [status, openSchema(schema)]));
  return { ...contract, schema: { ...contract.schema, response } };
}
