// Agent actions over HTTP (issue #43), console side, against a real database and a fake shop API on a local port:
// create, read, change and delete with every rule of a saved action, secret headers (sealed at rest, masked on the
// way out, kept by "••••"), the test call and every way a call is refused (a bad value, a value that would change the
// request's shape, a private address with the switch off, a timeout, a 500, an answer too large, not JSON, a
// redirect), the runs and their paging, the metric, the OpenAPI import, tenant isolation and role rules on every route.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { startFakeShop, type FakeShop } from './support/fake-shop.ts';
import { PASSWORD, PUBLIC_URL, startTestApp, type TestApp } from './support/harness.ts';

const SECRET = 'shop-api-key-0123456789-very-secret';
const MASK = '••••';
const METRICS_TOKEN = 'metrics-token-0123456789';

interface Action {
  id: string;
  name: string;
  description: string;
  kind: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  parameters: { name: string; description: string; type: string; pattern?: string; values?: string[]; required: boolean; source: string }[];
  answer: string;
  errorAnswer: string | null;
  timeoutMs: number;
  enabled: boolean;
}
interface TestResult {
  request: { method: string; url: string; headers: Record<string, string>; body: unknown };
  response: { status: number; body: string } | null;
  answer: string | null;
  error: string | null;
  outcome: string | null;
}
interface Run {
  id: string;
  chatId: string | null;
  at: string;
  parameters: Record<string, unknown>;
  status: number | null;
  ms: number | null;
  outcome: string;
  error: string | null;
}

let t: TestApp;
let shop: FakeShop;

before(async () => {
  shop = await startFakeShop({ slowMs: 3_000 });
  t = await startTestApp({ webhookAllowPrivateNetworks: true, metricsToken: METRICS_TOKEN });
});
after(async () => {
  await t.close();
  await shop.close();
});

function orderStatus(overrides: Record<string, unknown> = {}) {
  return {
    name: 'order_status',
    description: 'Look up the status of an order by its number. Use it when the customer asks where an order is.',
    kind: 'read',
    method: 'GET',
    url: `${shop.url}/api/orders/{{order_number}}`,
    headers: { 'X-Api-Key': { secret: SECRET }, Accept: 'application/json' },
    parameters: [
      { name: 'order_number', description: 'the order number', type: 'string', pattern: '\\d{5}', required: true, prompt: 'What is your order number?', source: 'customer' },
    ],
    answer: 'Order {{id}} is {{status}}, arriving {{eta}}.{{#items}} {{qty}}× {{name}}{{/items}}',
    errorAnswer: "I couldn't find that order.",
    ...overrides,
  };
}

async function create(token: string, body: Record<string, unknown>) {
  const res = await t.console<Action>(token, 'POST', '/actions/', { body });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

const runsOf = async (token: string, id: string, query: Record<string, string> = {}) => {
  const res = await t.console<{ runs: Run[]; nextCursor: string | null }>(token, 'GET', `/actions/${id}/runs`, { query });
  assert.equal(res.status, 200, res.text);
  return res.body;
};

/** A member of `role` added to the owner's account, signed in. */
async function member(ownerToken: string, role: 'admin' | 'agent') {
  const email = `${role}-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;
  const invite = await t.console<{ inviteUrl: string }>(ownerToken, 'POST', '/members/invite/', { body: { email, role } });
  assert.equal(invite.status, 201, invite.text);
  const accepted = await t.console<{ token: string }>(undefined, 'POST', '/auth/accept-invite', {
    body: { token: invite.body.inviteUrl.slice(`${PUBLIC_URL}/invite/`.length), name: 'Teammate', password: PASSWORD },
  });
  assert.equal(accepted.status, 200, accepted.text);
  return accepted.body.token;
}

describe('actions: create, read, change, delete', () => {
  test('create: 201 with the secret masked, sealed at rest; list and get show the same; a name is unique (409)', async () => {
    const owner = await t.createConsoleUser();
    const action = await create(owner.token, orderStatus());
    assert.equal(action.name, 'order_status');
    assert.deepEqual(action.headers, { 'X-Api-Key': MASK, Accept: 'application/json' });
    assert.deepEqual([action.kind, action.method, action.timeoutMs, action.enabled, action.body], ['read', 'GET', 5000, true, null]);
    const [stored] = await queryRows<{ headers: { name: string; value: string; secret: boolean }[] }>(
      t.database.db,
      sql`select headers from actions where id = ${action.id}`,
    );
    const key = stored?.headers.find((header) => header.name === 'X-Api-Key');
    assert.equal(key?.secret, true);
    assert.match(key?.value ?? '', /^enc:v1:/);
    assert.ok(!JSON.stringify(stored).includes(SECRET), 'the secret is not stored in clear');

    const list = await t.console<{ actions: Action[] }>(owner.token, 'GET', '/actions/');
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.actions, [action]);
    const one = await t.console<Action>(owner.token, 'GET', `/actions/${action.id}`);
    assert.deepEqual(one.body, action);
    assert.ok(!list.text.includes(SECRET) && !one.text.includes(SECRET));

    const again = await t.console(owner.token, 'POST', '/actions/', { body: orderStatus() });
    assert.equal(again.status, 409);
    assert.deepEqual(again.body, { message: 'name: an action with this name exists already', statusCode: 409 });
    // Another account may use the name.
    const other = await t.createConsoleUser();
    await create(other.token, orderStatus());
  });

  test('400 on a placeholder that names no parameter, a bad pattern, a URL that is not http(s), and the other rules', async () => {
    const owner = await t.createConsoleUser();
    const cases: [Record<string, unknown>, string][] = [
      [{ url: `${shop.url}/api/orders/{{number}}` }, 'url: unknown placeholder {{number}}: it names no parameter'],
      [{ body: { order: '{{nope}}' }, method: 'POST' }, 'body.order: unknown placeholder {{nope}}: it names no parameter'],
      [{ body: { '{{order_number}}': 1 }, method: 'POST' }, 'body: placeholders are not allowed in field names'],
      [{ url: `${shop.url}/api/orders/{{order_number}` }, 'url: a placeholder is not closed or is nested'],
      [
        { parameters: [{ name: 'order_number', description: '', type: 'string', pattern: '([0-9]', required: true, source: 'customer' }] },
        'parameters[0].pattern: not a valid regular expression',
      ],
      [{ url: 'ftp://shop.example/orders/{{order_number}}' }, 'url must be an http or https URL'],
      [{ url: 'shop.example/orders/{{order_number}}' }, 'url must be an http or https URL'],
      [{ url: 'https://{{order_number}}.shop.example/orders' }, 'url: placeholders are allowed in the path and the query only, not in the host'],
      [{ url: 'https://user:pass@shop.example/orders/{{order_number}}' }, 'url must not hold a user name or password: put credentials in a secret header'],
      [{ headers: { 'User-Agent': 'me' } }, 'headers: User-Agent is set by Parley or the connection'],
      [{ headers: { 'X-Order': '{{order_number}}' } }, 'headers: the value of X-Order must not hold placeholders'],
      [{ answer: 'Order {{#items}}{{name}}' }, 'answer: not a valid template (Unclosed section "items" at 24)'],
      [{ name: 'hand_off' }, 'name: "hand_off" is the name of one of the agent\'s own tools'],
      [
        { parameters: [{ name: 'size', description: '', type: 'enum', required: true, source: 'customer' }], url: `${shop.url}/x/{{size}}` },
        'parameters[0].values: an enum parameter needs its values',
      ],
      [
        {
          parameters: [
            { name: 'a', description: '', type: 'string', required: true, source: 'customer' },
            { name: 'a', description: '', type: 'number', required: true, source: 'customer' },
          ],
          url: `${shop.url}/x/{{a}}`,
        },
        'parameters[1].name: "a" is given twice',
      ],
    ];
    for (const [overrides, message] of cases) {
      const res = await t.console(owner.token, 'POST', '/actions/', { body: orderStatus(overrides) });
      assert.equal(res.status, 400, `${JSON.stringify(overrides)}: ${res.text}`);
      assert.deepEqual(res.body, { message, statusCode: 400 }, JSON.stringify(overrides));
    }
    // The schema's own rules: the name's pattern, the time limit's range, an unknown field.
    for (const body of [orderStatus({ name: 'Order-Status' }), orderStatus({ timeoutMs: 999 }), orderStatus({ timeoutMs: 10_001 }), { ...orderStatus(), extra: 1 }]) {
      assert.equal((await t.console(owner.token, 'POST', '/actions/', { body })).status, 400, JSON.stringify(body));
    }
    assert.deepEqual((await t.console<{ actions: unknown[] }>(owner.token, 'GET', '/actions/')).body.actions, []);
  });

  test('PUT is partial; "••••" sent back keeps the stored secret, a new one replaces it; 409 on a name taken; DELETE', async () => {
    const owner = await t.createConsoleUser();
    const action = await create(owner.token, orderStatus());
    await create(owner.token, orderStatus({ name: 'order_items' }));
    const renamed = await t.console<Action>(owner.token, 'PUT', `/actions/${action.id}`, { body: { description: 'Where is an order', timeoutMs: 2000 } });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual([renamed.body.name, renamed.body.description, renamed.body.timeoutMs, renamed.body.url], ['order_status', 'Where is an order', 2000, action.url]);

    const kept = await t.console<Action>(owner.token, 'PUT', `/actions/${action.id}`, { body: { headers: { 'X-Api-Key': MASK, 'X-Shop': 'main' } } });
    assert.equal(kept.status, 200, kept.text);
    assert.deepEqual(kept.body.headers, { 'X-Api-Key': MASK, 'X-Shop': 'main' });
    await t.console(owner.token, 'POST', `/actions/${action.id}/test`, { body: { parameters: { order_number: '10482' } } });
    assert.equal(shop.requests.at(-1)?.headers['x-api-key'], SECRET, 'the kept secret is still sent');

    const replaced = await t.console<Action>(owner.token, 'PUT', `/actions/${action.id}`, { body: { headers: { 'X-Api-Key': { secret: 'new-secret-value-1234' } } } });
    assert.deepEqual(replaced.body.headers, { 'X-Api-Key': MASK });
    await t.console(owner.token, 'POST', `/actions/${action.id}/test`, { body: { parameters: { order_number: '10482' } } });
    assert.equal(shop.requests.at(-1)?.headers['x-api-key'], 'new-secret-value-1234');

    const noSecret = await t.console(owner.token, 'PUT', `/actions/${action.id}`, { body: { headers: { 'X-Other': MASK } } });
    assert.equal(noSecret.status, 400);
    assert.deepEqual(noSecret.body, { message: 'headers: X-Other: "••••" keeps a stored secret, and this action has none of this name', statusCode: 400 });
    const taken = await t.console(owner.token, 'PUT', `/actions/${action.id}`, { body: { name: 'order_items' } });
    assert.equal(taken.status, 409);
    const broken = await t.console(owner.token, 'PUT', `/actions/${action.id}`, { body: { url: `${shop.url}/{{missing}}` } });
    assert.equal(broken.status, 400);

    const removed = await t.console(owner.token, 'DELETE', `/actions/${action.id}`);
    assert.equal(removed.status, 200);
    assert.deepEqual(removed.body, { success: true });
    assert.equal((await t.console(owner.token, 'GET', `/actions/${action.id}`)).status, 404);
    assert.equal((await t.console(owner.token, 'DELETE', `/actions/${action.id}`)).status, 404);
    assert.deepEqual((await t.console(owner.token, 'GET', `/actions/${action.id}/runs`)).body, { message: 'Action not found', statusCode: 404 });
  });

  test("a channel lists its own account's actions (actionIds, default []); an entry answers with one (actionId); a delete takes it out of both", async () => {
    const owner = await t.createConsoleUser();
    const other = await t.createConsoleUser();
    const action = await create(owner.token, orderStatus());
    const foreign = await create(other.token, orderStatus());
    const channel = await t.console<{ id: string; actionIds: string[] }>(owner.token, 'POST', '/channel/custom/connect/', { body: { name: 'API' } });
    assert.equal(channel.status, 201, channel.text);
    assert.deepEqual(channel.body.actionIds, []);
    const set = await t.console<{ actionIds: string[] }>(owner.token, 'PUT', `/channel/custom/${channel.body.id}/`, { body: { actionIds: [action.id] } });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(set.body.actionIds, [action.id]);
    const refused = await t.console(owner.token, 'PUT', `/channel/custom/${channel.body.id}/`, { body: { actionIds: [foreign.id] } });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body, { message: `actionIds: action not found: ${foreign.id}`, statusCode: 400 });

    const base = await t.console<{ id: string }>(owner.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ' } });
    const entry = await t.console<{ id: string; actionId: string | null }>(owner.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, {
      body: { question: 'Where is my order?', answer: 'Let me check.', actionId: action.id },
    });
    assert.equal(entry.status, 201, entry.text);
    assert.equal(entry.body.actionId, action.id);
    const plain = await t.console<{ id: string; actionId: string | null }>(owner.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, {
      body: { question: 'Shipping?', answer: '3 days.' },
    });
    assert.equal(plain.body.actionId, null);
    const foreignEntry = await t.console(owner.token, 'PUT', `/knowledge-bases/${base.body.id}/entries/${plain.body.id}`, { body: { actionId: foreign.id } });
    assert.equal(foreignEntry.status, 400);
    assert.deepEqual(foreignEntry.body, { message: `actionId: action not found: ${foreign.id}`, statusCode: 400 });
    const linked = await t.console<{ actionId: string | null; answer: string }>(owner.token, 'PUT', `/knowledge-bases/${base.body.id}/entries/${plain.body.id}`, {
      body: { actionId: action.id, answer: '3 to 5 days.' },
    });
    assert.deepEqual([linked.body.actionId, linked.body.answer], [action.id, '3 to 5 days.']);
    const unlinked = await t.console<{ actionId: string | null }>(owner.token, 'PUT', `/knowledge-bases/${base.body.id}/entries/${plain.body.id}`, { body: { actionId: null } });
    assert.equal(unlinked.body.actionId, null);

    assert.equal((await t.console(owner.token, 'DELETE', `/actions/${action.id}`)).status, 200);
    const after = await t.console<{ actionIds: string[] }>(owner.token, 'GET', `/channel/custom/${channel.body.id}/`);
    assert.deepEqual(after.body.actionIds, []);
    const entries = await t.console<{ entries: { id: string; actionId: string | null }[] }>(owner.token, 'GET', `/knowledge-bases/${base.body.id}/entries`);
    assert.deepEqual(entries.body.entries.find((e) => e.id === entry.body.id)?.actionId, null);
  });

  test("tenant isolation: another account's action is 404 on every route", async () => {
    const owner = await t.createConsoleUser();
    const stranger = await t.createConsoleUser();
    const action = await create(owner.token, orderStatus());
    assert.deepEqual((await t.console(stranger.token, 'GET', `/actions/${action.id}`)).body, { message: 'Action not found', statusCode: 404 });
    assert.equal((await t.console(stranger.token, 'PUT', `/actions/${action.id}`, { body: { description: 'mine' } })).status, 404);
    assert.equal((await t.console(stranger.token, 'POST', `/actions/${action.id}/test`, { body: { parameters: { order_number: '10482' } } })).status, 404);
    assert.equal((await t.console(stranger.token, 'GET', `/actions/${action.id}/runs`)).status, 404);
    assert.equal((await t.console(stranger.token, 'DELETE', `/actions/${action.id}`)).status, 404);
    assert.deepEqual((await t.console<{ actions: unknown[] }>(stranger.token, 'GET', '/actions/')).body.actions, []);
    // Still there, unchanged, for its owner.
    const mine = await t.console<Action>(owner.token, 'GET', `/actions/${action.id}`);
    assert.equal(mine.body.description, action.description);
    assert.equal((await t.console(owner.token, 'GET', '/actions/not-a-uuid')).status, 400);
  });

  test("roles: an agent reads actions and runs (secrets masked); changing, testing and importing are the admin's (403)", async () => {
    const owner = await t.createConsoleUser();
    const action = await create(owner.token, orderStatus());
    const agent = await member(owner.token, 'agent');
    const admin = await member(owner.token, 'admin');
    const list = await t.console<{ actions: Action[] }>(agent, 'GET', '/actions/');
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.actions[0]?.headers, { 'X-Api-Key': MASK, Accept: 'application/json' });
    assert.equal((await t.console(agent, 'GET', `/actions/${action.id}`)).status, 200);
    assert.equal((await t.console(agent, 'GET', `/actions/${action.id}/runs`)).status, 200);
    const forbidden = { message: 'Forbidden for your role', statusCode: 403 };
    for (const [method, path, body] of [
      ['POST', '/actions/', orderStatus({ name: 'other' })],
      ['PUT', `/actions/${action.id}`, { description: 'x' }],
      ['DELETE', `/actions/${action.id}`, undefined],
      ['POST', `/actions/${action.id}/test`, { parameters: { order_number: '10482' } }],
      ['POST', '/actions/import', { openapi: '{}', operations: ['x'] }],
      ['POST', '/actions/import/preview', { openapi: '{}' }],
    ] as const) {
      const res = await t.console(agent, method, path, body === undefined ? {} : { body });
      assert.equal(res.status, 403, `${method} ${path}`);
      assert.deepEqual(res.body, forbidden);
    }
    const byAdmin = await t.console(admin, 'PUT', `/actions/${action.id}`, { body: { description: 'by the admin' } });
    assert.equal(byAdmin.status, 200, byAdmin.text);
  });
});

describe('the test call', () => {
  test('a read: the request as sent (secret masked), the response and the rendered answer; the shop saw the secret and the User-Agent', async () => {
    const owner = await t.createConsoleUser();
    const action = await create(owner.token, orderStatus());
    const res = await t.console<TestResult>(owner.token, 'POST', `/actions/${action.id}/test`, { body: { parameters: { order_number: '10482' } } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.request, {
      method: 'GET',
      url: `${shop.url}/api/orders/10482`,
      headers: { 'X-Api-Key': MASK, Accept: 'application/json' },
      body: null,
    });
    assert.equal(res.body.response?.status, 200);
    assert.equal(JSON.parse(res.body.response?.body ?? '{}').status, 'shipped');
    assert.equal(res.body.answer, 'Order 10482 is shipped, arriving 2026-12-01. 1× Blue scarf 2× Wool hat');
    assert.deepEqual([res.body.error, res.body.outcome], [null, 'ok']);
    assert.ok(!res.text.includes(SECRET));
    const seen = shop.requests.at(-1);
    assert.equal(seen?.rawPath, '/api/orders/10482');
    assert.equal(seen?.headers['x-api-key'], SECRET);
    assert.equal(seen?.headers['user-agent'], 'Parley-Action/1.0');

    const { runs } = await runsOf(owner.token, action.id);
    assert.equal(runs.length, 1);
    assert.deepEqual({ ...runs[0], id: undefined, ms: undefined }, { id: undefined, chatId: null, at: runs[0]?.at, parameters: { order_number: '10482' }, status: 200, ms: undefined, outcome: 'ok', error: null });
    assert.equal(typeof runs[0]?.ms, 'number');
  });

  test('a write is sent only with confirm: true; a bad value is a 400 and nothing is sent', async () => {
    const owner = await t.createConsoleUser();
    const cancel = await create(owner.token, {
      name: 'cancel_order',
      description: 'Cancel an order',
      kind: 'write',
      method: 'POST',
      url: `${shop.url}/echo/cancel/{{order_number}}`,
      body: { order: '{{order_number}}', reason: 'customer asked: {{reason}}', count: '{{count}}' },
      parameters: [
        { name: 'order_number', description: 'the order number', type: 'string', pattern: '\\d{5}', required: true, source: 'customer' },
        { name: 'reason', description: 'why', type: 'string', required: false, source: 'customer' },
        { name: 'count', description: 'how many', type: 'number', required: false, source: 'customer' },
      ],
      answer: 'Done.',
    });
    const before = shop.requests.length;
    const unsent = await t.console<TestResult>(owner.token, 'POST', `/actions/${cancel.id}/test`, { body: { parameters: { order_number: '10482', count: 2 } } });
    assert.equal(unsent.status, 200, unsent.text);
    assert.deepEqual(unsent.body, {
      request: { method: 'POST', url: `${shop.url}/echo/cancel/10482`, headers: {}, body: { order: '10482', reason: 'customer asked: ', count: 2 } },
      response: null,
      answer: null,
      error: 'Not sent: a write action is called only with "confirm": true',
      outcome: null,
    });
    assert.equal(shop.requests.length, before, 'nothing was sent');
    const sent = await t.console<TestResult>(owner.token, 'POST', `/actions/${cancel.id}/test`, { body: { parameters: { order_number: '10482', count: '3' }, confirm: true } });
    assert.equal(sent.body.outcome, 'ok');
    assert.equal(shop.requests.length, before + 1);
    assert.deepEqual(JSON.parse(shop.requests.at(-1)?.body ?? ''), { order: '10482', reason: 'customer asked: ', count: 3 });
    assert.equal(shop.requests.at(-1)?.headers['content-type'], 'application/json');

    for (const [parameters, message] of [
      [{ order_number: '1048' }, 'parameters: order_number: does not match the pattern \\d{5}'],
      [{}, 'parameters: order_number: required'],
      [{ order_number: '10482', count: 'two' }, 'parameters: count: must be a number'],
      [{ order_number: '10482', colour: 'red' }, 'parameters: colour: not a parameter of this action'],
    ] as const) {
      const res = await t.console(owner.token, 'POST', `/actions/${cancel.id}/test`, { body: { parameters, confirm: true } });
      assert.equal(res.status, 400, JSON.stringify(parameters));
      assert.deepEqual(res.body, { message, statusCode: 400 });
    }
    assert.equal(shop.requests.length, before + 1, 'no bad value reached the shop');
  });

  test("a customer's value never changes the request's shape: ../admin, ?x=, \"}, {{…}}, # stay inside their place", async () => {
    const owner = await t.createConsoleUser();
    const echo = await create(owner.token, {
      name: 'echo',
      description: 'Echo',
      kind: 'write',
      method: 'POST',
      url: `${shop.url}/echo/orders/{{q}}?tag={{q}}&fixed=1`,
      headers: { 'X-Fixed': 'yes' },
      body: { note: 'say {{q}}', q: '{{q}}' },
      parameters: [{ name: 'q', description: 'free text', type: 'string', required: true, source: 'customer' }],
      answer: '{{rawPath}}',
    });
    const hostile = ['../admin', '?x=1&admin=true', '"}, "admin": true, "x": {"', '{{q}}{{secret}}', 'a/b#frag', 'line\r\nX-Injected: 1'];
    for (const value of hostile) {
      const res = await t.console<TestResult>(owner.token, 'POST', `/actions/${echo.id}/test`, { body: { parameters: { q: value }, confirm: true } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.outcome, 'ok', `${value}: ${res.text}`);
      const seen = shop.requests.at(-1);
      assert.ok(seen);
      assert.equal(seen.rawPath, `/echo/orders/${encodeURIComponent(value)}`, value);
      assert.equal(seen.rawPath.split('/').length, 4, `${value}: one segment`);
      assert.deepEqual([...seen.query.keys()], ['tag', 'fixed'], value);
      assert.equal(seen.query.get('tag'), value);
      assert.deepEqual(JSON.parse(seen.body), { note: `say ${value}`, q: value }, value);
      assert.equal(seen.headers['x-injected'], undefined);
      assert.equal(seen.headers['x-fixed'], 'yes');
    }
    // A value alone in a segment cannot be a dot segment (URL parsers resolve `..`, %2E included): refused, recorded.
    for (const value of ['..', '.', '%2e%2e']) {
      const before = shop.requests.length;
      const res = await t.console(owner.token, 'POST', `/actions/${echo.id}/test`, { body: { parameters: { q: value }, confirm: true } });
      if (value === '%2e%2e') {
        assert.equal(res.status, 200, 'a percent sign is encoded itself: %252e%252e is no dot segment');
        assert.equal(shop.requests.at(-1)?.rawPath, '/echo/orders/%252e%252e');
      } else {
        assert.equal(res.status, 400, value);
        assert.deepEqual(res.body, { message: 'parameters: a value cannot be the path segment "." or ".."', statusCode: 400 });
        assert.equal(shop.requests.length, before);
      }
    }
  });

  test('refused, timed out or failed: a 500, a timeout, an answer too large, not JSON, a redirect (not followed); secrets masked in what the shop said', async () => {
    const owner = await t.createConsoleUser();
    const make = (name: string, path: string, extra: Record<string, unknown> = {}) =>
      create(owner.token, {
        name,
        description: name,
        kind: 'read',
        method: 'GET',
        url: `${shop.url}${path}`,
        headers: { Authorization: { secret: `Bearer ${SECRET}` } },
        answer: 'ok',
        ...extra,
      });
    const cases: [string, string, Record<string, unknown>, { outcome: string; status: number | null; error: string }][] = [
      ['server_error', '/error', {}, { outcome: 'http_error', status: 500, error: 'HTTP 500' }],
      ['too_slow', '/slow', { timeoutMs: 1000 }, { outcome: 'timeout', status: null, error: 'no answer within 1000 ms' }],
      ['too_big', '/big', {}, { outcome: 'refused', status: 200, error: 'the answer is larger than 256 KB' }],
      ['not_json', '/html', {}, { outcome: 'refused', status: 200, error: 'the answer is not JSON' }],
      ['moved', '/redirect', {}, { outcome: 'refused', status: 302, error: 'a redirect (HTTP 302 to /echo/redirected) is not followed' }],
      ['no_content', '/empty', {}, { outcome: 'ok', status: 204, error: '' }],
    ];
    for (const [name, path, extra, expected] of cases) {
      const action = await make(name, path, extra);
      const res = await t.console<TestResult>(owner.token, 'POST', `/actions/${action.id}/test`, { body: { parameters: {} } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.outcome, expected.outcome, name);
      assert.equal(res.body.error, expected.error || null, name);
      assert.equal(res.body.response?.status ?? null, expected.status, name);
      assert.equal(res.body.answer, expected.outcome === 'ok' ? 'ok' : null, name);
      assert.ok(!res.text.includes(SECRET), `${name}: no secret in the answer`);
      const { runs } = await runsOf(owner.token, action.id);
      assert.deepEqual([runs[0]?.outcome, runs[0]?.status, runs[0]?.error], [expected.outcome, expected.status, expected.error || null], name);
    }
    // The 500's body echoed the Authorization header: shown masked.
    const echoed = await t.console<TestResult>(owner.token, 'POST', `/actions/${(await t.console<{ actions: Action[] }>(owner.token, 'GET', '/actions/')).body.actions.find((a) => a.name === 'server_error')?.id}/test`, {
      body: { parameters: {} },
    });
    assert.equal(JSON.parse(echoed.body.response?.body ?? '{}').echo, MASK);
    assert.equal(shop.to('/echo/redirected').length, 0, 'the redirect was not followed');
    assert.ok(!t.logs.some((line) => line.includes(SECRET)), 'no secret in the logs');
  });

  test('the runs: newest first, paged by cursor; parley_action_calls_total counts them by kind and outcome', async () => {
    const owner = await t.createConsoleUser();
    const action = await create(owner.token, orderStatus());
    for (const number of ['10482', '10483', '99999']) {
      await t.console(owner.token, 'POST', `/actions/${action.id}/test`, { body: { parameters: { order_number: number } } });
    }
    const first = await runsOf(owner.token, action.id, { limit: '2' });
    assert.deepEqual(first.runs.map((run) => [run.parameters.order_number, run.outcome, run.status]), [['99999', 'http_error', 404], ['10483', 'ok', 200]]);
    assert.ok(first.nextCursor);
    const second = await runsOf(owner.token, action.id, { limit: '2', cursor: first.nextCursor ?? '' });
    assert.deepEqual(second.runs.map((run) => run.parameters.order_number), ['10482']);
    assert.equal(second.nextCursor, null);
    assert.equal((await t.console(owner.token, 'GET', `/actions/${action.id}/runs`, { query: { cursor: 'nope' } })).status, 400);

    const metrics = await t.request('GET', '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    assert.match(metrics.text, /parley_action_calls_total\{kind="read",outcome="ok"\} [1-9]/);
    assert.match(metrics.text, /parley_action_calls_total\{kind="read",outcome="http_error"\} [1-9]/);
    assert.match(metrics.text, /parley_action_calls_total\{kind="write",outcome="declined"\} \d/);
  });
});

describe('with WEBHOOK_ALLOW_PRIVATE_NETWORKS off', () => {
  let closed: TestApp;
  before(async () => {
    closed = await startTestApp({ webhookAllowPrivateNetworks: false });
  });
  after(() => closed.close());

  test('http is refused when saved; a private or loopback address is refused when called (no request reaches it)', async () => {
    const owner = await closed.createConsoleUser();
    const http = await closed.console(owner.token, 'POST', '/actions/', { body: orderStatus() });
    assert.equal(http.status, 400);
    assert.deepEqual(http.body, { message: 'url must be https (http only with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true)', statusCode: 400 });
    const port = new URL(shop.url).port;
    const before = shop.requests.length;
    for (const [name, url, error] of [
      ['literal', `https://127.0.0.1:${port}/api/orders/{{order_number}}`, 'refused to connect to 127.0.0.1 (private network)'],
      ['by_name', `https://localhost:${port}/api/orders/{{order_number}}`, /refused to connect to (127\.0\.0\.1|::1) \(private network\)/],
      ['metadata', 'https://169.254.169.254/latest/{{order_number}}', 'refused to connect to 169.254.169.254 (private network)'],
    ] as const) {
      const created = await closed.console<Action>(owner.token, 'POST', '/actions/', { body: orderStatus({ name, url }) });
      assert.equal(created.status, 201, created.text);
      const res = await closed.console<TestResult>(owner.token, 'POST', `/actions/${created.body.id}/test`, { body: { parameters: { order_number: '10482' } } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.outcome, 'refused', name);
      if (typeof error === 'string') assert.equal(res.body.error, error);
      else assert.match(res.body.error ?? '', error);
      assert.equal(res.body.response, null);
    }
    assert.equal(shop.requests.length, before, 'nothing reached the shop');
  });
});

describe('import from an OpenAPI 3 document', () => {
  const YAML = `openapi: 3.0.3
info: { title: Shop, version: '1' }
servers:
  - url: https://{region}.shop.example/api
    variables:
      region: { default: eu }
paths:
  /orders/{orderNumber}:
    parameters:
      - $ref: '#/components/parameters/OrderNumber'
    get:
      operationId: getOrderStatus
      summary: Look up an order's status
      parameters:
        - name: include-items
          in: query
          schema: { type: boolean }
        - name: X-Trace
          in: header
          schema: { type: string }
      responses: { '200': { description: ok } }
    delete:
      operationId: cancelOrder
      description: Cancel an order that has not shipped
      parameters:
        - name: reason
          in: query
          required: true
          schema: { type: string, enum: [changed_mind, too_late] }
      responses: { '200': { description: ok } }
  /orders:
    get:
      operationId: listOrders
      parameters:
        - name: limit
          in: query
          schema: { type: integer }
      responses: { '200': { description: ok } }
components:
  parameters:
    OrderNumber:
      name: orderNumber
      in: path
      required: true
      description: The order's number
      schema: { type: string, pattern: '^[0-9]{5}$' }
`;

  test('the chosen operations become disabled actions with their parameters; 400 for an unknown operation or a bad document', async () => {
    const owner = await t.createConsoleUser();
    await create(owner.token, orderStatus({ name: 'get_order_status' }));
    const res = await t.console<{ actions: Action[] }>(owner.token, 'POST', '/actions/import', { body: { openapi: YAML, operations: ['getOrderStatus', 'cancelOrder'] } });
    assert.equal(res.status, 201, res.text);
    const [status, cancel] = res.body.actions;
    assert.deepEqual(
      { name: status?.name, description: status?.description, kind: status?.kind, method: status?.method, url: status?.url, enabled: status?.enabled, parameters: status?.parameters },
      {
        name: 'get_order_status_2',
        description: "Look up an order's status",
        kind: 'read',
        method: 'GET',
        url: 'https://eu.shop.example/api/orders/{{orderNumber}}?include-items={{include_items}}',
        enabled: false,
        parameters: [
          { name: 'orderNumber', description: "The order's number", type: 'string', pattern: '^[0-9]{5}$', required: true, source: 'customer' },
          { name: 'include_items', description: 'include-items', type: 'string', required: false, source: 'customer' },
        ],
      },
    );
    assert.deepEqual(
      { name: cancel?.name, description: cancel?.description, kind: cancel?.kind, method: cancel?.method, url: cancel?.url, parameters: cancel?.parameters },
      {
        name: 'cancel_order',
        description: 'Cancel an order that has not shipped',
        kind: 'write',
        method: 'DELETE',
        url: 'https://eu.shop.example/api/orders/{{orderNumber}}?reason={{reason}}',
        parameters: [
          { name: 'orderNumber', description: "The order's number", type: 'string', pattern: '^[0-9]{5}$', required: true, source: 'customer' },
          { name: 'reason', description: 'reason', type: 'enum', values: ['changed_mind', 'too_late'], required: true, source: 'customer' },
        ],
      },
    );
    // Saved with enabled: true, it is an action like any other.
    const saved = await t.console<Action>(owner.token, 'PUT', `/actions/${status?.id}`, { body: { enabled: true, answer: 'Order {{id}}: {{status}}' } });
    assert.equal(saved.body.enabled, true);

    const json = JSON.stringify({ openapi: '3.1.0', info: { title: 'x', version: '1' }, servers: [{ url: 'https://shop.example' }], paths: { '/ping': { get: { operationId: 'ping' } } } });
    const fromJson = await t.console<{ actions: Action[] }>(owner.token, 'POST', '/actions/import', { body: { openapi: json, operations: ['ping'] } });
    assert.equal(fromJson.status, 201, fromJson.text);
    assert.deepEqual([fromJson.body.actions[0]?.name, fromJson.body.actions[0]?.url], ['ping', 'https://shop.example/ping']);

    for (const [body, message] of [
      [{ openapi: YAML, operations: ['nope'] }, 'operations: the document has no operation "nope"'],
      [{ openapi: 'swagger: "2.0"\npaths: {}', operations: ['x'] }, 'openapi: only OpenAPI 3 documents are read (no `openapi: 3.x` field)'],
      [{ openapi: '{ not: [yaml', operations: ['x'] }, /^openapi: the document is neither JSON nor YAML/],
      [{ openapi: YAML.replace('https://{region}.shop.example/api', '/api'), operations: ['listOrders'] }, 'openapi: the server URL "/api" is not an absolute http(s) URL: the actions need one'],
    ] as const) {
      const bad = await t.console<{ message: string }>(owner.token, 'POST', '/actions/import', { body });
      assert.equal(bad.status, 400, bad.text);
      if (typeof message === 'string') assert.deepEqual(bad.body, { message, statusCode: 400 });
      else assert.match(bad.body.message, message);
    }
    const names = (await t.console<{ actions: Action[] }>(owner.token, 'GET', '/actions/')).body.actions.map((a) => a.name);
    assert.deepEqual(names, ['cancel_order', 'get_order_status', 'get_order_status_2', 'ping'], 'a refused import creates nothing');
  });

  test('the preview lists the operations an import can choose, creates nothing, and refuses what the import refuses', async () => {
    const owner = await t.createConsoleUser();
    const preview = await t.console<{ operations: unknown[] }>(owner.token, 'POST', '/actions/import/preview', { body: { openapi: YAML } });
    assert.equal(preview.status, 200, preview.text);
    assert.deepEqual(preview.body, {
      operations: [
        { operationId: 'getOrderStatus', method: 'GET', path: '/orders/{orderNumber}', summary: "Look up an order's status", kind: 'read' },
        { operationId: 'cancelOrder', method: 'DELETE', path: '/orders/{orderNumber}', summary: 'Cancel an order that has not shipped', kind: 'write' },
        { operationId: 'listOrders', method: 'GET', path: '/orders', summary: null, kind: 'read' },
      ],
    });
    const json = JSON.stringify({ openapi: '3.1.0', paths: { '/ping': { post: { summary: 'Ping' }, put: { operationId: 'putPing' } } } });
    const fromJson = await t.console<{ operations: unknown[] }>(owner.token, 'POST', '/actions/import/preview', { body: { openapi: json } });
    assert.deepEqual(fromJson.body, { operations: [{ operationId: 'putPing', method: 'PUT', path: '/ping', summary: null, kind: 'write' }] });
    assert.deepEqual((await t.console<{ actions: Action[] }>(owner.token, 'GET', '/actions/')).body.actions, [], 'nothing is created');

    for (const [body, message] of [
      [{ openapi: 'swagger: "2.0"\npaths: {}' }, 'openapi: only OpenAPI 3 documents are read (no `openapi: 3.x` field)'],
      [{ openapi: 'openapi: 3.0.0' }, 'openapi: the document has no paths'],
      [{ openapi: YAML, operations: ['getOrderStatus'] }, ['property operations should not exist']],
      [{ openapi: '' }, ['Openapi: cannot be empty']],
    ] as const) {
      const bad = await t.console<{ message: string | string[] }>(owner.token, 'POST', '/actions/import/preview', { body });
      assert.equal(bad.status, 400, bad.text);
      assert.deepEqual(bad.body.message, message);
    }
  });
});
