// Every request schema is closed (an unknown parameter must be a 400, never silently dropped), and the
// OpenAPI conversion speaks the 3.0 dialect.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from 'typebox';
import { adminRoutes } from './admin/index.ts';
import { consoleRoutes } from './console/index.ts';
import { toOpenApiSchema } from './openapi.ts';
import { publicRoutes } from './public/index.ts';
import type { RouteContract } from './route.ts';
import { nullable, object } from './schema.ts';

function openObjects(schema: unknown, path: string): string[] {
  if (Array.isArray(schema)) return schema.flatMap((s, i) => openObjects(s, `${path}[${i}]`));
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Record<string, unknown>;
  const own = node.type === 'object' && node.additionalProperties !== false ? [path] : [];
  return [...own, ...Object.entries(node).flatMap(([key, value]) => openObjects(value, `${path}.${key}`))];
}

test('every object schema of every route is closed (additionalProperties: false)', () => {
  const routes = [...Object.values(publicRoutes), ...Object.values(adminRoutes), ...consoleRoutes] as RouteContract[];
  const open = routes.flatMap((route) => openObjects(route.schema, `${route.method} ${route.url}`));
  assert.deepEqual(open, []);
});

test('operation ids are unique', () => {
  const routes = [...Object.values(publicRoutes), ...Object.values(adminRoutes), ...consoleRoutes] as RouteContract[];
  const ids = routes.map((r) => r.operationId);
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
