// OpenAPI 3.0 documents generated from route contracts: the contracts are the single source, this only
// translates JSON Schema (TypeBox) into the OpenAPI 3.0 dialect.
import type { TSchema } from 'typebox';
import type { ResponseHeader, RouteContract } from './route.ts';
import { DOCUMENTED_DEFAULT, openSchema } from './schema.ts';

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
  /** Security scheme every route of the surface uses (a contract marked `anonymous` opts out). */
  security: { name: string; scheme: JsonObject };
  /** The surface's error body: 415 is documented with it on every operation that may carry a body. */
  errorBody: TSchema;
  /** Headers sent on every response of the surface (e.g. the rate-limit headers of `/api/v1`). */
  responseHeaders?: Readonly<Record<string, ResponseHeader>>;
  /** Headers sent on every response of one status (e.g. `Retry-After` on 429). */
  statusHeaders?: Readonly<Record<number, Readonly<Record<string, ResponseHeader>>>>;
  /** Every operation may answer 429 with `errorBody` (a rate limit the contracts do not list route by route). */
  rateLimited?: boolean;
  /** Request headers every operation of the surface reads (e.g. the console's `UserLang`). */
  requestHeaders?: readonly RequestHeader[];
  /** Outgoing webhooks: named schemas under `components` and the `x-webhooks` extension (Redoc, Swagger UI). */
  webhooks?: readonly WebhookDoc[];
}

export interface RequestHeader {
  name: string;
  description: string;
  schema: TSchema;
}

/** One webhook event the service POSTs to the channel's webhook URL. */
export interface WebhookDoc {
  /** The event's name, the key under `x-webhooks` (e.g. `new_messages`). */
  event: string;
  /** Its schema's name under `components.schemas`. */
  schemaName: string;
  schema: TSchema;
  summary: string;
  description?: string;
  /** Request headers sent with it (e.g. the signature headers). */
  headers?: readonly (RequestHeader & { required?: boolean })[];
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
    if (key === DOCUMENTED_DEFAULT) {
      out.default = value as Json;
      continue;
    }
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
  415: 'Unsupported media type: the body is of a content type the route does not read',
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
  const files = contract.files;
  // A route that takes a file and no fields: the multipart body alone, its file required.
  if (!body) {
    if (!files || !contract.consumes?.includes('multipart/form-data')) return undefined;
    const field = files.field ?? 'files';
    return {
      required: true,
      content: {
        'multipart/form-data': {
          schema: { type: 'object', required: [field], properties: { [field]: fileSchema(files) } },
          encoding: { [field]: { contentType: files.contentTypes.join(', ') } },
        },
      },
    };
  }
  const schema = toOpenApiSchema(body) as JsonObject;
  const content: JsonObject = { 'application/json': { schema } };
  for (const type of contract.consumes ?? []) {
    if (type !== 'multipart/form-data') continue;
    const properties = (schema.properties ?? {}) as JsonObject;
    const field = files?.field ?? 'files';
    const filesSchema: JsonObject = files ? fileSchema(files) : { type: 'array', items: { type: 'string', format: 'binary' } };
    content[type] = {
      schema: { ...schema, properties: { ...properties, [field]: filesSchema } },
      // The accepted types, as OpenAPI 3.0 says which content types a multipart part may have.
      ...(files ? { encoding: { [field]: { contentType: files.contentTypes.join(', ') } } } : {}),
    };
  }
  return { required: contract.bodyOptional !== true, content };
}

/** One binary part when a single file is taken, else an array of them. */
function fileSchema(files: NonNullable<RouteContract['files']>): JsonObject {
  if (files.maxFiles === 1) return { type: 'string', format: 'binary', description: files.description };
  return { type: 'array', items: { type: 'string', format: 'binary' }, maxItems: files.maxFiles, description: files.description };
}

function headerObject(header: ResponseHeader): JsonObject {
  return { description: header.description, schema: toOpenApiSchema(header.schema) };
}

/** Methods whose body Fastify reads: a body of an unreadable content type is a 415 there. */
const BODY_METHODS = new Set(['POST', 'PUT', 'DELETE']);

function responses(contract: RouteContract, options: OpenApiOptions): JsonObject {
  const schemas: [string, TSchema][] = Object.entries(contract.schema.response);
  if (BODY_METHODS.has(contract.method) && !('415' in contract.schema.response)) {
    schemas.push(['415', openSchema(options.errorBody)]);
  }
  // A member whose role is below the route's gets 403 (console).
  if (contract.role !== undefined && contract.role !== 'agent' && !('403' in contract.schema.response)) {
    schemas.push(['403', openSchema(options.errorBody)]);
  }
  if (options.rateLimited && !('429' in contract.schema.response)) schemas.push(['429', openSchema(options.errorBody)]);
  const out: JsonObject = {};
  for (const [status, schema] of schemas) {
    const converted = toOpenApiSchema(schema) as JsonObject;
    const description = STATUS_TEXT[Number(status)] ?? 'Response';
    const response: JsonObject = Object.keys(converted).length <= 1 && !converted.type && !converted.anyOf
      ? { description: (converted.description as string | undefined) ?? description }
      : { description, content: { 'application/json': { schema: converted } } };
    const headers = {
      ...options.responseHeaders,
      ...options.statusHeaders?.[Number(status)],
      ...contract.responseHeaders,
    };
    if (Object.keys(headers).length > 0) {
      response.headers = Object.fromEntries(Object.entries(headers).map(([name, header]) => [name, headerObject(header)]));
    }
    out[status] = response;
  }
  return out;
}

function headerParameter(header: RequestHeader & { required?: boolean }): JsonObject {
  return {
    name: header.name,
    in: 'header',
    required: header.required ?? false,
    description: header.description,
    schema: toOpenApiSchema(header.schema),
  };
}

/** Webhook payloads under `components.schemas`, and `x-webhooks` operations referring to them. */
function webhooks(docs: readonly WebhookDoc[]): { schemas: JsonObject; operations: JsonObject } {
  const schemas: JsonObject = {};
  const operations: JsonObject = {};
  for (const doc of docs) {
    // A receiver must accept fields added later: published open, like responses.
    schemas[doc.schemaName] = toOpenApiSchema(openSchema(doc.schema));
    const operation: JsonObject = {
      operationId: `webhook_${doc.event}`,
      summary: doc.summary,
      tags: ['Webhooks'],
      security: [],
      parameters: (doc.headers ?? []).map(headerParameter),
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${doc.schemaName}` } } },
      },
      responses: {
        '200': { description: 'Received. Any 2xx counts as delivered; anything else is retried.' },
      },
    };
    if (doc.description) operation.description = doc.description;
    operations[doc.event] = { post: operation };
  }
  return { schemas, operations };
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
        ...(options.requestHeaders ?? []).map(headerParameter),
      ],
      responses: responses(contract, options),
    };
    if (contract.anonymous) operation.security = [];
    if (contract.description) operation.description = contract.description;
    if (contract.deprecated) operation.deprecated = true;
    if (contract.scope) operation['x-scope'] = contract.scope;
    if (contract.role) operation['x-role'] = contract.role;
    const body = requestBody(contract);
    if (body) operation.requestBody = body;
    (paths[path] ??= {})[contract.method.toLowerCase()] = operation;
  }
  const hooks = options.webhooks ? webhooks(options.webhooks) : undefined;
  const components: JsonObject = { securitySchemes: { [options.security.name]: options.security.scheme } };
  if (hooks) components.schemas = hooks.schemas;
  const document: JsonObject = {
    openapi: '3.0.3',
    info: { ...options.info } as JsonObject,
    servers: [{ url: options.serverUrl }],
    components,
    security: [{ [options.security.name]: [] }],
    paths,
  };
  if (hooks) document['x-webhooks'] = hooks.operations;
  return document;
}
