// Operator API (docs/architecture.md): accounts, API keys, deactivation, subscription; what is stored for secrets.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { startTestApp, type TestApp } from './support/harness.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const ALL_SCOPES = ['chats:read', 'chats:write', 'tags', 'messages', 'feedback', 'events:read'];
const unique = (name: string) => `${name}-${process.pid}-${Date.now()}@example.com`;

describe('operator token', () => {
  test('missing or wrong token: 401', async () => {
    for (const authorization of [undefined, 'Bearer wrong', 'test-admin-token-0123456789abcdef0123456789']) {
      const res = await t.request('POST', '/admin/v1/accounts', {
        headers: authorization ? { authorization } : {},
        body: { email: unique('x'), password: 'password123' },
      });
      assert.equal(res.status, 401);
      assert.deepEqual(res.body, { message: 'Unauthorized', statusCode: 401 });
    }
  });
});

describe('accounts', () => {
  test('create: 201 { id, email }, e-mail stored lower-cased, its owner (same id) with the password hashed with scrypt', async () => {
    const email = unique('New.Person');
    const res = await t.admin<{ id: string; email: string }>('POST', '/accounts', { email, password: 'password123' });
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body).sort(), ['email', 'id']);
    assert.equal(res.body.email, email.toLowerCase());
    assert.match(res.body.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const rows = await queryRows<{ password_hash: string; role: string; email: string; account_id: string }>(
      t.database.db,
      sql`select password_hash, role, email, account_id from members where id = ${res.body.id}`,
    );
    assert.deepEqual(
      rows.map((r) => [r.role, r.email, r.account_id]),
      [['owner', email.toLowerCase(), res.body.id]],
    );
    const hash = rows[0]?.password_hash ?? '';
    assert.match(hash, /^scrypt\$16384\$8\$1\$/);
    assert.ok(!hash.includes('password123'));
  });

  test('an e-mail that exists (in any case): 409', async () => {
    const email = unique('dup');
    assert.equal((await t.admin('POST', '/accounts', { email, password: 'password123' })).status, 201);
    const res = await t.admin('POST', '/accounts', { email: email.toUpperCase(), password: 'password456' });
    assert.equal(res.status, 409);
    assert.deepEqual(res.body, { message: 'An account with this e-mail already exists', statusCode: 409 });
  });

  test('bad bodies: 400 saying what is wrong, nothing stored', async () => {
    const cases: [unknown, string[]][] = [
      [{ email: 'not-an-email', password: 'password123' }, ['email must match format "email"']],
      [{ email: unique('short'), password: 'short' }, ['password must NOT have fewer than 8 characters']],
      [{ email: unique('extra'), password: 'password123', admin: true }, ['property admin should not exist']],
      [{ password: 'password123' }, ['email is required']],
      [{ email: 42, password: 'password123' }, ['email must be string']],
    ];
    for (const [body, message] of cases) {
      const res = await t.admin('POST', '/accounts', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.deepEqual(res.body, { message, statusCode: 400 });
    }
    const invalidJson = await t.admin('POST', '/accounts', '{"email":');
    assert.equal(invalidJson.status, 400);
    const count = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from accounts where email like 'extra-%'`);
    assert.equal(count[0]?.n, 0);
  });
});

describe('API keys', () => {
  test('issued with every scope by default; the key is shown once and stored only as SHA-256', async () => {
    const account = await t.admin<{ id: string }>('POST', '/accounts', { email: unique('k'), password: 'password123' });
    const res = await t.admin<{ id: string; key: string; scopes: string[] }>('POST', `/accounts/${account.body.id}/api-keys`);
    assert.equal(res.status, 201);
    assert.deepEqual(res.body.scopes, ALL_SCOPES);
    assert.match(res.body.key, /^prl_[A-Za-z0-9_-]{43}$/); // 32 random bytes
    const rows = await queryRows<Record<string, unknown>>(t.database.db, sql`select * from api_keys where id = ${res.body.id}`);
    const stored = rows[0] ?? {};
    assert.equal(stored.key_hash, createHash('sha256').update(res.body.key).digest('hex'));
    assert.equal(stored.prefix, res.body.key.slice(0, 12));
    assert.ok(!JSON.stringify(stored).includes(res.body.key));

    const list = await t.admin<{ keys: Record<string, unknown>[] }>('GET', `/accounts/${account.body.id}/api-keys`);
    assert.equal(list.status, 200);
    assert.equal(list.body.keys.length, 1);
    assert.deepEqual(Object.keys(list.body.keys[0] ?? {}).sort(), ['active', 'createdAt', 'id', 'prefix', 'scopes']);
    assert.ok(!list.text.includes(res.body.key));
  });

  test('chosen scopes; unknown or empty scopes are 400', async () => {
    const account = await t.admin<{ id: string }>('POST', '/accounts', { email: unique('s'), password: 'password123' });
    const path = `/accounts/${account.body.id}/api-keys`;
    const res = await t.admin<{ scopes: string[] }>('POST', path, { scopes: ['tags', 'chats:read'] });
    assert.equal(res.status, 201);
    assert.deepEqual(res.body.scopes, ['chats:read', 'tags']);
    assert.equal((await t.admin('POST', path, { scopes: ['admin'] })).status, 400);
    assert.equal((await t.admin('POST', path, { scopes: [] })).status, 400);
    assert.equal((await t.admin('POST', path, { scopes: ['tags', 'tags'] })).status, 400);
    assert.equal((await t.admin('POST', path, { other: 1 })).status, 400);
  });

  test('unknown account or key: 404; a malformed id: 400', async () => {
    const missing = '01900000-0000-7000-8000-000000000000';
    assert.deepEqual((await t.admin('POST', `/accounts/${missing}/api-keys`, {})).body, {
      message: 'Account not found',
      statusCode: 404,
    });
    assert.equal((await t.admin('GET', `/accounts/${missing}/api-keys`)).status, 404);
    assert.deepEqual((await t.admin('POST', `/api-keys/${missing}/deactivate`)).body, {
      message: 'API key not found',
      statusCode: 404,
    });
    assert.equal((await t.admin('PUT', `/accounts/${missing}/subscription`, { active: false })).status, 404);
    assert.equal((await t.admin('POST', '/accounts/not-a-uuid/api-keys', {})).status, 400);
  });

  test('deactivation is idempotent and shows in the list', async () => {
    const { accountId, keyId } = await t.createAccount();
    assert.deepEqual((await t.admin('POST', `/api-keys/${keyId}/deactivate`)).body, { id: keyId, active: false });
    assert.deepEqual((await t.admin('POST', `/api-keys/${keyId}/deactivate`)).body, { id: keyId, active: false });
    const list = await t.admin<{ keys: { id: string; active: boolean }[] }>('GET', `/accounts/${accountId}/api-keys`);
    assert.deepEqual(list.body.keys.map((k) => [k.id, k.active]), [[keyId, false]]);
  });
});

describe('subscription', () => {
  test('PUT answers the new state; the body is validated', async () => {
    const { accountId } = await t.createAccount();
    assert.deepEqual((await t.admin('PUT', `/accounts/${accountId}/subscription`, { active: false })).body, {
      active: false,
    });
    assert.equal((await t.admin('PUT', `/accounts/${accountId}/subscription`, { active: 'no' })).status, 400);
    assert.equal((await t.admin('PUT', `/accounts/${accountId}/subscription`, {})).status, 400);
  });
});
