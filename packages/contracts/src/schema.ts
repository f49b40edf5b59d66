// Schema helpers shared by every surface. Every object schema is written closed (`additionalProperties: false`):
// the spec rejects unknown parameters with 400, and Ajv must never strip them silently. Responses and webhook
// payloads are opened by `openSchema` (see route.ts): the spec promises that new fields may appear in them.
import { Type, type TOptional, type TProperties, type TSchema, type TObject, type TUnsafe } from 'typebox';

export interface ObjectOptions {
  description?: string;
  title?: string;
}

export function object<T extends TProperties>(properties: T, options: ObjectOptions = {}): TObject<T> {
  return Type.Object(properties, { ...options, additionalProperties: false });
}

/** A string enum rendered as `{ type: 'string', enum: [...] }` (clean for OpenAPI 3.0 and Ajv alike). */
export function stringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number] } = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** The same properties, each optional (a partial update's body). */
export function optionalFields<T extends TProperties>(properties: T): { [K in keyof T]: TOptional<T[K]> } {
  return Object.fromEntries(Object.entries(properties).map(([key, schema]) => [key, Type.Optional(schema)])) as { [K in keyof T]: TOptional<T[K]> };
}

/** Marks a map schema (map below): the checks of closed and open objects let it through (contracts.test.ts). */
export const MAP_MARKER = 'x-parley-map';

/**
 * A map: an object whose keys are free and whose every value `value` checks (an action's headers by name, parameter
 * values by name). Its `additionalProperties` is that schema: in a request it is as closed as a declared object (each
 * value validated), in a response it writes every key, which is what a map is for.
 */
export function map<T>(value: Record<string, unknown>, options: { description?: string; maxProperties?: number } = {}): TUnsafe<Record<string, T>> {
  return Type.Unsafe<Record<string, T>>({ type: 'object', additionalProperties: value, [MAP_MARKER]: true, ...options });
}

/** A value that may be null: `anyOf [T, null]`, rendered as `nullable: true` in OpenAPI 3.0. */
export function nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/** ISO 8601 UTC timestamp with milliseconds, e.g. `2026-11-22T04:37:52.000Z`. */
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC timestamp' });

/** A response without a body (for example the 201 of send-message-universal). */
export const EmptyBody = Type.Unsafe<undefined>({ description: 'Empty body' });

/**
 * The schema of something we send (a response, a webhook payload): the same schema with every
 * `additionalProperties: false` removed, so the published documents tell clients that new fields may appear
 * and generated strict clients do not break on them. Serialization is unchanged: fast-json-stringify writes
 * only declared properties unless `additionalProperties` is `true` or a schema (never set by these helpers),
 * so an undeclared field of a handler's result (a secret column, say) is still dropped.
 * Returns a copy; the input (often shared with a request schema) is left closed. Non-enumerable keys
 * (TypeBox's own markers) are kept.
 */
export function openSchema<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(openSchema) as T;
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy = Object.create(Object.getPrototypeOf(schema), Object.getOwnPropertyDescriptors(schema)) as Record<string, unknown>;
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'additionalProperties' && value === false) delete copy[key];
    else copy[key] = openSchema(value);
  }
  return copy as T;
}

/**
 * The value the server uses when an optional field is omitted, for the documents only (OpenAPI `default`).
 * Not JSON Schema's `default`, which Ajv (`useDefaults`) would write into every request: use it where the
 * server's default depends on more than the field (e.g. `senderName` of a customer message only).
 */
export const DOCUMENTED_DEFAULT = 'x-documented-default';
