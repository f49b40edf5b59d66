// Response schemas are open in the documents (new fields may appear), yet a response still carries only the
// declared fields: Fastify's serializer (fast-json-stringify) drops whatever else a handler returns, at every
// depth. Checked for every response of every route contract, with Fastify's own serializer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { adminRoutes, consoleRoutes, demoRoutes, MAP_MARKER, publicRoutes, type RouteContract } from '@parley/contracts';
import Fastify from 'fastify';

const LEAK = 'leaked-secret-value';

/** A value valid for the schema, with an undeclared `leak` property in every object (a field of any JSON value: null). */
function sample(schema: unknown, nested = false): unknown {
  if (typeof schema !== 'object' || schema === null) return null;
  const node = schema as Record<string, unknown>;
  if (Array.isArray(node.enum)) return node.enum[0];
  if ('const' in node) return node.const;
  if (Array.isArray(node.anyOf)) return sample(node.anyOf.find((s) => (s as { type?: unknown }).type !== 'null'), nested);
  // A map writes every key it holds (schema.ts `map`): a key with a value its schema accepts.
  if (node[MAP_MARKER] === true) return { key: sample(node.additionalProperties, true) };
  switch (node.type) {
    case 'object': {
      const properties = (node.properties ?? {}) as Record<string, unknown>;
      return { ...Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, sample(v, true)])), leak: LEAK };
    }
    case 'array':
      return Array.from({ length: typeof node.minItems === 'number' ? Math.max(node.minItems, 1) : 1 }, () => sample(node.items, true));
    case 'string':
      if (node.format === 'date-time') return new Date(0).toISOString();
      if (typeof node.pattern === 'string') {
        const pattern = new RegExp(node.pattern);
        return ['09:00', 'cc:1', 'en', 'text'].find((candidate) => pattern.test(candidate)) ?? 'text';
      }
      return 'text';
    case 'integer':
    case 'number':
      return typeof node.minimum === 'number' ? Math.max(node.minimum, 1) : 1;
    case 'boolean':
      return true;
    default:
      return nested ? null : undefined;
  }
}

test('every response of every route serializes its declared fields only', async () => {
  const routes = [
    ...Object.values(publicRoutes),
    ...Object.values(adminRoutes),
    ...Object.values(demoRoutes),
    ...consoleRoutes,
  ] as RouteContract[];
  const app = Fastify();
  const cases: { url: string; status: number; value: unknown; name: string }[] = [];
  for (const contract of routes) {
    for (const [status, schema] of Object.entries(contract.schema.response)) {
      const value = sample(schema);
      if (value === undefined) continue; // an empty body
      const url = `/r${cases.length}`;
      cases.push({ url, status: Number(status), value, name: `${contract.method} ${contract.url} ${status}` });
      app.get(url, { schema: { response: { [status]: schema } } }, (_request, reply) => reply.code(Number(status)).send(value));
    }
  }
  assert.ok(cases.length > 100, `${cases.length} responses checked`);
  for (const c of cases) {
    const res = await app.inject({ method: 'GET', url: c.url });
    assert.equal(res.statusCode, c.status, `${c.name}: ${res.body}`);
    assert.ok(!res.body.includes(LEAK), `${c.name} wrote an undeclared field: ${res.body}`);
    assert.ok(res.body.length > 2 || Array.isArray(c.value) === false, c.name);
  }
  await app.close();
});
