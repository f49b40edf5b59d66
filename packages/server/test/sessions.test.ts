// Sessions (issue #45, DESIGN "Security and privacy"): each sign-in is a session the member lists on Profile and ends
// one by one or all but the current; an ended session's token is a 401 at once, on this process and on another.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { eventually } from './support/events.ts';
import { PASSWORD, PUBLIC_URL, startTestApp, type TestApp } from './support/harness.ts';

type Session = { id: string; userAgent: string; address: string; createdAt: string; lastSeenAt: string; current: boolean };

let counter = 0;
const uniqueEmail = () => `sessions-${process.pid}-${Date.now()}-${(counter += 1)}@example.com`;

async function login(t: TestApp, email: string, userAgent: string, password = PASSWORD): Promise<string> {
  const res = await t.request<{ token: string }>('POST', '/console/v1/auth/login', { headers: { 'user-agent': userAgent }, body: { email, password } });
  assert.equal(res.status, 200, res.text);
  return res.body.token;
}

async function cookieSession(t: TestApp, email: string, userAgent: string): Promise<string> {
  const res = await t.request('POST', '/console/v1/auth/session', { headers: { 'user-agent': userAgent }, body: { email, password: PASSWORD } });
  assert.equal(res.status, 200, res.text);
  return (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}

const sessionsOf = async (t: TestApp, token: string) => {
  const res = await t.console<{ sessions: Session[] }>(token, 'GET', '/me/sessions');
  assert.equal(res.status, 200, res.text);
  return res.body.sessions;
};

describe('sessions', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test('GET /me/sessions lists each sign-in with its browser and address; the caller’s is current', async () => {
    const owner = await t.createAccount();
    const before = Date.now();
    const cookie = await cookieSession(t, owner.email, 'Browser A');
    const token = await login(t, owner.email, 'Script B');
    const sessions = await sessionsOf(t, token);
    assert.deepEqual(sessions.map((s) => [s.userAgent, s.address, s.current]).sort(), [
      ['Browser A', '127.0.0.1', false],
      ['Script B', '127.0.0.1', true],
    ]);
    for (const s of sessions) {
      assert.match(s.id, /^[0-9a-f-]{36}$/);
      assert.ok(Date.parse(s.createdAt) >= before - 1000 && Date.parse(s.lastSeenAt) >= Date.parse(s.createdAt), JSON.stringify(s));
    }
    // The cookie's own view marks its session.
    const viaCookie = await t.request<{ sessions: Session[] }>('GET', '/console/v1/me/sessions', { headers: { cookie } });
    assert.deepEqual(viaCookie.body.sessions.filter((s) => s.current).map((s) => s.userAgent), ['Browser A']);
  });

  test("DELETE /me/sessions/{id}: that session's cookie gets 401 at once, the caller's goes on", async () => {
    const owner = await t.createAccount();
    const cookie = await cookieSession(t, owner.email, 'Browser A');
    const token = await login(t, owner.email, 'Script B');
    assert.equal((await t.request('GET', '/console/v1/me/', { headers: { cookie } })).status, 200);
    const browser = (await sessionsOf(t, token)).find((s) => s.userAgent === 'Browser A');
    assert.ok(browser);
    const deleted = await t.console(token, 'DELETE', `/me/sessions/${browser.id}`);
    assert.deepEqual([deleted.status, deleted.body], [200, { success: true }]);
    assert.equal((await t.request('GET', '/console/v1/me/', { headers: { cookie } })).status, 401);
    assert.equal((await t.console(token, 'GET', '/me/')).status, 200);
    assert.deepEqual((await sessionsOf(t, token)).map((s) => s.userAgent), ['Script B']);
    const again = await t.console(token, 'DELETE', `/me/sessions/${browser.id}`);
    assert.deepEqual([again.status, again.body], [404, { message: 'Session not found', statusCode: 404 }]);
  });

  test("another member's session id is not found (404) and that session goes on", async () => {
    const first = await t.createAccount();
    const second = await t.createAccount();
    const mine = await login(t, first.email, 'Mine');
    const theirs = await login(t, second.email, 'Theirs');
    const [theirSession] = await sessionsOf(t, theirs);
    assert.ok(theirSession);
    const res = await t.console(mine, 'DELETE', `/me/sessions/${theirSession.id}`);
    assert.deepEqual([res.status, res.body], [404, { message: 'Session not found', statusCode: 404 }]);
    assert.equal((await t.console(mine, 'DELETE', '/me/sessions/not-a-session')).status, 404);
    assert.equal((await t.console(theirs, 'GET', '/me/')).status, 200);
    assert.deepEqual((await sessionsOf(t, mine)).map((s) => s.userAgent), ['Mine']);
  });

  test('DELETE /me/sessions ends every session but the caller’s', async () => {
    const owner = await t.createAccount();
    const cookie = await cookieSession(t, owner.email, 'Browser A');
    const other = await login(t, owner.email, 'Script B');
    const token = await login(t, owner.email, 'Script C');
    const res = await t.console(token, 'DELETE', '/me/sessions');
    assert.deepEqual([res.status, res.body], [200, { success: true }]);
    assert.equal((await t.request('GET', '/console/v1/me/', { headers: { cookie } })).status, 401);
    assert.equal((await t.console(other, 'GET', '/me/')).status, 401);
    assert.equal((await t.console(token, 'GET', '/me/')).status, 200);
    assert.deepEqual((await sessionsOf(t, token)).map((s) => [s.userAgent, s.current]), [['Script C', true]]);
  });

  test("a password change ends the member's other sessions; the caller's session goes on with its new token", async () => {
    const owner = await t.createAccount();
    const other = await login(t, owner.email, 'Script B');
    const token = await login(t, owner.email, 'Script C');
    const changed = await t.console<{ token: string }>(token, 'PUT', '/me/password', { body: { currentPassword: PASSWORD, newPassword: 'a brand new password' } });
    assert.equal(changed.status, 200, changed.text);
    assert.equal((await t.console(other, 'GET', '/me/')).status, 401);
    assert.deepEqual((await sessionsOf(t, changed.body.token)).map((s) => [s.userAgent, s.current]), [['Script C', true]]);
  });

  test('a password reset ends every session; the reset signs in to one new session', async () => {
    const owner = await t.createAccount();
    const token = await login(t, owner.email, 'Script B');
    const link = await t.admin<{ resetUrl: string }>('POST', '/password-resets', { email: owner.email });
    assert.equal(link.status, 201, link.text);
    const reset = await t.request<{ token: string }>('POST', '/console/v1/auth/reset-password', {
      headers: { 'user-agent': 'Reset browser' },
      body: { token: link.body.resetUrl.slice(`${PUBLIC_URL}/reset-password/`.length), password: 'a brand new password' },
    });
    assert.equal(reset.status, 200, reset.text);
    assert.equal((await t.console(token, 'GET', '/me/')).status, 401);
    assert.deepEqual((await sessionsOf(t, reset.body.token)).map((s) => [s.userAgent, s.current]), [['Reset browser', true]]);
  });

  test('a removed member’s sessions end with them', async () => {
    const owner = await t.createConsoleUser();
    const email = uniqueEmail();
    const invite = await t.console<{ id: string; inviteUrl: string }>(owner.token, 'POST', '/members/invite/', { body: { email, role: 'agent' } });
    const accepted = await t.console<{ token: string }>(undefined, 'POST', '/auth/accept-invite', {
      body: { token: invite.body.inviteUrl.slice(`${PUBLIC_URL}/invite/`.length), name: 'Agent', password: PASSWORD },
    });
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal((await sessionsOf(t, accepted.body.token)).length, 1);
    assert.equal((await t.console(owner.token, 'DELETE', `/members/${invite.body.id}/`)).status, 200);
    assert.equal((await t.console(accepted.body.token, 'GET', '/me/sessions')).status, 401);
  });
});

describe('sessions on two processes', () => {
  let a: TestApp;
  let b: TestApp;
  before(async () => {
    a = await startTestApp();
    b = await startTestApp({ database: a.database, workers: false });
  });
  after(async () => {
    await b.close();
    await a.close();
  });

  test('a session begun on one process signs in on the other; ended on one, it is a 401 on the other well within 30 s', async () => {
    const owner = await a.createAccount();
    const keep = await login(a, owner.email, 'Keeper');
    // B reads (and caches) the member with the one session it has.
    assert.equal((await b.console(keep, 'GET', '/me/')).status, 200);
    const ended = await login(a, owner.email, 'Ended');
    assert.equal((await b.console(ended, 'GET', '/me/')).status, 200);
    const target = (await sessionsOf(a, keep)).find((s) => s.userAgent === 'Ended');
    assert.ok(target);
    const started = Date.now();
    assert.equal((await a.console(keep, 'DELETE', `/me/sessions/${target.id}`)).status, 200);
    await eventually(async () => (await b.console(ended, 'GET', '/me/')).status === 401);
    assert.ok(Date.now() - started < 10_000);
    assert.equal((await b.console(keep, 'GET', '/me/')).status, 200);
  });
});

describe('lastSeenAt', () => {
  let t: TestApp;
  let offset = 0;
  const clock = { now: () => new Date(Date.now() + offset) };
  before(async () => {
    t = await startTestApp({ clock });
  });
  after(() => t.close());

  test('written on use, at most once a minute per session', async () => {
    const owner = await t.createAccount();
    const token = await login(t, owner.email, 'Clocked');
    const [session] = await sessionsOf(t, token);
    assert.ok(session);
    const lastSeen = async () =>
      (await queryRows<{ ms: number }>(t.database.db, sql`select (extract(epoch from last_seen_at) * 1000)::float8 as ms from member_sessions where id = ${session.id}`))[0]?.ms ?? 0;
    const first = await eventually(async () => (await lastSeen()) >= Date.parse(session.createdAt) && lastSeen());
    offset += 30_000;
    for (let i = 0; i < 3; i += 1) assert.equal((await t.console(token, 'GET', '/me/')).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.ok((await lastSeen()) < first + 30_000, 'no write within the minute');
    offset += 61_000;
    assert.equal((await t.console(token, 'GET', '/me/')).status, 200);
    await eventually(async () => (await lastSeen()) >= first + 90_000);
    const listed = (await sessionsOf(t, token))[0];
    assert.ok(listed && Date.parse(listed.lastSeenAt) >= first + 90_000, JSON.stringify(listed));
  });
});
