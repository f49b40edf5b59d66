// The audit log (issue #45, item 4; DESIGN "Security and privacy") over HTTP against a real database: each area's
// change is one event with who, from where and the changed fields' before → after (secrets "••••"); a refused request
// (400, 403) writes none; a failed sign-in is written; admins only; another account's events are never seen; the
// keyset cursor pages; the CSV holds the same rows; events past AUDIT_RETENTION_DAYS are pruned.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import { queryRows } from '../src/db/client.ts';
import { withAuditEventsRefused } from './support/audit-refusal.ts';
import { eventually } from './support/events.ts';
import { PASSWORD, PUBLIC_URL, startTestApp, type TestApp } from './support/harness.ts';

interface AuditEvent {
  id: string;
  at: string;
  actor: { kind: string; id: string | null; name: string };
  address: string | null;
  kind: string;
  target: { type: string; id: string | null; name: string | null };
  changes: Record<string, [unknown, unknown]>;
}
type Page = { events: AuditEvent[]; nextCursor: string | null };

let t: TestApp;
type User = Awaited<ReturnType<TestApp['createConsoleUser']>>;
let counter = 0;
const uniqueEmail = (name: string) => `${name}-${process.pid}-${Date.now()}-${(counter += 1)}@example.com`;

before(async () => {
  t = await startTestApp({ conversationSweepMs: 100, webhookAllowPrivateNetworks: true });
});
after(() => t.close());

const events = async (user: { token: string }, query: Record<string, string> = {}) => {
  const res = await t.console<Page>(user.token, 'GET', '/audit', { query });
  assert.equal(res.status, 200, res.text);
  return res.body;
};
/** The events of a kind, newest first, without their ids and times (checked apart). */
const ofKind = async (user: { token: string }, kind: string) =>
  (await events(user, { kind })).events.map(({ id: _id, at: _at, ...rest }) => rest);
const count = async (accountId: string) =>
  (await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from audit_events where account_id = ${accountId}`))[0]?.n;

/**
 * Runs `body` while the database refuses this file's events about targets named "Unwritable…" (as a full disk or a
 * lost connection would refuse them): a change written with its event must then not happen either.
 */
const withEventsRefused = (body: () => Promise<void>) => withAuditEventsRefused(t.database.db, "new.target_name like 'Unwritable%'", body);

async function addMember(owner: User, role: 'admin' | 'agent', name: string) {
  const email = uniqueEmail(role);
  const invite = await t.console<{ id: string; inviteUrl: string }>(owner.token, 'POST', '/members/invite/', { body: { email, role } });
  assert.equal(invite.status, 201, invite.text);
  const accepted = await t.console<{ token: string }>(undefined, 'POST', '/auth/accept-invite', {
    body: { token: invite.body.inviteUrl.slice(`${PUBLIC_URL}/invite/`.length), name, password: PASSWORD },
  });
  assert.equal(accepted.status, 200, accepted.text);
  return { id: invite.body.id, email, token: accepted.body.token };
}

describe('audit log', () => {
  test('a channel updated: who, from where, the changed fields before → after, the webhook secret masked', async () => {
    const owner = await t.createConsoleUser();
    const connected = await t.console<{ id: string }>(owner.token, 'POST', '/channel/custom/connect/', { body: { name: 'Support' } });
    assert.equal(connected.status, 201, connected.text);
    const id = connected.body.id;
    const updated = await t.console(owner.token, 'PUT', `/channel/custom/${id}/`, {
      body: { name: 'Sales', webhookUrl: 'http://127.0.0.1:9/in', webhookSecret: 'very-secret-value-1234567890' },
    });
    assert.equal(updated.status, 200, updated.text);
    const actor = { kind: 'member', id: owner.accountId, name: owner.email };
    assert.deepEqual(await ofKind(owner, 'channel.updated'), [
      {
        actor,
        address: '127.0.0.1',
        kind: 'channel.updated',
        target: { type: 'channel', id, name: 'Sales' },
        changes: { name: ['Support', 'Sales'], webhookUrl: [null, 'http://127.0.0.1:9/in'], webhookSecret: [null, '••••'] },
      },
    ]);
    const created = await ofKind(owner, 'channel.created');
    assert.equal(created.length, 1);
    assert.deepEqual(created[0]?.target, { type: 'channel', id, name: 'Support' });
    assert.deepEqual(created[0]?.changes.name, [null, 'Support']);
    // The secret is in no event, in the list or the CSV.
    const csv = await t.console(owner.token, 'GET', '/audit.csv');
    assert.ok(!csv.text.includes('very-secret-value'), csv.text);
    assert.ok(!JSON.stringify(await events(owner)).includes('very-secret-value'));

    assert.equal((await t.console(owner.token, 'DELETE', `/channel/custom/${id}/`)).status, 200);
    assert.deepEqual((await ofKind(owner, 'channel.deleted')).map((e) => [e.target, e.changes.name]), [[{ type: 'channel', id, name: 'Sales' }, ['Sales', null]]]);
  });

  test('settings, alerts, a knowledge base and entry, an action with a secret header, a customer erased', async () => {
    const owner = await t.createConsoleUser();
    assert.equal((await t.console(owner.token, 'PUT', '/account/settings/', { body: { retentionDays: 30, requireTwoFactor: false } })).status, 200);
    assert.deepEqual((await ofKind(owner, 'account.settings_updated')).map((e) => [e.target, e.changes]), [
      [{ type: 'account', id: owner.accountId, name: null }, { retentionDays: [null, 30] }],
    ]);
    assert.equal((await t.console(owner.token, 'PUT', '/account/alerts/', { body: { alertWebhookUrl: 'http://127.0.0.1:9/alerts' } })).status, 200);
    assert.deepEqual((await ofKind(owner, 'alerts.updated'))[0]?.changes, { alertWebhookUrl: [null, 'http://127.0.0.1:9/alerts'] });

    const base = await t.console<{ id: string }>(owner.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ' } });
    assert.equal(base.status, 201, base.text);
    assert.equal((await t.console(owner.token, 'PUT', `/knowledge-bases/${base.body.id}`, { body: { name: 'Help' } })).status, 200);
    assert.deepEqual((await ofKind(owner, 'knowledge_base.updated')).map((e) => [e.target, e.changes]), [
      [{ type: 'knowledge_base', id: base.body.id, name: 'Help' }, { name: ['FAQ', 'Help'] }],
    ]);
    const entry = await t.console<{ id: string }>(owner.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, {
      body: { question: 'Do you ship abroad?', answer: 'Yes.' },
    });
    assert.equal(entry.status, 201, entry.text);
    assert.equal((await t.console(owner.token, 'PUT', `/knowledge-bases/${base.body.id}/entries/${entry.body.id}`, { body: { answer: 'Yes, to 40 countries.' } })).status, 200);
    assert.deepEqual((await ofKind(owner, 'knowledge_entry.updated'))[0]?.changes, { answer: ['Yes.', 'Yes, to 40 countries.'] });

    const action = await t.console<{ id: string }>(owner.token, 'POST', '/actions/', {
      body: {
        name: 'order_status',
        description: 'Look up the status of an order by its number.',
        kind: 'read',
        method: 'GET',
        url: 'http://127.0.0.1:9/orders/{{order_number}}',
        headers: { 'X-Api-Key': { secret: 'action-secret-0123456789' } },
        parameters: [{ name: 'order_number', description: 'the order number', type: 'string', required: true, source: 'customer' }],
        answer: 'Order {{status}}.',
      },
    });
    assert.equal(action.status, 201, action.text);
    const changed = await t.console(owner.token, 'PUT', `/actions/${action.body.id}/`, { body: { headers: { 'X-Api-Key': { secret: 'action-secret-9876543210' } } } });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual((await ofKind(owner, 'action.updated')).map((e) => [e.target, e.changes]), [
      [
        { type: 'action', id: action.body.id, name: 'order_status' },
        { headers: [[{ name: 'X-Api-Key', value: '••••', secret: true }], [{ name: 'X-Api-Key', value: '••••', secret: true }]] },
      ],
    ]);
    assert.ok(!JSON.stringify(await events(owner, { limit: '100' })).includes('action-secret'));

    const erased = await t.console(owner.token, 'POST', '/customers/erase', { body: { email: 'nobody@example.com' } });
    assert.equal(erased.status, 404, erased.text);
    assert.equal((await ofKind(owner, 'customer.erased')).length, 0);
  });

  test('a refused request writes nothing: a validation 400, a 404, an agent’s 403', async () => {
    const owner = await t.createConsoleUser();
    const agent = await addMember(owner, 'agent', 'Agent Ann');
    const connected = await t.console<{ id: string }>(owner.token, 'POST', '/channel/custom/connect/', { body: { name: 'Support' } });
    const before = await count(owner.accountId);
    assert.equal((await t.console(owner.token, 'PUT', `/channel/custom/${connected.body.id}/`, { body: { name: 'x', webhookUrl: 'not a url' } })).status, 400);
    assert.equal((await t.console(owner.token, 'PUT', `/channel/custom/${connected.body.id}/`, { body: { workingHours: { timeZone: 'Mars/Base', intervals: [] } } })).status, 400);
    assert.equal((await t.console(owner.token, 'DELETE', '/channel/custom/cc:nope/')).status, 404);
    assert.equal((await t.console(agent.token, 'PUT', `/channel/custom/${connected.body.id}/`, { body: { name: 'Mine' } })).status, 403);
    assert.equal((await t.console(agent.token, 'PUT', `/members/${agent.id}/`, { body: { role: 'admin' } })).status, 403);
    assert.equal(await count(owner.accountId), before);
  });

  test('members: invited, accepted, role changed, removed; a revoked invitation', async () => {
    const owner = await t.createConsoleUser();
    const admin = await addMember(owner, 'admin', 'Ada');
    assert.equal((await t.console(owner.token, 'PUT', `/members/${admin.id}/`, { body: { role: 'agent' } })).status, 200);
    assert.deepEqual(await ofKind(owner, 'member.role_changed'), [
      {
        actor: { kind: 'member', id: owner.accountId, name: owner.email },
        address: '127.0.0.1',
        kind: 'member.role_changed',
        target: { type: 'member', id: admin.id, name: 'Ada' },
        changes: { role: ['admin', 'agent'] },
      },
    ]);
    const [invited] = await ofKind(owner, 'member.invited');
    assert.deepEqual(invited?.changes, { email: [null, admin.email], role: [null, 'admin'] });
    const [accepted] = await ofKind(owner, 'invitation.accepted');
    assert.deepEqual(accepted?.actor, { kind: 'member', id: admin.id, name: 'Ada' });
    assert.deepEqual(accepted?.changes, { status: ['invited', 'active'] });

    assert.equal((await t.console(owner.token, 'DELETE', `/members/${admin.id}/`)).status, 200);
    assert.deepEqual((await ofKind(owner, 'member.removed')).map((e) => [e.target, e.changes]), [
      [{ type: 'member', id: admin.id, name: 'Ada' }, { email: [admin.email, null], role: ['agent', null] }],
    ]);
    const pending = await t.console<{ id: string }>(owner.token, 'POST', '/members/invite/', { body: { email: uniqueEmail('later'), role: 'agent' } });
    assert.equal((await t.console(owner.token, 'DELETE', `/members/${pending.body.id}/`)).status, 200);
    assert.equal((await ofKind(owner, 'invitation.revoked')).length, 1);
  });

  test('sign-ins: a failed one is written with the e-mail tried and the address; a good one too', async () => {
    const owner = await t.createConsoleUser();
    const failed = await t.console(undefined, 'POST', '/auth/login', { body: { email: owner.email.toUpperCase(), password: 'wrong password!' } });
    assert.equal(failed.status, 401, failed.text);
    assert.deepEqual(await ofKind(owner, 'auth.login_failed'), [
      {
        actor: { kind: 'member', id: null, name: owner.email },
        address: '127.0.0.1',
        kind: 'auth.login_failed',
        target: { type: 'member', id: owner.accountId, name: owner.email },
        changes: {},
      },
    ]);
    const logins = await ofKind(owner, 'auth.login');
    // createConsoleUser signed in once.
    assert.equal(logins.length, 1);
    assert.deepEqual(logins[0]?.actor, { kind: 'member', id: owner.accountId, name: owner.email });
    // A password never shows.
    assert.ok(!JSON.stringify(await events(owner)).includes('wrong password'));
  });

  test('API keys: the operator’s create and revoke, never the key', async () => {
    const owner = await t.createConsoleUser();
    const created = await t.admin<{ id: string; key: string }>('POST', `/accounts/${owner.accountId}/api-keys`, { scopes: ['chats:read'] });
    assert.equal(created.status, 201, created.text);
    assert.equal((await t.admin('POST', `/api-keys/${created.body.id}/deactivate`)).status, 200);
    const all = await events(owner, { actor: 'operator' });
    assert.deepEqual(
      all.events.filter((e) => e.target.id === created.body.id).map((e) => [e.kind, e.actor, e.target.id, e.changes]),
      [
        ['api_key.revoked', { kind: 'operator', id: null, name: 'operator' }, created.body.id, { active: [true, false] }],
        ['api_key.created', { kind: 'operator', id: null, name: 'operator' }, created.body.id, { scopes: [null, ['chats:read']] }],
      ],
    );
    assert.ok(!JSON.stringify(all).includes(created.body.key));
    assert.ok(!(await t.console(owner.token, 'GET', '/audit.csv')).text.includes(created.body.key));
  });

  test('admins only; another account’s events are never seen', async () => {
    const owner = await t.createConsoleUser();
    const other = await t.createConsoleUser();
    const agent = await addMember(owner, 'agent', 'Agent Ann');
    const admin = await addMember(owner, 'admin', 'Admin Al');
    assert.deepEqual((await t.console(agent.token, 'GET', '/audit')).body, { message: 'Forbidden for your role', statusCode: 403 });
    assert.equal((await t.console(agent.token, 'GET', '/audit.csv')).status, 403);
    assert.equal((await t.console(admin.token, 'GET', '/audit')).status, 200);
    await t.console(other.token, 'POST', '/channel/custom/connect/', { body: { name: 'Theirs' } });
    const mine = await events(owner, { limit: '100' });
    assert.ok(mine.events.length > 0);
    assert.ok(mine.events.every((e) => e.target.name !== 'Theirs' && e.actor.id !== other.accountId), JSON.stringify(mine));
    // Filtering by the other account's member id finds nothing here.
    assert.deepEqual(await events(owner, { actor: other.accountId }), { events: [], nextCursor: null });
    assert.ok(!(await t.console(owner.token, 'GET', '/audit.csv')).text.includes('Theirs'));
  });

  test('filters and paging: actor, kind (exact or its first part), from/to, the keyset cursor; bad ones are 400', async () => {
    const owner = await t.createConsoleUser();
    for (const name of ['A', 'B', 'C', 'D', 'E']) {
      assert.equal((await t.console(owner.token, 'POST', '/channel/custom/connect/', { body: { name } })).status, 201);
    }
    const all = (await events(owner, { kind: 'channel' })).events;
    assert.deepEqual(all.map((e) => e.target.name), ['E', 'D', 'C', 'B', 'A']);
    const first = await events(owner, { kind: 'channel.created', limit: '2' });
    assert.deepEqual(first.events.map((e) => e.target.name), ['E', 'D']);
    assert.ok(first.nextCursor);
    const second = await events(owner, { kind: 'channel.created', limit: '2', cursor: first.nextCursor });
    assert.deepEqual(second.events.map((e) => e.target.name), ['C', 'B']);
    const third = await events(owner, { kind: 'channel.created', limit: '2', cursor: second.nextCursor ?? '' });
    assert.deepEqual(third, { events: [all[4]], nextCursor: null });
    assert.equal((await events(owner, { actor: owner.accountId, kind: 'channel' })).events.length, 5);
    // The account's first API key was the operator's (createConsoleUser).
    assert.deepEqual((await events(owner, { actor: 'operator' })).events.map((e) => e.kind), ['api_key.created']);
    const today = new Date().toISOString().slice(0, 10);
    assert.equal((await events(owner, { kind: 'channel', from: today, to: today })).events.length, 5);
    assert.equal((await events(owner, { kind: 'channel', to: '2020-01-01' })).events.length, 0);
    const bad: Record<string, string>[] = [{ cursor: 'bm9wZQ' }, { from: '2026-02-30' }, { from: '2026-02-02', to: '2026-02-01' }, { limit: '0' }, { limit: '101' }, { since: '1' }];
    for (const query of bad) {
      assert.equal((await t.console(owner.token, 'GET', '/audit', { query })).status, 400, JSON.stringify(query));
    }
  });

  test('CSV: a header, one row per event with the same filters, cells escaped', async () => {
    const owner = await t.createConsoleUser();
    const connected = await t.console<{ id: string }>(owner.token, 'POST', '/channel/custom/connect/', { body: { name: '=Sales, "east"' } });
    assert.equal(connected.status, 201);
    const res = await t.console(owner.token, 'GET', '/audit.csv', { query: { kind: 'channel.created' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8');
    const [event] = (await events(owner, { kind: 'channel.created' })).events;
    assert.ok(event);
    const lines = res.text.split('\r\n');
    assert.equal(lines[0], 'id,at,actorKind,actorId,actorName,address,kind,targetType,targetId,targetName,changes');
    assert.ok(lines[1]?.startsWith(`${event.id},${event.at},member,${owner.accountId},${owner.email},127.0.0.1,channel.created,channel,${connected.body.id},"'=Sales, ""east""",`), lines[1]);
    assert.equal(lines.length, 3);
    assert.equal(lines[2], '');
    assert.equal((await t.console(owner.token, 'GET', '/audit.csv', { query: { cursor: 'x' } })).status, 400);
  });

  test('retention: events older than AUDIT_RETENTION_DAYS (365) are pruned by the background sweep, newer ones stay', async () => {
    const owner = await t.createConsoleUser();
    await t.console(owner.token, 'POST', '/channel/custom/connect/', { body: { name: 'Old' } });
    await t.console(owner.token, 'POST', '/channel/custom/connect/', { body: { name: 'New' } });
    await t.database.db.execute(
      sql`update audit_events set at = at - interval '366 days' where account_id = ${owner.accountId} and target_name = 'Old'`,
    );
    await eventually(async () => (await events(owner, { kind: 'channel' })).events.length === 1);
    assert.deepEqual((await events(owner, { kind: 'channel' })).events.map((e) => e.target.name), ['New']);
  });
});

describe('audit log of the team workbench and single sign-on', () => {
  test('assignment, team hours, a member capacity and single sign-on: one event each with the changed fields, the client secret masked', async () => {
    const owner = await t.createConsoleUser();
    const agent = await addMember(owner, 'agent', 'Ann');
    const actor = { kind: 'member', id: owner.accountId, name: owner.email };
    const account = { type: 'account', id: owner.accountId, name: null };

    const assignment = await t.console(owner.token, 'PUT', '/account/assignment/', { body: { mode: 'round_robin', capacity: 4 } });
    assert.equal(assignment.status, 200, assignment.text);
    assert.deepEqual(await ofKind(owner, 'assignment.updated'), [
      { actor, address: '127.0.0.1', kind: 'assignment.updated', target: account, changes: { mode: ['off', 'round_robin'], capacity: [10, 4] } },
    ]);

    const weekly = { mon: [['09:00', '18:00']], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] };
    const hours = await t.console(owner.token, 'PUT', '/account/hours/', { body: { timezone: 'Europe/Berlin', weekly } });
    assert.equal(hours.status, 200, hours.text);
    const [hoursEvent, ...moreHours] = await ofKind(owner, 'team_hours.updated');
    assert.equal(moreHours.length, 0);
    assert.deepEqual(hoursEvent?.changes.timezone, ['UTC', 'Europe/Berlin']);
    assert.deepEqual(hoursEvent?.changes.weekly?.[0], null);

    const capacity = await t.console(owner.token, 'PUT', `/members/${agent.id}/`, { body: { capacity: 2 } });
    assert.equal(capacity.status, 200, capacity.text);
    assert.deepEqual(await ofKind(owner, 'member.capacity_changed'), [
      { actor, address: '127.0.0.1', kind: 'member.capacity_changed', target: { type: 'member', id: agent.id, name: 'Ann' }, changes: { capacity: [null, 2] } },
    ]);

    const sso = await t.console(owner.token, 'PUT', '/account/sso/', { body: { buttonName: 'Okta', clientSecret: 'sso-client-secret-123', allowedDomains: ['Example.com'] } });
    assert.equal(sso.status, 200, sso.text);
    const [ssoEvent, ...moreSso] = await ofKind(owner, 'sso.updated');
    assert.equal(moreSso.length, 0);
    assert.deepEqual(ssoEvent?.changes.clientSecret, [null, '••••']);
    assert.deepEqual(ssoEvent?.changes.allowedDomains, [[], ['example.com']]);
    assert.equal(JSON.stringify(await events(owner)).includes('sso-client-secret-123'), false);

    // A refused change writes nothing: an unknown time zone (400), an agent's change (403).
    const before = await count(owner.accountId);
    assert.equal((await t.console(owner.token, 'PUT', '/account/hours/', { body: { timezone: 'Mars/Olympus', weekly } })).status, 400);
    assert.equal((await t.console(agent.token, 'PUT', '/account/assignment/', { body: { mode: 'off' } })).status, 403);
    assert.equal(await count(owner.accountId), before);
  });
});

describe('audit log of documents', () => {
  test('a document added and deleted: one event each, named; a refused upload or delete writes nothing', async () => {
    const owner = await t.createConsoleUser();
    const agent = await addMember(owner, 'agent', 'Ann');
    const actor = { kind: 'member', id: owner.accountId, name: owner.email };
    const base = await t.console<{ id: string }>(owner.token, 'POST', '/knowledge-bases', { body: { name: 'Docs' } });
    assert.equal(base.status, 201, base.text);
    const upload = (token: string, name: string, text: string) => {
      const form = new FormData();
      form.append('file', new Blob([text], { type: 'text/markdown' }), name);
      return fetch(`${t.url}/console/v1/knowledge-bases/${base.body.id}/documents`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    };
    const text = '# Returns\n\nWithin 30 days.';
    const added = await upload(owner.token, 'returns.md', text);
    assert.equal(added.status, 201);
    const { id } = (await added.json()) as { id: string };
    assert.deepEqual(await ofKind(owner, 'document.added'), [
      {
        actor,
        address: '127.0.0.1',
        kind: 'document.added',
        target: { type: 'document', id, name: 'returns.md' },
        changes: { knowledgeBaseId: [null, base.body.id], kind: [null, 'markdown'], size: [null, Buffer.byteLength(text)] },
      },
    ]);

    const before = await count(owner.accountId);
    assert.equal((await upload(owner.token, 'notes.exe', 'MZ')).status, 400);
    assert.equal((await upload(agent.token, 'mine.md', text)).status, 403);
    assert.equal((await t.console(owner.token, 'DELETE', `/knowledge-bases/${base.body.id}/documents/00000000-0000-4000-8000-000000000000`)).status, 404);
    assert.equal((await t.console(agent.token, 'DELETE', `/knowledge-bases/${base.body.id}/documents/${id}`)).status, 403);
    assert.equal(await count(owner.accountId), before);

    const deleted = await t.console(owner.token, 'DELETE', `/knowledge-bases/${base.body.id}/documents/${id}`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(await ofKind(owner, 'document.deleted'), [
      { actor, address: '127.0.0.1', kind: 'document.deleted', target: { type: 'document', id, name: 'returns.md' }, changes: { knowledgeBaseId: [base.body.id, null] } },
    ]);
  });
});

describe('audit log of knowledge bases and entries', () => {
  test('a change and its event commit together: when the event cannot be written, the base or entry is left as it was', async () => {
    const owner = await t.createConsoleUser();
    const base = await t.console<{ id: string }>(owner.token, 'POST', '/knowledge-bases', { body: { name: 'Shop' } });
    assert.equal(base.status, 201, base.text);
    const entries = `/knowledge-bases/${base.body.id}/entries`;
    const kept = await t.console<{ id: string }>(owner.token, 'POST', entries, { body: { question: 'Unwritable: do you ship abroad?', answer: 'Yes.' } });
    assert.equal(kept.status, 201, kept.text);
    const entryList = async () => {
      const res = await t.console<{ entries: { question: string; answer: string }[] }>(owner.token, 'GET', entries);
      assert.equal(res.status, 200, res.text);
      return res.body.entries.map(({ question, answer }) => ({ question, answer }));
    };
    const baseNames = async () =>
      (await t.console<{ knowledgeBases: { name: string }[] }>(owner.token, 'GET', '/knowledge-bases')).body.knowledgeBases.map((b) => b.name);

    await withEventsRefused(async () => {
      const before = await count(owner.accountId);
      assert.equal((await t.console(owner.token, 'POST', '/knowledge-bases', { body: { name: 'Unwritable base' } })).status, 500);
      assert.deepEqual(await baseNames(), ['Shop']);
      assert.equal((await t.console(owner.token, 'POST', entries, { body: { question: 'Unwritable: can I pay later?', answer: 'No.' } })).status, 500);
      assert.equal((await t.console(owner.token, 'PUT', `${entries}/${kept.body.id}`, { body: { answer: 'No, only at home.' } })).status, 500);
      assert.equal((await t.console(owner.token, 'DELETE', `${entries}/${kept.body.id}`)).status, 500);
      assert.deepEqual(await entryList(), [{ question: 'Unwritable: do you ship abroad?', answer: 'Yes.' }]);
      assert.equal(await count(owner.accountId), before);
    });
    // With events written again, the same changes go through, each with its event.
    assert.equal((await t.console(owner.token, 'DELETE', `${entries}/${kept.body.id}`)).status, 200);
    assert.deepEqual(await entryList(), []);
    assert.equal((await ofKind(owner, 'knowledge_entry.deleted')).length, 1);
  });
});

describe('audit log of invitations', () => {
  test('an invitation sent and one accepted commit with their event: refused, no invitation, then one still pending', async () => {
    const owner = await t.createConsoleUser();
    const email = uniqueEmail('bo');
    const membersOf = async () =>
      (await t.console<{ members: { email: string; status: string }[] }>(owner.token, 'GET', '/members/')).body.members
        .filter((member) => member.email === email)
        .map((member) => member.status);
    const invite = () => t.console<{ id: string; inviteUrl: string }>(owner.token, 'POST', '/members/invite/', { body: { email, name: 'Unwritable Bo', role: 'agent' } });

    await withEventsRefused(async () => {
      assert.equal((await invite()).status, 500);
      assert.deepEqual(await membersOf(), []);
    });
    const invited = await invite();
    assert.equal(invited.status, 201, invited.text);
    const accept = () =>
      t.console<{ token: string }>(undefined, 'POST', '/auth/accept-invite', {
        body: { token: invited.body.inviteUrl.slice(`${PUBLIC_URL}/invite/`.length), name: 'Unwritable Bo', password: PASSWORD },
      });
    await withEventsRefused(async () => {
      assert.equal((await accept()).status, 500);
      assert.deepEqual(await membersOf(), ['invited']);
    });
    // With events written again, the same link is accepted, with its event.
    const accepted = await accept();
    assert.equal(accepted.status, 200, accepted.text);
    assert.deepEqual(await membersOf(), ['active']);
    assert.deepEqual((await ofKind(owner, 'member.invited')).map((e) => e.target), [{ type: 'member', id: invited.body.id, name: 'Unwritable Bo' }]);
    assert.deepEqual((await ofKind(owner, 'invitation.accepted')).map((e) => e.target), [{ type: 'member', id: invited.body.id, name: 'Unwritable Bo' }]);
  });
});

describe('audit log of sessions and two-factor sign-in', () => {
  test('sessions ended and two-factor sign-in turned on commit with their event: refused, the sessions stay and it stays off', async () => {
    const owner = await t.createConsoleUser();
    assert.equal((await t.console(owner.token, 'PUT', '/me/', { body: { name: 'Unwritable Ann' } })).status, 200);
    const login = async () => (await t.request<{ token: string }>('POST', '/console/v1/auth/login', { body: { email: owner.email, password: PASSWORD } })).body.token;
    const other = await login();
    const setup = await t.console<{ secret: string }>(owner.token, 'POST', '/me/2fa/setup');
    assert.equal(setup.status, 200, setup.text);
    const code = () => new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(setup.body.secret) }).generate();
    const twoFactor = async () => (await t.console<{ twoFactor: boolean }>(owner.token, 'GET', '/me/')).body.twoFactor;

    await withEventsRefused(async () => {
      const before = await count(owner.accountId);
      assert.equal((await t.console(owner.token, 'DELETE', '/me/sessions')).status, 500);
      assert.equal((await t.console(other, 'GET', '/me/')).status, 200);
      assert.equal((await t.console(owner.token, 'POST', '/me/2fa/enable', { body: { code: code() } })).status, 500);
      assert.equal(await twoFactor(), false);
      assert.equal((await t.console(other, 'GET', '/me/')).status, 200);
      assert.equal(await count(owner.accountId), before);
    });
    const enabled = await t.console(owner.token, 'POST', '/me/2fa/enable', { body: { code: code() } });
    assert.equal(enabled.status, 200, enabled.text);
    assert.equal(await twoFactor(), true);
    assert.equal((await t.console(other, 'GET', '/me/')).status, 401);
    assert.deepEqual((await ofKind(owner, 'auth.two_factor_enabled')).map((e) => e.target), [{ type: 'member', id: owner.accountId, name: 'Unwritable Ann' }]);
  });
});
