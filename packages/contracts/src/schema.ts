// Schema helpers shared by every surface. Every object schema is closed (`additionalProperties: false`):
// the spec rejects unknown parameters with 400, and Ajv must never strip them silently.
import { Type, type TProperties, type TSchema, type TObject, type TUnsafe } from 'typebox';

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

/** A value that may be null: `anyOf [T, null]`, rendered as `nullable: true` in OpenAPI 3.0. */
export function nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/** ISO 8601 UTC timestamp with milliseconds, e.g. `2026-11-22T04:37:52.000Z`. */
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC timestamp' });

/** A response without a body (for example the 201 of send-message-universal). */
export const EmptyBody = Type.Unsafe<undefined>({ description: 'Empty body' });
