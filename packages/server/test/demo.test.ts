// The demo animal catalog (`/demo/v1`, spec area B), through the real app: bearer API keys, the Error
// resource for every error, cursor pagination, per-account seeding and isolation, exact int64 values.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { startTestApp, type TestApp, type TestResponse } from './support/harness.ts';

interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status?: string;
}
interface DemoError {
  code: string;
  message: string;
  status: number;
}

const INT64_MAX = '9223372036854775807';
const INT64_MIN = '-9223372036854775808';
const SUNSET = 'Thu, 05 Dec 2030 00:00:00 GMT';
const SEEDED = [
  { name: 'Rex', categoryId: 1, status: 'available' },
  { name: 'Whiskers', categoryId: 2, status: 'available' },
  { name: 'Bubbles', categoryId: 3, status: 'pending' },
  { name: 'Polly', categoryId: 4, status: 'sold' },
  { name: 'Nibbles', categoryId: 5 },
];

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

function demo<T = unknown>(
  key: string | undefined,
  method: string,
  path: string,
  options: { query?: Record<string, string>; body?: unknown; headers?: Record<string, string> } = {},
): Promise<TestResponse<T>> {
  const headers = { ...(key === undefined ? {} : bearer(key)), ...options.headers };
  return t.request<T>(method, `/demo/v1${path}`, { ...options, headers });
}

/** The Error resource, exactly: `code`, `message`, `status`, all present, nothing else. */
function assertError(res: TestResponse, status: number, code: string, message?: RegExp): void {
  assert.equal(res.status, status, res.text);
  const body = res.body as DemoError;
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message', 'status']);
  assert.equal(body.code, code);
  assert.equal(body.status, status);
  assert.equal(typeof body.message, 'string');
  assert.ok(body.message.length > 0);
  if (message) assert.match(body.message, message);
}

async function createPet(key: string, body: unknown): Promise<Pet> {
  const res = await demo<Pet>(key, 'POST', '/pets', { body });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

describe('authentication', () => {
  test('no Authorization header: 401 Error', async () => {
    const res = await demo(undefined, 'GET', '/pets');
    assertError(res, 401, 'unauthorized', /Missing API key/);
    assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
  });

  test('an unknown key, a key without `Bearer`, `Bearer` without a key: 401 Error', async () => {
    const { key } = await t.createAccount();
    assertError(await demo('prl_not-a-key', 'GET', '/pets'), 401, 'unauthorized', /Invalid API key/);
    assertError(await demo(undefined, 'GET', '/pets', { headers: { authorization: key } }), 401, 'unauthorized', /Bearer/);
    assertError(await demo(undefined, 'GET', '/pets', { headers: { authorization: 'Bearer' } }), 401, 'unauthorized');
    assertError(await demo(undefined, 'GET', '/pets', { headers: { authorization: 'Bearer ' } }), 401, 'unauthorized');
    assertError(await demo(undefined, 'GET', '/pets', { headers: { authorization: `Basic ${key}` } }), 401, 'unauthorized');
    // The scheme is case-insensitive (RFC 7235).
    assert.equal((await demo(undefined, 'GET', '/pets', { headers: { authorization: `bearer ${key}` } })).status, 200);
  });

  test('a deactivated key and a stopped subscription: 401 Error (the demo documents no other status)', async () => {
    const { key, keyId, accountId } = await t.createAccount();
    assert.equal((await demo(key, 'GET', '/pets')).status, 200);
    assert.equal((await t.admin('PUT', `/accounts/${accountId}/subscription`, { active: false })).status, 200);
    assertError(await demo(key, 'GET', '/pets'), 401, 'unauthorized', /subscription/);
    assert.equal((await t.admin('PUT', `/accounts/${accountId}/subscription`, { active: true })).status, 200);
    assert.equal((await demo(key, 'GET', '/pets')).status, 200);
    assert.equal((await t.admin('POST', `/api-keys/${keyId}/deactivate`)).status, 200);
    assertError(await demo(key, 'GET', '/pets'), 401, 'unauthorized', /not active/);
    assertError(await demo(key, 'POST', '/pets', { body: { name: 'x', categoryId: 1 } }), 401, 'unauthorized');
    assertError(await demo(key, 'GET', '/pets/1'), 401, 'unauthorized');
  });

  test('authentication comes before validation', async () => {
    assertError(await demo(undefined, 'GET', '/pets', { query: { limit: '0' } }), 401, 'unauthorized');
    assertError(await demo(undefined, 'POST', '/pets', { body: '{not json' }), 401, 'unauthorized');
    assertError(await demo(undefined, 'GET', '/pets/abc'), 401, 'unauthorized');
  });

  test('the public API key works with a scope-restricted key too (the demo needs no scope)', async () => {
    const { key } = await t.createAccount({ scopes: ['tags'] });
    assert.equal((await demo(key, 'GET', '/pets')).status, 200);
  });
});

describe('seeding', () => {
  test('a fresh account finds the seeded animals, by id ascending', async () => {
    const { key } = await t.createAccount();
    const res = await demo<Pet[]>(key, 'GET', '/pets');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(
      res.body.map(({ id: _id, ...rest }) => rest),
      SEEDED,
    );
    const ids = res.body.map((pet) => pet.id);
    assert.ok(ids.every((id) => Number.isInteger(id) && id > 0));
    assert.deepEqual(ids, [...ids].sort((a, b) => a - b));
    assert.equal(res.headers.get('link'), null);
  });

  test('concurrent first requests seed once', async () => {
    const { key, accountId } = await t.createAccount();
    const responses = await Promise.all([
      ...Array.from({ length: 8 }, () => demo<Pet[]>(key, 'GET', '/pets')),
      demo<Pet>(key, 'POST', '/pets', { body: { name: 'Racer', categoryId: 9 } }),
      demo(key, 'GET', '/pets/1'),
    ]);
    const lists = responses.slice(0, 8) as TestResponse<Pet[]>[];
    for (const res of lists) assert.equal(res.status, 200);
    const seededIds = lists[0]!.body.filter((p) => p.name !== 'Racer').map((p) => p.id);
    assert.equal(seededIds.length, SEEDED.length);
    for (const res of lists) assert.deepEqual(res.body.filter((p) => p.name !== 'Racer').map((p) => p.id), seededIds);
    assert.equal(responses[8]!.status, 201);
    const rows = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from pets where account_id = ${accountId}`);
    assert.equal(rows[0]?.n, SEEDED.length + 1);
    const marks = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from demo_seeds where account_id = ${accountId}`);
    assert.equal(marks[0]?.n, 1);
  });

  test('two processes on one database: concurrent first requests still seed once', async () => {
    const second = await startTestApp({ database: t.database });
    try {
      const { key, accountId } = await t.createAccount();
      const responses = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          (i % 2 ? second : t).request<Pet[]>('GET', '/demo/v1/pets', { headers: bearer(key) }),
        ),
      );
      for (const res of responses) assert.equal(res.body.length, SEEDED.length, res.text);
      const rows = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from pets where account_id = ${accountId}`);
      assert.equal(rows[0]?.n, SEEDED.length);
    } finally {
      await second.close();
    }
  });

  test('the first request being a POST seeds first: the new animal comes after the seeded ones', async () => {
    const { key } = await t.createAccount();
    const created = await createPet(key, { name: 'First', categoryId: 7 });
    const list = await demo<Pet[]>(key, 'GET', '/pets');
    assert.equal(list.body.length, SEEDED.length + 1);
    assert.deepEqual(list.body.at(-1), created);
  });
});

describe('POST /pets', () => {
  test('201 Pet: the NewPet fields and an assigned int64 id; status optional', async () => {
    const { key } = await t.createAccount();
    const res = await demo<Pet>(key, 'POST', '/pets', { body: { name: 'Luna', categoryId: 2, status: 'pending' } });
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body).sort(), ['categoryId', 'id', 'name', 'status']);
    assert.equal(res.body.name, 'Luna');
    assert.equal(res.body.categoryId, 2);
    assert.equal(res.body.status, 'pending');
    assert.ok(Number.isInteger(res.body.id) && res.body.id > 0);
    const bare = await createPet(key, { name: 'Nameless status', categoryId: 0 });
    assert.deepEqual(Object.keys(bare).sort(), ['categoryId', 'id', 'name']);
    assert.ok(bare.id > res.body.id);
    const got = await demo<Pet>(key, 'GET', `/pets/${res.body.id}`);
    assert.deepEqual(got.body, res.body);
  });

  test('negative and zero category IDs are int64 values: accepted', async () => {
    const { key } = await t.createAccount();
    assert.equal((await createPet(key, { name: 'Neg', categoryId: -5 })).categoryId, -5);
    assert.equal((await createPet(key, { name: 'Zero', categoryId: 0 })).categoryId, 0);
  });

  test('400 Error: missing fields, unknown fields, empty or long names, wrong types, bad values', async () => {
    const { key } = await t.createAccount();
    const cases: [unknown, RegExp][] = [
      [{ categoryId: 1 }, /name is required/],
      [{ name: 'Rex' }, /categoryId is required/],
      [{}, /name is required; categoryId is required|categoryId is required; name is required/],
      [{ name: 'Rex', categoryId: 1, color: 'brown' }, /property color should not exist/],
      [{ name: '', categoryId: 1 }, /name must NOT have fewer than 1 characters/],
      [{ name: 'x'.repeat(201), categoryId: 1 }, /name must NOT have more than 200 characters/],
      [{ name: 5, categoryId: 1 }, /name must be string/],
      [{ name: 'Rex', categoryId: '1' }, /categoryId must be an integer/],
      [{ name: 'Rex', categoryId: 1.5 }, /categoryId must be an integer/],
      [{ name: 'Rex', categoryId: null }, /categoryId must be an integer/],
      [{ name: 'Rex', categoryId: 1, status: 'lost' }, /status must be one of: available, pending, sold/],
      [{ name: 'Rex', categoryId: 1, status: null }, /status must be one of/],
      [[{ name: 'Rex', categoryId: 1 }], /body must be object/],
    ];
    for (const [body, message] of cases) {
      assertError(await demo(key, 'POST', '/pets', { body }), 400, 'bad_request', message);
    }
    const raw: [string, RegExp][] = [
      [`{"name":"Rex","categoryId":9223372036854775808}`, /categoryId must be an integer/],
      [`{"name":"Rex","categoryId":-9223372036854775809}`, /categoryId must be an integer/],
      [`{"name":"Rex","categoryId":1e300}`, /categoryId must be an integer/],
      [`{"name":"Rex","categoryId":1,"__proto__":{"x":1}}`, /property __proto__ should not exist/],
      [`{"name":"Rex","name":"Max","categoryId":1}`, /not valid JSON.*Duplicate key/],
      [`{"name":"Rex",`, /not valid JSON/],
      ['', /not valid JSON/],
    ];
    for (const [body, message] of raw) {
      assertError(await demo(key, 'POST', '/pets', { body }), 400, 'bad_request', message);
    }
    assertError(await demo(key, 'POST', '/pets'), 400, 'bad_request', /body must be object/);
    assertError(await demo(key, 'POST', '/pets', { query: { x: '1' }, body: { name: 'Rex', categoryId: 1 } }), 400, 'bad_request', /property x should not exist/);
    const list = await demo<Pet[]>(key, 'GET', '/pets');
    assert.equal(list.body.length, SEEDED.length, 'nothing was stored');
  });

  test('another content type: 415 Error', async () => {
    const { key } = await t.createAccount();
    for (const type of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded']) {
      const res = await demo(key, 'POST', '/pets', { body: 'name=Rex', headers: { 'content-type': type } });
      assertError(res, 415, 'unsupported_media_type');
    }
    const charset = { 'content-type': 'application/json; charset=utf-8' };
    assert.equal((await demo(key, 'POST', '/pets', { body: '{"name":"Rex","categoryId":1}', headers: charset })).status, 201);
  });
});

describe('GET /pets', () => {
  test('status filter and limit', async () => {
    const { key } = await t.createAccount();
    await createPet(key, { name: 'Sold two', categoryId: 1, status: 'sold' });
    const sold = await demo<Pet[]>(key, 'GET', '/pets', { query: { status: 'sold' } });
    assert.deepEqual(sold.body.map((p) => p.name), ['Polly', 'Sold two']);
    assert.ok(sold.body.every((p) => p.status === 'sold'));
    const two = await demo<Pet[]>(key, 'GET', '/pets', { query: { limit: '2' } });
    assert.deepEqual(two.body.map((p) => p.name), ['Rex', 'Whiskers']);
    const available = await demo<Pet[]>(key, 'GET', '/pets', { query: { status: 'available', limit: '1' } });
    assert.deepEqual(available.body.map((p) => p.name), ['Rex']);
    const all = await demo<Pet[]>(key, 'GET', '/pets', { query: { limit: '100' } });
    assert.equal(all.body.length, SEEDED.length + 1);
  });

  test('the default limit is 20', async () => {
    const { key } = await t.createAccount();
    for (let i = 0; i < 20; i += 1) await createPet(key, { name: `Pet ${i}`, categoryId: i });
    const res = await demo<Pet[]>(key, 'GET', '/pets');
    assert.equal(res.body.length, 20);
    assert.match(res.headers.get('link') ?? '', /limit=20&after=\d+>; rel="next"$/);
  });

  test('cursor pagination: Link rel="next" through every page, none on the last', async () => {
    const { key } = await t.createAccount();
    for (let i = 0; i < 7; i += 1) await createPet(key, { name: `Extra ${i}`, categoryId: 100 + i, status: i % 2 ? 'sold' : 'available' });
    const all = (await demo<Pet[]>(key, 'GET', '/pets', { query: { limit: '100' } })).body;
    assert.equal(all.length, 12);

    const seen: Pet[] = [];
    let path: string | undefined = '/demo/v1/pets?limit=5';
    const sizes: number[] = [];
    while (path) {
      const res: TestResponse<Pet[]> = await t.request<Pet[]>('GET', path, { headers: bearer(key) });
      assert.equal(res.status, 200);
      sizes.push(res.body.length);
      seen.push(...res.body);
      const link = res.headers.get('link');
      if (link === null) break;
      const match = /^<(\/demo\/v1\/pets\?limit=5&after=(\d+))>; rel="next"$/.exec(link);
      assert.ok(match, link);
      assert.equal(Number(match[2]), res.body.at(-1)?.id);
      path = match[1];
    }
    assert.deepEqual(sizes, [5, 5, 2]);
    assert.deepEqual(seen, all);

    // An exact multiple: the full last page has a Link, the page after it is empty and has none.
    const tenth = all[9]!.id;
    const exact = await demo<Pet[]>(key, 'GET', '/pets', { query: { limit: '2', after: String(all[7]!.id) } });
    assert.deepEqual(exact.body.map((p) => p.id), [all[8]!.id, tenth]);
    assert.ok(exact.headers.get('link'));
    const lastTwo = await demo<Pet[]>(key, 'GET', '/pets', { query: { limit: '2', after: String(all[9]!.id) } });
    assert.equal(lastTwo.body.length, 2);
    assert.equal(lastTwo.headers.get('link'), null);
    const empty = await demo<Pet[]>(key, 'GET', '/pets', { query: { after: String(all[11]!.id) } });
    assert.deepEqual(empty.body, []);
    assert.equal(empty.headers.get('link'), null);

    // The status filter is carried by the link.
    const firstSold = await demo<Pet[]>(key, 'GET', '/pets', { query: { status: 'sold', limit: '2' } });
    const link = firstSold.headers.get('link') ?? '';
    const next = /^<([^>]+)>; rel="next"$/.exec(link)?.[1];
    assert.match(next ?? '', /^\/demo\/v1\/pets\?limit=2&after=\d+&status=sold$/);
    const secondSold = await t.request<Pet[]>('GET', next!, { headers: bearer(key) });
    const soldAll = all.filter((p) => p.status === 'sold');
    assert.deepEqual([...firstSold.body, ...secondSold.body], soldAll.slice(0, firstSold.body.length + secondSold.body.length));
    assert.ok(secondSold.body.every((p) => p.status === 'sold'));
  });

  test('400 Error: limit out of range or not an integer, bad status, bad cursor, unknown parameter', async () => {
    const { key } = await t.createAccount();
    const cases: [Record<string, string>, RegExp][] = [
      [{ limit: '0' }, /limit must be >= 1/],
      [{ limit: '101' }, /limit must be <= 100/],
      [{ limit: 'abc' }, /limit must be integer/],
      [{ limit: '1.5' }, /limit must be integer/],
      [{ status: 'lost' }, /status must be one of: available, pending, sold/],
      [{ after: 'abc' }, /after must be an integer/],
      [{ after: '0' }, /after must be >= 1/],
      [{ after: '9223372036854775808' }, /after must be an integer/],
      [{ page: '2' }, /property page should not exist/],
    ];
    for (const [query, message] of cases) {
      assertError(await demo(key, 'GET', '/pets', { query }), 400, 'bad_request', message);
    }
    assertError(await t.request('GET', '/demo/v1/pets?limit=1&limit=2', { headers: bearer(key) }), 400, 'bad_request');
    assert.equal((await demo(key, 'GET', '/pets', { query: { after: INT64_MAX } })).status, 200);
  });
});

describe('GET /pets/{petId} (deprecated)', () => {
  test('200 Pet with Deprecation and Sunset headers', async () => {
    const { key } = await t.createAccount();
    const [first] = (await demo<Pet[]>(key, 'GET', '/pets')).body;
    const res = await demo<Pet>(key, 'GET', `/pets/${first!.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, first);
    assert.equal(res.headers.get('deprecation'), 'true');
    assert.equal(res.headers.get('sunset'), SUNSET);
    const missing = await demo(key, 'GET', '/pets/999999999');
    assert.equal(missing.headers.get('deprecation'), 'true');
    assert.equal(missing.headers.get('sunset'), SUNSET);
    // The other routes are not deprecated.
    assert.equal((await demo(key, 'GET', '/pets')).headers.get('deprecation'), null);
  });

  test('404 Error: a missing animal, another account\'s animal, the largest int64', async () => {
    const a = await t.createAccount();
    const b = await t.createAccount();
    const mine = await createPet(a.key, { name: 'Private', categoryId: 1 });
    assertError(await demo(a.key, 'GET', '/pets/999999999'), 404, 'not_found', /Pet not found/);
    assertError(await demo(b.key, 'GET', `/pets/${mine.id}`), 404, 'not_found', /Pet not found/);
    assertError(await demo(a.key, 'GET', `/pets/${INT64_MAX}`), 404, 'not_found', /Pet not found/);
  });

  test('400 Error: a petId that is not a positive int64', async () => {
    const { key } = await t.createAccount();
    const cases: [string, RegExp][] = [
      ['1.5', /petId must be an integer/],
      ['abc', /petId must be an integer/],
      ['-1', /petId must be >= 1/],
      ['0', /petId must be >= 1/],
      ['9223372036854775808', /petId must be an integer/],
      ['1e3', /petId must be an integer/],
    ];
    for (const [petId, message] of cases) {
      assertError(await demo(key, 'GET', `/pets/${petId}`), 400, 'bad_request', message);
    }
    assertError(await demo(key, 'GET', '/pets/1', { query: { x: '1' } }), 400, 'bad_request', /property x should not exist/);
  });
});

describe('isolation', () => {
  test('another account never sees or gets an account\'s animals', async () => {
    const a = await t.createAccount();
    const b = await t.createAccount();
    const secret = await createPet(a.key, { name: 'Secret', categoryId: 42 });
    const listA = (await demo<Pet[]>(a.key, 'GET', '/pets')).body;
    const listB = (await demo<Pet[]>(b.key, 'GET', '/pets')).body;
    assert.ok(listA.some((p) => p.id === secret.id));
    assert.ok(!listB.some((p) => p.id === secret.id));
    assert.equal(listB.length, SEEDED.length, 'B has only its own seeded animals');
    assert.equal(new Set([...listA, ...listB].map((p) => p.id)).size, listA.length + listB.length);
    // A cursor of A's ids does not reach into A's catalog.
    const afterB = await demo<Pet[]>(b.key, 'GET', '/pets', { query: { after: String(listA[0]!.id) } });
    assert.ok(afterB.body.every((p) => listB.some((q) => q.id === p.id)));
    assertError(await demo(b.key, 'GET', `/pets/${secret.id}`), 404, 'not_found');
  });
});

describe('int64', () => {
  test('the largest and smallest int64 category IDs round-trip exactly in the JSON text', async () => {
    const { key } = await t.createAccount();
    for (const value of [INT64_MAX, INT64_MIN, '9007199254740993']) {
      const res = await demo<Pet>(key, 'POST', '/pets', { body: `{"name":"Big","categoryId":${value},"status":"sold"}` });
      assert.equal(res.status, 201, res.text);
      assert.ok(res.text.includes(`"categoryId":${value}`), res.text);
      const id = /"id":(\d+)/.exec(res.text)?.[1];
      const got = await demo(key, 'GET', `/pets/${id}`);
      assert.ok(got.text.includes(`"categoryId":${value}`), got.text);
      const list = await demo(key, 'GET', '/pets', { query: { status: 'sold', limit: '100' } });
      assert.ok(list.text.includes(`"id":${id},"name":"Big","categoryId":${value}`), list.text);
    }
    const rows = await queryRows<{ c: string }>(t.database.db, sql`select category_id::text as c from pets where category_id = ${INT64_MAX}::bigint`);
    assert.deepEqual(rows.map((r) => r.c), [INT64_MAX]);
  });

  test('integers in other notations are accepted when exact (1.0, 2e1)', async () => {
    const { key } = await t.createAccount();
    for (const [literal, value] of [['2e1', 20], ['1.0', 1], ['-0', 0]] as const) {
      const res = await demo<Pet>(key, 'POST', '/pets', { body: `{"name":"Float-ish","categoryId":${literal}}` });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.categoryId, value);
    }
  });
});

describe('routes and documents', () => {
  test('unknown routes and methods: 404 Error, with or without a key', async () => {
    const { key } = await t.createAccount();
    assertError(await demo(key, 'GET', '/animals'), 404, 'not_found', /Route GET \/demo\/v1\/animals not found/);
    assertError(await demo(undefined, 'GET', '/animals'), 404, 'not_found');
    assertError(await demo(key, 'DELETE', '/pets/1'), 404, 'not_found');
    assertError(await demo(key, 'POST', '/pets/1', { body: { name: 'x' } }), 404, 'not_found');
    assertError(await t.request('GET', '/demo/v2/pets'), 404, 'not_found');
    // Other surfaces keep their own shape.
    const other = await t.request<Record<string, unknown>>('GET', '/api/v1/nothing');
    assert.deepEqual(Object.keys(other.body).sort(), ['message', 'statusCode']);
  });

  test('trailing slashes are accepted', async () => {
    const { key } = await t.createAccount();
    assert.equal((await demo(key, 'GET', '/pets/')).status, 200);
  });

  test('the OpenAPI 3.0 document: version 1.0.0, the three operations, deprecated getPet, int64, bearer', async () => {
    const res = await t.request<{
      openapi: string;
      info: { version: string };
      servers: { url: string }[];
      components: { securitySchemes: Record<string, { type: string; scheme: string }> };
      security: Record<string, string[]>[];
      paths: Record<string, Record<string, {
        operationId: string;
        deprecated?: boolean;
        parameters: { name: string; in: string; required: boolean; schema: Record<string, unknown> }[];
        requestBody?: { content: Record<string, { schema: { properties: Record<string, Record<string, unknown>>; required: string[] } }> };
        responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
      }>>;
    }>('GET', '/demo/v1/openapi.json');
    assert.equal(res.status, 200, 'no key needed');
    const doc = res.body;
    assert.match(doc.openapi, /^3\.0\.\d$/);
    assert.equal(doc.info.version, '1.0.0');
    assert.deepEqual(doc.servers, [{ url: '/demo/v1' }]);
    const ops = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
    assert.deepEqual(ops.sort(), ['GET /pets', 'GET /pets/{petId}', 'POST /pets']);
    const schemes = Object.values(doc.components.securitySchemes);
    assert.deepEqual(schemes.map((s) => [s.type, s.scheme]), [['http', 'bearer']]);
    assert.equal(doc.security.length, 1);

    const getPet = doc.paths['/pets/{petId}']!.get!;
    assert.equal(getPet.deprecated, true);
    assert.equal(doc.paths['/pets']!.get!.deprecated, undefined);
    assert.equal(doc.paths['/pets']!.post!.deprecated, undefined);
    const petId = getPet.parameters.find((p) => p.name === 'petId');
    assert.deepEqual([petId?.in, petId?.required, petId?.schema.type, petId?.schema.format], ['path', true, 'integer', 'int64']);
    assert.deepEqual(Object.keys(getPet.responses).sort(), ['200', '400', '401', '404', '429']);

    const list = doc.paths['/pets']!.get!;
    const limit = list.parameters.find((p) => p.name === 'limit');
    assert.deepEqual(limit?.schema, { type: 'integer', minimum: 1, maximum: 100, default: 20 });
    const status = list.parameters.find((p) => p.name === 'status');
    assert.deepEqual(status?.schema.enum, ['available', 'pending', 'sold']);

    const newPet = doc.paths['/pets']!.post!.requestBody!.content['application/json']!.schema;
    assert.deepEqual(newPet.required.sort(), ['categoryId', 'name']);
    assert.equal(newPet.properties.categoryId!.type, 'integer');
    assert.equal(newPet.properties.categoryId!.format, 'int64');
    const pet = JSON.stringify(doc.paths['/pets']!.post!.responses['201']);
    assert.ok(pet.includes('"id":{"type":"integer","format":"int64"'), pet);
    const error = doc.paths['/pets']!.post!.responses['401']!.content!['application/json']!.schema;
    assert.deepEqual((error.required as string[]).sort(), ['code', 'message', 'status']);
  });

  test('the reference at /docs lists the demo document', async () => {
    const init = await t.request('GET', '/docs/static/swagger-initializer.js');
    assert.ok(init.text.includes('/demo/v1/openapi.json'));
  });
});
