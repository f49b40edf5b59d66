// OpenAPI 3.0 documents generated from route contracts: the contracts are the single source, this only
// translates JSON Schema (TypeBox) into the OpenAPI 3.0 dialect.
import type { TSchema } from 'typebox';
import type { RouteContract } from './route.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
}

export interface OpenApiOptions {
  info: OpenApiInfo;
  /** Base path of the surface, e.g. `/api/v1`. */
  serverUrl: string;
  /** Security scheme every route of the surface uses. */
  security: { name: string; scheme: JsonObject };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON Schema (draft 7 / 2019) → OpenAPI 3.0 Schema Object. */
export function toOpenApiSchema(schema: unknown): Json {
  if (Array.isArray(schema)) return schema.map(toOpenApiSchema);
  if (!isObject(schema)) return schema as Json;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$id' || key === '$schema') continue;
    if (key === 'const') {
      out.enum = [value as Json];
      continue;
    }
    if (key === 'properties' && isObject(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toOpenApiSchema(v)]));
      continue;
    }
    out[key] = toOpenApiSchema(value);
  }
  // anyOf [T, { type: 'null' }] → T with nullable: true
  const anyOf = schema.anyOf;
  if (Array.isArray(anyOf) && anyOf.some((s) => isObject(s) && s.type === 'null')) {
    const rest = anyOf.filter((s) => !(isObject(s) && s.type === 'null'));
    delete out.anyOf;
    if (rest.length === 1) Object.assign(out, toOpenApiSchema(rest[0]) as JsonObject);
    else out.anyOf = rest.map(toOpenApiSchema);
    out.nullable = true;
  }
  return out;
}

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  400: 'Bad request: missing, invalid or unknown parameter',
  401: 'Unauthorized',
  402: 'Payment required',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  413: 'Payload too large',
  429: 'Too many requests',
  503: 'Not queued, retry later',
};

function parameters(schema: TSchema | undefined, location: 'query' | 'path'): Json[] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(schema.properties).map(([name, prop]) => {
    const converted = toOpenApiSchema(prop) as JsonObject;
    const { description, ...rest } = converted;
    const parameter: JsonObject = { name, in: location, required: location === 'path' || required.has(name), schema: rest };
    if (description !== undefined) parameter.description = description;
    return parameter;
  });
}

function requestBody(contract: RouteContract): JsonObject | undefined {
  const body = contract.schema.body;
  if (!body) return undefined;
  const schema = toOpenApiSchema(body) as JsonObject;
  const content: JsonObject = { 'application/json': { schema } };
  for (const type of contract.consumes ?? []) {
    if (type !== 'multipart/form-data') continue;
    const properties = (schema.properties ?? {}) as JsonObject;
    content[type] = {
      schema: {
        ...schema,
        properties: { ...properties, files: { type: 'array', maxItems: 10, items: { type: 'string', format: 'binary' } } },
      },
    };
  }
  return { required: true, content };
}

function responses(contract: RouteContract): JsonObject {
  const out: JsonObject = {};
  for (const [status, schema] of Object.entries(contract.schema.response)) {
    const converted = toOpenApiSchema(schema) as JsonObject;
    const description = STATUS_TEXT[Number(status)] ?? 'Response';
    out[status] = Object.keys(converted).length <= 1 && !converted.type && !converted.anyOf
      ? { description: (converted.description as string | undefined) ?? description }
      : { description, content: { 'application/json': { schema: converted } } };
  }
  return out;
}

export function buildOpenApiDocument(routes: Iterable<RouteContract>, options: OpenApiOptions): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const contract of routes) {
    const path = contract.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const operation: JsonObject = {
      operationId: contract.operationId,
      summary: contract.summary,
      tags: [...contract.tags],
      parameters: [
        ...parameters(contract.schema.params, 'path'),
        ...parameters(contract.schema.querystring, 'query'),
      ],
      responses: responses(contract),
    };
    if (contract.description) operation.description = contract.description;
    if (contract.deprecated) operation.deprecated = true;
    if (contract.scope) operation['x-scope'] = contract.scope;
    const body = requestBody(contract);
    if (body) operation.requestBody = body;
    (paths[path] ??= {})[contract.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.0.3',
    info: { ...options.info } as JsonObject,
    servers: [{ url: options.serverUrl }],
    components: { securitySchemes: { [options.security.name]: options.security.scheme } },
    security: [{ [options.security.name]: [] }],
    paths,
  };
}
