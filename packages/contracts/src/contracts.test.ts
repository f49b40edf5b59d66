// Every request schema is closed (an unknown parameter must be a 400, never silently dropped), every response
// schema open (new fields may appear), and the OpenAPI conversion speaks the 3.0 dialect.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from 'typebox';
import { adminRoutes } from './admin/index.ts';
import { consoleRoutes } from './console/index.ts';
import { demoRoutes } from './demo/index.ts';
import { toOpenApiSchema } from './openapi.ts';
import { publicRoutes } from './public/index.ts';
import { route, type RouteContract } from './route.ts';
import { MAP_MARKER, nullable, object } from './schema.ts';

function openObjects(schema: unknown, path: string): string[] {
  if (Array.isArray(schema)) return schema.flatMap((s, i) => openObjects(s, `${path}[${i}]`));
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Record<string, unknown>;
  // A map (schema.ts `map`) checks every value with its `additionalProperties` schema, itself walked.
  const own = node.type === 'object' && node.additionalProperties !== false && node[MAP_MARKER] !== true ? [path] : [];
  return [...own, ...Object.entries(node).flatMap(([key, value]) => openObjects(value, `${path}.${key}`))];
}

const allRoutes = [
  ...Object.values(publicRoutes),
  ...Object.values(adminRoutes),
  ...Object.values(demoRoutes),
  ...consoleRoutes,
] as RouteContract[];

function additionalProperties(schema: unknown, path: string): string[] {
  if (Array.isArray(schema)) return schema.flatMap((s, i) => additionalProperties(s, `${path}[${i}]`));
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Record<string, unknown>;
  const own = 'additionalProperties' in node && node[MAP_MARKER] !== true ? [`${path}: ${JSON.stringify(node.additionalProperties)}`] : [];
  return [...own, ...Object.entries(node).flatMap(([key, value]) => additionalProperties(value, `${path}.${key}`))];
}

test('every object schema of every request part is closed (additionalProperties: false)', () => {
  const open = allRoutes.flatMap((route) =>
    (['querystring', 'params', 'body'] as const).flatMap((part) =>
      openObjects(route.schema[part], `${route.method} ${route.url} ${part}`),
    ),
  );
  assert.deepEqual(open, []);
});

test('no response schema says anything about additional properties: open to new fields, serializing declared ones only', () => {
  // Absent means open in the documents, and fast-json-stringify still writes declared properties only;
  // `true` or a schema would make it write whatever a handler returns.
  const found = allRoutes.flatMap((route) => additionalProperties(route.schema.response, `${route.method} ${route.url}`));
  assert.deepEqual(found, []);
});

test('opening a response leaves the shared request schema closed', () => {
  const Shared = object({ a: Type.String() });
  const contract = route({
    method: 'POST',
    url: '/x',
    operationId: 'x',
    summary: 'x',
    tags: [],
    schema: { body: Shared, response: { 200: object({ echo: Shared }) } },
  });
  assert.equal((Shared as unknown as Record<string, unknown>).additionalProperties, false);
  assert.equal((contract.schema.body as unknown as Record<string, unknown>).additionalProperties, false);
  assert.deepEqual(JSON.parse(JSON.stringify(contract.schema.response[200])), {
    type: 'object',
    required: ['echo'],
    properties: { echo: { type: 'object', required: ['a'], properties: { a: { type: 'string' } } } },
  });
});

test('operation ids are unique', () => {
  const ids = allRoutes.map((r) => r.operationId);
  assert.equal(new Set(ids).size, ids.length);
});

test('OpenAPI 3.0 conversion: null unions become nullable, const becomes enum', () => {
  const schema = object({ a: nullable(Type.String()), b: Type.Literal('x'), c: nullable(Type.Union([Type.String(), Type.Integer()])) });
  assert.deepEqual(toOpenApiSchema(schema), {
    type: 'object',
    required: ['a', 'b', 'c'],
    properties: {
      a: { type: 'string', nullable: true },
      b: { type: 'string', enum: ['x'] },
      c: { anyOf: [{ type: 'string' }, { type: 'integer' }], nullable: true },
    },
    additionalProperties: false,
  });
});
