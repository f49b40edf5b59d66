// Every documented route, table-driven: NUL bytes, lone surrogates, invalid UTF-8, over-long values, malformed
// JSON and multipart, in every parameter and body field the OpenAPI documents name. Nothing may answer 5xx, and a
// JSON body nested past the call stack's depth is the 400 naming the depth limit on every route that takes one.
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { after, before, test } from 'node:test';
import { ADMIN_TOKEN, startTestApp, type TestApp } from './support/harness.ts';

interface Schema {
  type?: string | string[];
  format?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  minimum?: number;
  $ref?: string;
}
interface Operation {
  parameters?: Array<{ name: string; in: string; schema?: Schema }>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

const DOCUMENTS = ['/api/v1/openapi.json', '/console/v1/openapi.json', '/demo/v1/openapi.json', '/admin/v1/openapi.json', '/widget/v1/openapi.json'];
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const LONG = 'x'.repeat(70_000);
/** Raw query-string values: NUL, a lone surrogate as UTF-8 bytes, invalid UTF-8, over-long. */
const BAD_QUERY = ['a%00b', '%ED%A0%80', '%FF%FE', encodeURIComponent(LONG.slice(0, 20_000))];
/** JSON bodies as text, so lone surrogates arrive as the escapes a client would send. */
const BAD_JSON_VALUES = ['"a\\u0000b"', '"\\ud800"', '"\\udfff x"', JSON.stringify(LONG)];
/** Deeper than any call stack: 50,000 nested objects, 100,000 nested arrays. */
const DEEP_JSON = {
  objects: `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`,
  arrays: `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
};
const TOO_DEEP = 'Body nested deeper than 64 levels';
/** The 400 of a body nested too deep, in each surface's error shape (the demo catalog has its own). */
const tooDeepBody = (path: string) =>
  path.startsWith('/demo/') ? { code: 'bad_request', message: TOO_DEEP, status: 400 } : { message: [TOO_DEEP], statusCode: 400 };

let t: TestApp;
let headersFor: (path: string) => Record<string, string>;
before(async () => {
  t = await startTestApp({ rateLimitMax: 1_000_000 });
  const user = await t.createConsoleUser();
  headersFor = (path): Record<string, string> => {
    if (path.startsWith('/api/v1')) return { authorization: user.key };
    if (path.startsWith('/demo/v1')) return { authorization: `Bearer ${user.key}` };
    if (path.startsWith('/admin/v1')) return { authorization: `Bearer ${ADMIN_TOKEN}` };
    if (path.startsWith('/console/v1')) return { authorization: `Bearer ${user.token}` };
    return {};
  };
});
after(() => t.close());

function resolve(doc: Document, schema: Schema | undefined): Schema | undefined {
  if (schema?.$ref) return doc.components?.schemas?.[schema.$ref.split('/').pop() ?? ''];
  return schema;
}

/** A value the schema would likely accept, so that one bad field is what the server sees. */
function sample(doc: Document, raw: Schema | undefined, depth = 0): unknown {
  const schema = resolve(doc, raw);
  if (!schema || depth > 4) return 'x';
  if (schema.enum) return schema.enum[0];
  const variant = schema.anyOf?.[0] ?? schema.oneOf?.[0];
  if (variant) return sample(doc, variant, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object':
      return Object.fromEntries((schema.required ?? []).map((key) => [key, sample(doc, schema.properties?.[key], depth + 1)]));
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    default:
      if (schema.format === 'uuid') return '01900000-0000-7000-8000-000000000000';
      if (schema.format === 'email') return 'fuzz@example.com';
      if (schema.format === 'uri') return 'https://example.com/x';
      return 'x';
  }
}

function pathWith(template: string, value: (name: string) => string): string {
  return template.replace(/\{([^}]+)\}/g, (_m, name: string) => value(name));
}

test('no documented route answers 5xx to hostile input', async () => {
  const failures: string[] = [];
  let sent = 0;
  /** `expected`: the exact answer due; otherwise anything but a 5xx. */
  const send = async (label: string, method: string, path: string, body?: string | Uint8Array, contentType = 'application/json', expected?: unknown) => {
    sent += 1;
    const headers: Record<string, string> = { ...headersFor(path) };
    if (body !== undefined) headers['content-type'] = contentType;
    try {
      const res = await fetch(`${t.url}${path}`, { method: method.toUpperCase(), headers, body });
      const text = await res.text();
      if (res.status >= 500) failures.push(`${res.status} ${method.toUpperCase()} ${path.slice(0, 120)} [${label}]: ${text.slice(0, 200)}`);
      else if (expected !== undefined && (res.status !== 400 || !isDeepStrictEqual(JSON.parse(text), expected))) {
        failures.push(`${res.status} ${method.toUpperCase()} ${path.slice(0, 120)} [${label}]: ${text.slice(0, 200)}`);
      }
    } catch (error) {
      failures.push(`network error ${method.toUpperCase()} ${path.slice(0, 120)} [${label}]: ${(error as Error).message}`);
    }
  };

  let documents = 0;
  const deepRoutes = new Set<string>();
  const walked = new Set<string>();
  for (const url of DOCUMENTS) {
    const res = await fetch(`${t.url}${url}`);
    if (res.status === 404) continue; // a surface this build does not have
    assert.equal(res.status, 200, url);
    documents += 1;
    const doc = (await res.json()) as Document;
    const base = url.replace(/\/openapi\.json$/, '');
    for (const [template, item] of Object.entries(doc.paths)) {
      for (const method of METHODS) {
        const operation = item[method];
        if (!operation) continue;
        const full = `${base}${template}`;
        walked.add(`${method} ${full}`);
        const good = pathWith(full, (name) => encodeURIComponent(String(sample(doc, operation.parameters?.find((p) => p.name === name)?.schema))));
        // Path parameters.
        for (const bad of BAD_QUERY) {
          if (full.includes('{')) await send(`path ${bad.slice(0, 12)}`, method, pathWith(full, () => bad));
        }
        // Query parameters, one at a time.
        for (const parameter of operation.parameters ?? []) {
          if (parameter.in !== 'query') continue;
          for (const bad of BAD_QUERY) await send(`query ${parameter.name}=${bad.slice(0, 12)}`, method, `${good}?${parameter.name}=${bad}`);
        }
        // JSON bodies: each property in turn, an unknown property with a bad name, broken JSON.
        const json = operation.requestBody?.content?.['application/json']?.schema;
        if (json) {
          const schema = resolve(doc, json);
          const valid = sample(doc, schema) as Record<string, unknown>;
          const fields = Object.keys(schema?.properties ?? {});
          for (const field of fields) {
            for (const bad of BAD_JSON_VALUES) {
              const others = JSON.stringify({ ...valid, [field]: undefined }).slice(1, -1);
              await send(`body ${field}=${bad.slice(0, 12)}`, method, good, `{${others}${others ? ',' : ''}"${field}":${bad}}`);
            }
            await send(`body ${field} deep`, method, good, JSON.stringify({ ...valid, [field]: JSON.parse('['.repeat(500) + ']'.repeat(500)) }));
          }
          await send('body key NUL', method, good, '{"a\\u0000b":1}');
          await send('body broken', method, good, '{"a":');
          await send('body not an object', method, good, '"\\ud800"');
          // Nested past the call stack: as the whole body, and as the value of a field of an otherwise valid one.
          for (const [shape, deep] of Object.entries(DEEP_JSON)) {
            deepRoutes.add(`${method} ${full}`);
            await send(`body deep ${shape}`, method, good, deep, 'application/json', tooDeepBody(full));
            const field = fields[0] ?? 'x';
            const others = JSON.stringify({ ...valid, [field]: undefined }).slice(1, -1);
            await send(`body ${field} deep ${shape}`, method, good, `{${others}${others ? ',' : ''}"${field}":${deep}}`, 'application/json', tooDeepBody(full));
          }
        }
        const form = operation.requestBody?.content?.['multipart/form-data'];
        if (form) {
          await send('multipart no boundary', method, good, '--x\r\n\r\n', 'multipart/form-data');
          await send('multipart unclosed', method, good, '--b\r\nContent-Disposition: form-data; name="text"\r\n\r\nhi', 'multipart/form-data; boundary=b');
          await send('multipart NUL name', method, good, '--b\r\nContent-Disposition: form-data; name="a\u0000"\r\n\r\nhi\r\n--b--\r\n', 'multipart/form-data; boundary=b');
          // A file part under every file field (knowledge-base documents: `file`), with hostile file names as raw bytes.
          const fileFields = Object.entries(resolve(doc, form.schema)?.properties ?? {}).filter(
            ([, property]) => property.format === 'binary' || property.items?.format === 'binary',
          );
          for (const [field] of fileFields) {
            for (const name of [Buffer.from('a\u0000b.md'), Buffer.from([0xed, 0xa0, 0x80, 0x2e, 0x6d, 0x64]), Buffer.from([0xff, 0xfe]), Buffer.from(`${LONG.slice(0, 5000)}.md`), Buffer.from('')]) {
              const part = Buffer.concat([
                Buffer.from(`--b\r\nContent-Disposition: form-data; name="${field}"; filename="`),
                name,
                Buffer.from('"\r\nContent-Type: text/markdown\r\n\r\n# Fuzz\r\n\r\ntext\r\n--b--\r\n'),
              ]);
              await send(`multipart ${field} file name ${name.toString('hex').slice(0, 12)}`, method, good, part, 'multipart/form-data; boundary=b');
            }
            await send(`multipart ${field} empty file`, method, good, `--b\r\nContent-Disposition: form-data; name="${field}"; filename="e.md"\r\n\r\n\r\n--b--\r\n`, 'multipart/form-data; boundary=b');
          }
        }
      }
    }
  }
  assert.ok(documents >= 4, 'the documents were read');
  assert.ok(sent > 300, `only ${sent} requests were made`);
  assert.ok(deepRoutes.size >= 38, `deep bodies went to ${deepRoutes.size} routes only`);
  // The team's operations (issue #25) are among them.
  for (const route of [
    'post /console/v1/members/invite/',
    'put /console/v1/members/{id}/',
    'post /console/v1/auth/accept-invite',
    'put /console/v1/auth/password',
    'post /console/v1/chat/assign/{chatId}/',
    'post /console/v1/chat/notes/{chatId}/',
    'post /console/v1/canned-responses/',
    'put /console/v1/canned-responses/{id}/',
    // Alerts and follow-through (issue #33).
    'put /console/v1/me/',
    'put /console/v1/me/password',
    'post /console/v1/auth/forgot-password',
    'post /console/v1/auth/reset-password',
    'put /console/v1/account/alerts/',
    // Agent actions (issue #43).
    'post /console/v1/actions/',
    'put /console/v1/actions/{id}',
    'post /console/v1/actions/{id}/test',
    'post /console/v1/actions/import',
    // Single sign-on (issue #45, item 2).
    'put /console/v1/account/sso/',
    // Auto-assignment and team hours (issue #44, item 2).
    'put /console/v1/account/assignment/',
    'put /console/v1/account/hours/',
  ]) {
    assert.ok(deepRoutes.has(route), `${route} was not fuzzed`);
  }
  // The customer card (issue #34, item 5): its route, and the session start that records the host page.
  for (const route of ['get /console/v1/chat/customer/{chatId}/', 'post /widget/v1/session']) assert.ok(walked.has(route), `${route} was not fuzzed`);
  // Day two (issue #42): what the server offers, a pending invitation's link, the operator's password reset.
  for (const route of ['get /console/v1/server/', 'get /console/v1/members/{id}/invitation/']) assert.ok(walked.has(route), `${route} was not fuzzed`);
  for (const route of ['get /console/v1/account/sso/', 'get /console/v1/auth/sso/discover', 'get /console/v1/auth/sso/start', 'get /console/v1/auth/sso/callback']) {
    assert.ok(walked.has(route), `${route} was not fuzzed`);
  }
  assert.ok(deepRoutes.has('post /admin/v1/password-resets'), 'post /admin/v1/password-resets was not fuzzed');
  assert.deepEqual(failures, []);
  // Refused by validation, not by the database's safety net (error-handler.ts logs when that one catches).
  assert.deepEqual(t.logs.filter((line) => line.includes('unstorable text reached the database')).slice(0, 3), []);
});
