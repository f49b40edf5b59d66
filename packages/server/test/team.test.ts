// Teams (issue #25): members and roles, invitations (by link, and by e-mail through a local SMTP server), sessions
// that end when access ends, one role rule per console route (walked over the whole OpenAPI document), the
// operator CLI, and the migration that makes an existing login its account's owner.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { sql } from 'drizzle-orm';
import { SMTPServer } from 'smtp-server';
import { MIGRATIONS_FOLDER, openDatabase, queryRows } from '../src/db/client.ts';
import { hashPassword } from '../src/lib/secrets.ts';
import { eventually } from './support/events.ts';
import { ADMIN_TOKEN, PASSWORD, PUBLIC_URL, startTestApp, type TestApp } from './support/harness.ts';

type Member = { id: string; email: string; name: string; role: string; status: string };
type Invitation = { id: string; email: string; role: string; status: string; inviteUrl: string; emailed: boolean };

const root = fileURLToPath(new URL('../../..', import.meta.url));
let counter = 0;
const uniqueEmail = (name: string) => `${name}-${process.pid}-${Date.now()}-${(counter += 1)}@example.com`;
const tokenOf = (inviteUrl: string) => inviteUrl.slice(`${PUBLIC_URL}/invite/`.length);

/** Invites `email` as `role` and accepts the invitation: the new member's id and console token. */
async function addMember(t: TestApp, ownerToken: string, role: 'admin' | 'agent', name = 'Teammate') {
  const email = uniqueEmail(role);
  const invite = await t.console<Invitation>(ownerToken, 'POST', '/members/invite/', { body: { email, role } });
  assert.equal(invite.status, 201, invite.text);
  const accepted = await t.console<{ token: string }>(undefined, 'POST', '/auth/accept-invite', {
    body: { token: tokenOf(invite.body.inviteUrl), name, password: PASSWORD },
  });
  assert.equal(accepted.status, 200, accepted.text);
  return { id: invite.body.id, email, token: accepted.body.token };
}

describe('members and invitations', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test("an account's login is its owner: GET /members/ lists it", async () => {
    const owner = await t.createConsoleUser();
    const res = await t.console<{ members: Member[] }>(owner.token, 'GET', '/members/');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { members: [{ id: owner.accountId, email: owner.email, name: owner.email, role: 'owner', status: 'active', capacity: null }] });
  });

  test('invite: 201 with a single-use link valid 7 days, stored hashed; accepting signs the member in with their name', async () => {
    const owner = await t.createConsoleUser();
    const email = uniqueEmail('Agent.Smith');
    const invite = await t.console<Invitation>(owner.token, 'POST', '/members/invite/', { body: { email, role: 'agent' } });
    assert.equal(invite.status, 201, invite.text);
    assert.equal(invite.body.email, email.toLowerCase());
    assert.deepEqual([invite.body.role, invite.body.status, invite.body.emailed], ['agent', 'invited', false]);
    assert.match(invite.body.inviteUrl, new RegExp(`^${PUBLIC_URL}/invite/[A-Za-z0-9_-]{43}$`));
    const token = tokenOf(invite.body.inviteUrl);
    const [stored] = await queryRows<{ invite_token_hash: string; expires_in_days: number; password_hash: string | null }>(
      t.database.db,
      sql`select invite_token_hash, password_hash,
            round(extract(epoch from invite_expires_at - now()) / 86400)::int as expires_in_days
          from members where id = ${invite.body.id}`,
    );
    assert.equal(stored?.expires_in_days, 7);
    assert.match(stored?.invite_token_hash ?? '', /^[0-9a-f]{64}$/);
    assert.notEqual(stored?.invite_token_hash, token);
    assert.equal(stored?.password_hash, null);

    const listed = await t.console<{ members: Member[] }>(owner.token, 'GET', '/members/');
    assert.deepEqual(listed.body.members.map((m) => [m.email, m.role, m.status]), [
      [owner.email, 'owner', 'active'],
      [email.toLowerCase(), 'agent', 'invited'],
    ]);
    // An invited member cannot sign in yet.
    const early = await t.console(undefined, 'POST', '/auth/login', { body: { email, password: PASSWORD } });
    assert.equal(early.status, 401);

    const accepted = await t.console<{ token: string }>(undefined, 'POST', '/auth/accept-invite', {
      body: { token, name: 'Agent Smith', password: 'a password of mine' },
    });
    assert.equal(accepted.status, 200, accepted.text);
    const session = await t.console(accepted.body.token, 'GET', '/auth/session');
    assert.deepEqual(session.body, { email: email.toLowerCase(), memberId: invite.body.id, name: 'Agent Smith', role: 'agent' });
    const login = await t.console(undefined, 'POST', '/auth/login', { body: { email, password: 'a password of mine' } });
    assert.equal(login.status, 200);

    const again = await t.console(undefined, 'POST', '/auth/accept-invite', { body: { token, name: 'Someone', password: PASSWORD } });
    assert.deepEqual([again.status, again.body], [400, { message: 'This invitation has already been used; sign in instead', statusCode: 400 }]);
    const unknown = await t.console(undefined, 'POST', '/auth/accept-invite', { body: { token: `${token}x`, name: 'X', password: PASSWORD } });
    assert.deepEqual([unknown.status, unknown.body], [
      400,
      { message: 'This invitation link is not valid: it is unknown or was withdrawn', statusCode: 400 },
    ]);
  });

  test('an expired invitation: 400 saying so', async () => {
    const owner = await t.createConsoleUser();
    const invite = await t.console<Invitation>(owner.token, 'POST', '/members/invite/', { body: { email: uniqueEmail('late'), role: 'agent' } });
    await t.database.db.execute(sql`update members set invite_expires_at = now() - interval '1 second' where id = ${invite.body.id}`);
    const res = await t.console(undefined, 'POST', '/auth/accept-invite', {
      body: { token: tokenOf(invite.body.inviteUrl), name: 'Late', password: PASSWORD },
    });
    assert.deepEqual([res.status, res.body], [400, { message: 'This invitation has expired; ask for a new one', statusCode: 400 }]);
  });

  test('an e-mail that is a member already: 409 (of this or another account); inviting an invited e-mail renews the link', async () => {
    const owner = await t.createConsoleUser();
    const other = await t.createConsoleUser();
    const member = await addMember(t, owner.token, 'agent');
    for (const email of [member.email.toUpperCase(), owner.email, other.email]) {
      const res = await t.console(owner.token, 'POST', '/members/invite/', { body: { email, role: 'admin' } });
      assert.deepEqual([res.status, res.body], [409, { message: 'This e-mail is a member already', statusCode: 409 }], email);
    }
    const email = uniqueEmail('twice');
    const first = await t.console<Invitation>(owner.token, 'POST', '/members/invite/', { body: { email, role: 'agent' } });
    const second = await t.console<Invitation>(owner.token, 'POST', '/members/invite/', { body: { email, role: 'admin' } });
    assert.deepEqual([second.status, second.body.id, second.body.role], [201, first.body.id, 'admin']);
    const old = await t.console(undefined, 'POST', '/auth/accept-invite', {
      body: { token: tokenOf(first.body.inviteUrl), name: 'Old', password: PASSWORD },
    });
    assert.equal(old.status, 400);
    // Another account cannot invite an e-mail invited here.
    const elsewhere = await t.console(other.token, 'POST', '/members/invite/', { body: { email, role: 'agent' } });
    assert.equal(elsewhere.status, 409);
  });

  test("a pending invitation's link is shown again, the same until renewed; kept sealed; expiry says so; gone once accepted", async () => {
    const owner = await t.createConsoleUser();
    const other = await t.createConsoleUser();
    const email = uniqueEmail('again');
    const sent = await t.console<Invitation>(owner.token, 'POST', '/members/invite/', { body: { email, role: 'agent' } });
    assert.equal(sent.status, 201, sent.text);
    type Link = { id: string; email: string; role: string; inviteUrl: string | null; expiresAt: string; expired: boolean };
    const shown = await t.console<Link>(owner.token, 'GET', `/members/${sent.body.id}/invitation/`);
    assert.equal(shown.status, 200, shown.text);
    assert.deepEqual({ ...shown.body, expiresAt: undefined }, {
      id: sent.body.id, email: email.toLowerCase(), role: 'agent', inviteUrl: sent.body.inviteUrl, expiresAt: undefined, expired: false,
    });
    const days = (Date.parse(shown.body.expiresAt) - Date.now()) / 86_400_000;
    assert.ok(days > 6.99 && days <= 7, `${days} days`);
    // At rest the token is sealed (never in the clear) beside its hash.
    const [stored] = await queryRows<{ sealed: string }>(t.database.db, sql`select invite_token_sealed as sealed from members where id = ${sent.body.id}`);
    assert.match(stored?.sealed ?? '', /^enc:v1:/);
    assert.ok(!stored?.sealed.includes(tokenOf(sent.body.inviteUrl)));
    // Another account's admin, or an unknown id: 404.
    for (const [token, id] of [[other.token, sent.body.id], [owner.token, '0190b5a0-0000-7000-8000-000000000000'], [owner.token, 'not-a-uuid']] as const) {
      const res = await t.console(token, 'GET', `/members/${id}/invitation/`);
      assert.deepEqual([res.status, res.body], [404, { message: 'Invitation not found', statusCode: 404 }], id);
    }
    // Expired: still shown, saying so (the link no longer works).
    await t.database.db.execute(sql`update members set invite_expires_at = now() - interval '1 second' where id = ${sent.body.id}`);
    assert.equal((await t.console<Link>(owner.token, 'GET', `/members/${sent.body.id}/invitation/`)).body.expired, true);
    // Renewed by inviting again: a new link for 7 days, shown from then on; the old one stops working.
    const renewed = await t.console<Invitation>(owner.token, 'POST', '/members/invite/', { body: { email, role: 'agent' } });
    assert.notEqual(renewed.body.inviteUrl, sent.body.inviteUrl);
    const again = await t.console<Link>(owner.token, 'GET', `/members/${sent.body.id}/invitation/`);
    assert.deepEqual([again.body.inviteUrl, again.body.expired], [renewed.body.inviteUrl, false]);
    const old = await t.console(undefined, 'POST', '/auth/accept-invite', { body: { token: tokenOf(sent.body.inviteUrl), name: 'Old', password: PASSWORD } });
    assert.equal(old.status, 400);
    // Accepted: no pending invitation, nothing sealed kept.
    const accepted = await t.console(undefined, 'POST', '/auth/accept-invite', { body: { token: tokenOf(renewed.body.inviteUrl), name: 'New', password: PASSWORD } });
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal((await t.console(owner.token, 'GET', `/members/${sent.body.id}/invitation/`)).status, 404);
    const [cleared] = await queryRows<{ sealed: string | null }>(t.database.db, sql`select invite_token_sealed as sealed from members where id = ${sent.body.id}`);
    assert.equal(cleared?.sealed, null);
    // An invitation made before links were kept: no link to show (inviting again makes one).
    const older = await t.console<Invitation>(owner.token, 'POST', '/members/invite/', { body: { email: uniqueEmail('older'), role: 'admin' } });
    await t.database.db.execute(sql`update members set invite_token_sealed = null where id = ${older.body.id}`);
    const none = await t.console<Link>(owner.token, 'GET', `/members/${older.body.id}/invitation/`);
    assert.deepEqual([none.status, none.body.inviteUrl, none.body.role], [200, null, 'admin']);
    // The owner and an active member have no invitation.
    assert.equal((await t.console(owner.token, 'GET', `/members/${owner.accountId}/invitation/`)).status, 404);
  });

  test('bad input: 400 naming the field; other accounts are out of reach (404)', async () => {
    const owner = await t.createConsoleUser();
    const other = await t.createConsoleUser();
    const member = await addMember(t, owner.token, 'agent');
    const cases: [string, string, unknown, string][] = [
      ['POST', '/members/invite/', { email: 'nope', role: 'agent' }, 'Email: an e-mail address'],
      ['POST', '/members/invite/', { email: uniqueEmail('o'), role: 'owner' }, 'Role: one of admin, agent'],
      ['POST', '/members/invite/', { email: uniqueEmail('n'), role: 'agent', name: '' }, 'Name: cannot be empty'],
      ['PUT', `/members/${member.id}/`, { role: 'owner' }, 'Role: one of admin, agent'],
    ];
    for (const [method, url, body, message] of cases) {
      const res = await t.console<{ message: string[] }>(owner.token, method, url, { body });
      assert.equal(res.status, 400, `${method} ${url}: ${res.text}`);
      assert.ok(res.body.message.includes(message), `${method} ${url}: ${res.text}`);
    }
    const short = await t.console<{ message: string[] }>(undefined, 'POST', '/auth/accept-invite', {
      body: { token: 'x', name: 'X', password: 'short' },
    });
    assert.equal(short.status, 400);
    assert.ok(short.body.message.includes('Password: at least 8 characters'), short.text);
    for (const [method, url, body] of [
      ['PUT', `/members/${member.id}/`, { role: 'admin' }],
      ['DELETE', `/members/${member.id}/`, undefined],
      ['PUT', '/members/not-a-uuid/', { role: 'admin' }],
    ] as const) {
      const res = await t.console(other.token, method, url, { body });
      assert.deepEqual([res.status, res.body], [404, { message: 'Member not found', statusCode: 404 }], `${method} ${url}`);
    }
    const list = await t.console<{ members: Member[] }>(other.token, 'GET', '/members/');
    assert.deepEqual(list.body.members.map((m) => m.email), [other.email]);
    // Still working in its own account.
    assert.equal((await t.console(member.token, 'GET', '/members/')).status, 200);
  });

  test("the owner's role cannot change and the owner cannot be removed (an account always keeps its owner)", async () => {
    const owner = await t.createConsoleUser();
    const admin = await addMember(t, owner.token, 'admin');
    for (const token of [owner.token, admin.token]) {
      const role = await t.console(token, 'PUT', `/members/${owner.accountId}/`, { body: { role: 'agent' } });
      assert.deepEqual([role.status, role.body], [400, { message: "The owner's role cannot change", statusCode: 400 }]);
      const removal = await t.console(token, 'DELETE', `/members/${owner.accountId}/`);
      assert.deepEqual([removal.status, removal.body], [
        400,
        { message: 'The owner cannot be removed: an account always keeps its owner', statusCode: 400 },
      ]);
    }
    const list = await t.console<{ members: Member[] }>(owner.token, 'GET', '/members/');
    assert.deepEqual(list.body.members.map((m) => m.role), ['owner', 'admin']);
  });
});

describe('sessions end when access ends', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  async function sessionCookie(email: string, password = PASSWORD): Promise<string> {
    const res = await t.request('POST', '/console/v1/auth/session', { body: { email, password } });
    assert.equal(res.status, 200, res.text);
    return (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  }
  const withCookie = (cookie: string) => t.request('GET', '/console/v1/members/', { headers: { cookie } });

  test('removing a member ends every token and session cookie of theirs on the next request', async () => {
    const owner = await t.createConsoleUser();
    const agent = await addMember(t, owner.token, 'agent');
    const cookie = await sessionCookie(agent.email);
    const second = (await t.console<{ token: string }>(undefined, 'POST', '/auth/login', { body: { email: agent.email, password: PASSWORD } })).body.token;
    for (const token of [agent.token, second]) assert.equal((await t.console(token, 'GET', '/members/')).status, 200);
    assert.equal((await withCookie(cookie)).status, 200);

    const removed = await t.console(owner.token, 'DELETE', `/members/${agent.id}/`);
    assert.deepEqual([removed.status, removed.body], [200, { success: true }]);
    for (const token of [agent.token, second]) assert.equal((await t.console(token, 'GET', '/members/')).status, 401);
    assert.equal((await withCookie(cookie)).status, 401);
    const login = await t.console(undefined, 'POST', '/auth/login', { body: { email: agent.email, password: PASSWORD } });
    assert.equal(login.status, 401);
    const list = await t.console<{ members: Member[] }>(owner.token, 'GET', '/members/');
    assert.deepEqual(list.body.members.map((m) => m.role), ['owner']);
  });

  test('a role change ends their sessions (they sign in again, with the new role)', async () => {
    const owner = await t.createConsoleUser();
    const agent = await addMember(t, owner.token, 'agent', 'Promoted');
    const cookie = await sessionCookie(agent.email);
    const res = await t.console<Member>(owner.token, 'PUT', `/members/${agent.id}/`, { body: { role: 'admin' } });
    assert.deepEqual([res.status, res.body], [200, { id: agent.id, email: agent.email, name: 'Promoted', role: 'admin', status: 'active', capacity: null }]);
    assert.equal((await t.console(agent.token, 'GET', '/members/')).status, 401);
    assert.equal((await withCookie(cookie)).status, 401);
    const login = await t.console<{ token: string }>(undefined, 'POST', '/auth/login', { body: { email: agent.email, password: PASSWORD } });
    const session = await t.console<{ role: string }>(login.body.token, 'GET', '/auth/session');
    assert.equal(session.body.role, 'admin');
  });

  test('changing the password ends every token and session of theirs; the new password signs in, the old one not', async () => {
    const owner = await t.createConsoleUser();
    const agent = await addMember(t, owner.token, 'agent');
    const cookie = await sessionCookie(agent.email);
    const wrong = await t.console(agent.token, 'PUT', '/auth/password', { body: { currentPassword: 'not it at all', newPassword: 'brand new password' } });
    assert.deepEqual([wrong.status, wrong.body], [401, { message: 'Invalid e-mail or password', statusCode: 401 }]);
    const short = await t.console<{ message: string[] }>(agent.token, 'PUT', '/auth/password', { body: { currentPassword: PASSWORD, newPassword: 'short' } });
    assert.equal(short.status, 400);
    assert.ok(short.body.message.includes('New password: at least 8 characters'), short.text);
    assert.equal((await t.console(agent.token, 'GET', '/members/')).status, 200);

    const changed = await t.console(agent.token, 'PUT', '/auth/password', { body: { currentPassword: PASSWORD, newPassword: 'brand new password' } });
    assert.deepEqual([changed.status, changed.body], [200, { success: true }]);
    assert.equal((await t.console(agent.token, 'GET', '/members/')).status, 401);
    assert.equal((await withCookie(cookie)).status, 401);
    const old = await t.console(undefined, 'POST', '/auth/login', { body: { email: agent.email, password: PASSWORD } });
    assert.equal(old.status, 401);
    const fresh = await t.console(undefined, 'POST', '/auth/login', { body: { email: agent.email, password: 'brand new password' } });
    assert.equal(fresh.status, 200);
  });

  test('signing out ends every token and session of the member, and only theirs', async () => {
    const owner = await t.createConsoleUser();
    const agent = await addMember(t, owner.token, 'agent');
    const cookie = await sessionCookie(agent.email);
    const out = await t.request('DELETE', '/console/v1/auth/session', { headers: { cookie, 'x-requested-with': 'parley' } });
    assert.deepEqual([out.status, out.body], [200, { success: true }]);
    assert.match(out.headers.get('set-cookie') ?? '', /Max-Age=0/);
    assert.equal((await withCookie(cookie)).status, 401);
    assert.equal((await t.console(agent.token, 'GET', '/members/')).status, 401);
    assert.equal((await t.console(owner.token, 'GET', '/members/')).status, 200);
  });
});

describe('two processes: removing a member cuts them off on every process', () => {
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

  test("the other process forgets the member on the cache notice, well before its cache's 30 s would", async () => {
    const owner = await a.createConsoleUser();
    const agent = await addMember(a, owner.token, 'agent');
    // Process B has read (and cached) the member.
    assert.equal((await b.console(agent.token, 'GET', '/members/')).status, 200);
    const started = Date.now();
    assert.equal((await a.console(owner.token, 'DELETE', `/members/${agent.id}/`)).status, 200);
    assert.equal((await a.console(agent.token, 'GET', '/members/')).status, 401);
    await eventually(async () => (await b.console(agent.token, 'GET', '/members/')).status === 401, 15_000);
    assert.ok(Date.now() - started < 15_000);
    // And a role change likewise.
    const admin = await addMember(a, owner.token, 'admin');
    assert.equal((await b.console(admin.token, 'GET', '/members/')).status, 200);
    assert.equal((await a.console(owner.token, 'PUT', `/members/${admin.id}/`, { body: { role: 'agent' } })).status, 200);
    await eventually(async () => (await b.console(admin.token, 'GET', '/members/')).status === 401, 15_000);
  });
});

describe('invitations by e-mail (SMTP_URL)', () => {
  let t: TestApp;
  let smtp: SMTPServer;
  const received: { from: string; to: string[]; user: string | undefined; body: string }[] = [];
  before(async () => {
    smtp = new SMTPServer({
      authOptional: false,
      allowInsecureAuth: true,
      disabledCommands: ['STARTTLS'],
      onAuth(auth, _session, callback) {
        if (auth.username === 'mailer' && auth.password === 's3cret-pass') callback(null, { user: auth.username });
        else callback(new Error('Invalid username or password'));
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const from = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address;
          received.push({
            from,
            to: session.envelope.rcptTo.map((r) => r.address),
            user: typeof session.user === 'string' ? session.user : undefined,
            body: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const { port } = smtp.server.address() as { port: number };
    t = await startTestApp({ smtpUrl: `smtp://mailer:s3cret-pass@127.0.0.1:${port}` });
  });
  after(async () => {
    await t.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  test('the invitation is e-mailed with its link; the link works; the SMTP password is never logged', async () => {
    const owner = await t.createConsoleUser();
    const email = uniqueEmail('mailed');
    const invite = await t.console<Invitation>(owner.token, 'POST', '/members/invite/', { body: { email, role: 'agent', name: 'Mailed' } });
    assert.equal(invite.status, 201, invite.text);
    assert.equal(invite.body.emailed, true);
    const mail = await eventually(async () => received.find((m) => m.to.includes(email.toLowerCase())), 20_000);
    assert.equal(mail.from, 'team@parley.test');
    assert.equal(mail.user, 'mailer');
    const headers = mail.body.replace(/\r\n[ \t]+/g, ' ');
    assert.match(headers, /^From: Parley Team <team@parley\.test>/m);
    assert.match(headers, /^Subject: .*invited you to their Parley team\r$/m);
    const link = /https:\/\/parley\.test\/invite\/[A-Za-z0-9_-]{43}/.exec(mail.body.replace(/=\r?\n/g, ''))?.[0];
    assert.equal(link, invite.body.inviteUrl);
    const accepted = await t.console(undefined, 'POST', '/auth/accept-invite', {
      body: { token: tokenOf(link ?? ''), name: 'Mailed', password: PASSWORD },
    });
    assert.equal(accepted.status, 200, accepted.text);
    assert.ok(!t.logs.some((line) => line.includes('s3cret-pass')));
  });
});

describe('roles: one rule per console route', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  type Operation = { method: string; path: string; operationId: string };
  async function operations(): Promise<Operation[]> {
    const doc = await t.request<{ paths: Record<string, Record<string, { operationId: string }>> }>('GET', '/console/v1/openapi.json');
    return Object.entries(doc.body.paths).flatMap(([p, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ method: method.toUpperCase(), path: p, operationId: op.operationId })),
    );
  }
  /** Calls an operation with made-up parameters and an empty body: what matters is whether it is refused for the role. */
  async function call(token: string, op: Operation) {
    const url = op.path.replace(/\{type\}/g, 'custom').replace(/\{[^}]+\}/g, '0190b5a0-0000-7000-8000-000000000000');
    return t.console(token, op.method, url, op.method === 'GET' ? {} : { body: {} });
  }

  /** What an agent may do: the Inbox (with saved replies), reading channels, knowledge bases and the team. */
  const AGENT_ALLOWED = [
    // No credential needed.
    'login',
    'createSession',
    'getSessionState',
    'acceptInvitation',
    'forgotPassword',
    'resetPassword',
    // Whether the server sends e-mail (issue #42): the sign-in page asks it.
    'getServerInfo',
    // Every member's own settings (issue #33).
    'getMe',
    'updateMe',
    'changeMyPassword',
    'getSession',
    'deleteSession',
    'changePassword',
    'getChannel',
    'listChannels',
    // The origins a widget refused (issue #34): the channel page shows them to every member.
    'listEmbedAttempts',
    'listKnowledgeBases',
    'listEntries',
    'listDocuments',
    'listInboxChats',
    'listMessages',
    'sendTeamReply',
    'pauseChat',
    'resumeChat',
    'setChatStatus',
    'getInboxChat',
    'getChatCustomer',
    'readInboxChat',
    'unreadInboxChat',
    'banInboxChat',
    'unbanInboxChat',
    'addInboxChatTag',
    'removeInboxChatTag',
    'markAnswerCorrect',
    'correctAnswer',
    'getOverview',
    'listAgentFailures',
    'listMembers',
    'assignChat',
    'addNote',
    'listCannedResponses',
    'createCannedResponse',
    'updateCannedResponse',
    'deleteCannedResponse',
    // The reports (issue #36): every member reads them; the account's settings too (an admin changes them).
    'getReportSummary',
    'listReportConversations',
    'downloadReportConversations',
    'getAccountSettings',
    // Replays (issue #37): an admin starts one; every member reads it and marks its items. The knowledge gaps.
    'getReplay',
    'listReplayItems',
    'markReplayItem',
    'listKnowledgeGaps',
    // Agent actions (issue #43): every member reads them (secrets masked) and their runs; an admin changes and calls them.
    'listActions',
    'getAction',
    'listActionRuns',
    'listMySessions',
    'deleteMySession',
    'deleteMyOtherSessions',
    // Two-factor sign-in (issue #45, item 1): the second step needs no credential; every member turns it on or off.
    'loginTwoFactor',
    'createSessionTwoFactor',
    'setupTwoFactor',
    'enableTwoFactor',
    'disableTwoFactor',
    // The team's workbench (issue #44): every member searches and reads suggestions.
    'search',
    'getChatSuggestions',
    // Single sign-on (issue #45, item 2): the login page's button, the start and the callback need no credential.
    'discoverSso',
    'startSso',
    'ssoCallback',
  ].sort();

  test('walking every operation of the console document as an agent: exactly the allowed set passes, the rest is 403', async () => {
    const owner = await t.createConsoleUser();
    const agent = await addMember(t, owner.token, 'agent');
    const ops = await operations();
    // Signing out last: it ends the agent's token.
    ops.sort((a, b) => Number(a.operationId === 'deleteSession') - Number(b.operationId === 'deleteSession'));
    const allowed: string[] = [];
    for (const op of ops) {
      const res = await call(agent.token, op);
      if (res.status === 403) {
        assert.deepEqual(res.body, { message: 'Forbidden for your role', statusCode: 403 }, op.operationId);
      } else {
        assert.notEqual(res.status, 401, `${op.operationId}: ${res.text}`);
        allowed.push(op.operationId);
      }
    }
    assert.deepEqual(allowed.sort(), AGENT_ALLOWED);
  });

  test('an admin may call every operation; the document says which role each needs (x-role)', async () => {
    const owner = await t.createConsoleUser();
    const admin = await addMember(t, owner.token, 'admin');
    const ops = (await operations()).filter((op) => op.operationId !== 'deleteSession');
    // The owner's alone (issue #45, item 2: single sign-on).
    const OWNER_ONLY = ['getSso', 'updateSso'];
    for (const op of ops) {
      const res = await call(admin.token, op);
      if (OWNER_ONLY.includes(op.operationId)) {
        assert.deepEqual([res.status, res.body], [403, { message: 'Forbidden for your role', statusCode: 403 }], op.operationId);
        continue;
      }
      assert.notEqual(res.status, 403, `${op.operationId}: ${res.text}`);
      assert.notEqual(res.status, 401, `${op.operationId}: ${res.text}`);
    }
    const doc = await t.request<{ paths: Record<string, Record<string, { 'x-role'?: string; security?: unknown[] }>> }>(
      'GET',
      '/console/v1/openapi.json',
    );
    const anonymous = [
      'POST /auth/login',
      'POST /auth/session',
      'POST /auth/login/2fa',
      'POST /auth/session/2fa',
      'GET /auth/session/state',
      'POST /auth/accept-invite',
      'POST /auth/forgot-password',
      'POST /auth/reset-password',
      'GET /server/',
      'GET /auth/sso/discover',
      'GET /auth/sso/start',
      'GET /auth/sso/callback',
    ];
    for (const [p, methods] of Object.entries(doc.body.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        if (anonymous.includes(`${method.toUpperCase()} ${p}`)) continue;
        assert.ok(op['x-role'] === 'agent' || op['x-role'] === 'admin' || (op['x-role'] === 'owner' && p === '/account/sso/'), `${method} ${p}`);
      }
    }
  });

  test('an agent cannot change channels, knowledge bases or members, nor invite; 403 in the caller\'s language', async () => {
    const owner = await t.createConsoleUser();
    const agent = await addMember(t, owner.token, 'agent');
    const channel = await t.console<{ id: string }>(owner.token, 'POST', '/channel/custom/connect/', { body: { name: 'Support' } });
    assert.equal(channel.status, 201, channel.text);
    const refused: [string, string, unknown][] = [
      ['DELETE', `/channel/custom/${channel.body.id}/`, undefined],
      ['PUT', `/channel/custom/${channel.body.id}/`, { name: 'Renamed' }],
      ['POST', '/knowledge-bases', { name: 'FAQ', language: 'en' }],
      ['POST', '/members/invite/', { email: uniqueEmail('x'), role: 'agent' }],
      ['PUT', `/members/${agent.id}/`, { role: 'admin' }],
      // A pending invitation's link (issue #42) is an admin's, like the invitation.
      ['GET', `/members/${agent.id}/invitation/`, undefined],
      // The account's settings and its alert webhook (issue #42: the Settings page) are an admin's to change.
      ['PUT', '/account/settings/', { resolutionQuietMinutes: 60 }],
      ['GET', '/account/alerts/', undefined],
      ['PUT', '/account/alerts/', { alertWebhookUrl: null }],
    ];
    for (const [method, url, body] of refused) {
      const res = await t.console(agent.token, method, url, { body });
      assert.deepEqual([res.status, res.body], [403, { message: 'Forbidden for your role', statusCode: 403 }], `${method} ${url}`);
    }
    const ru = await t.console(agent.token, 'DELETE', `/channel/custom/${channel.body.id}/`, { lang: 'ru' });
    assert.deepEqual(ru.body, { message: 'Недоступно для вашей роли', statusCode: 403 });
    const read = await t.console<{ name: string }>(agent.token, 'GET', `/channel/custom/${channel.body.id}/`);
    assert.deepEqual([read.status, read.body.name], [200, 'Support']);
  });
});

describe('rate limits of the new routes', () => {
  test("the team's routes count against the account's console allowance; accepting invitations against the address's login allowance", async () => {
    const t = await startTestApp({ rateLimitMax: 5, loginAttemptsPerIp: 3 });
    try {
      const owner = await t.createConsoleUser();
      const statuses: number[] = [];
      for (const [method, url, body] of [
        ['GET', '/members/', undefined],
        ['GET', '/canned-responses/', undefined],
        ['POST', '/canned-responses/', { shortCode: 'a', text: 'A' }],
        ['POST', '/members/invite/', { email: uniqueEmail('limited'), role: 'agent' }],
        ['GET', '/members/', undefined],
        ['GET', '/members/', undefined],
      ] as const) {
        statuses.push((await t.console(owner.token, method, url, { body })).status);
      }
      assert.deepEqual(statuses, [200, 200, 201, 201, 200, 429]);
      // Invitation links have their own allowance per address (the owner's login did not spend it): three guesses, then 429.
      const guesses: number[] = [];
      for (let i = 0; i < 4; i += 1) {
        guesses.push((await t.console(undefined, 'POST', '/auth/accept-invite', { body: { token: `guess-${i}`, name: 'X', password: PASSWORD } })).status);
      }
      assert.deepEqual(guesses, [400, 400, 400, 429]);
    } finally {
      await t.close();
    }
  });
});

describe('operator CLI: list-members, remove-member', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  /** The CLI as an operator runs it (asynchronously: the app answering it runs in this process). */
  async function cli(...args: string[]) {
    const run = promisify(execFile);
    const options = { cwd: root, env: { ...process.env, ADMIN_TOKEN }, encoding: 'utf8' as const };
    try {
      const { stdout } = await run(process.execPath, ['--import', 'tsx', 'packages/server/src/cli/admin.ts', ...args, '--url', t.url], options);
      return { status: 0, body: JSON.parse(stdout) as unknown };
    } catch (error) {
      const failed = error as { code: number; stdout: string };
      return { status: failed.code, body: JSON.parse(failed.stdout) as unknown };
    }
  }

  test('lists the members of an account and removes one (not the owner); the removed member is cut off', async () => {
    const owner = await t.createConsoleUser();
    const agent = await addMember(t, owner.token, 'agent', 'Leaving Agent');
    const listed = await cli('list-members', '--account', owner.accountId);
    assert.deepEqual(listed, {
      status: 0,
      body: {
        members: [
          { id: owner.accountId, email: owner.email, name: owner.email, role: 'owner', status: 'active' },
          { id: agent.id, email: agent.email, name: 'Leaving Agent', role: 'agent', status: 'active' },
        ],
      },
    });
    const ownerRemoval = await cli('remove-member', '--member', owner.accountId);
    assert.equal(ownerRemoval.status, 1);
    assert.deepEqual(ownerRemoval.body, {
      error: { message: 'The owner cannot be removed: an account always keeps its owner', statusCode: 400 },
      status: 400,
    });
    assert.deepEqual(await cli('remove-member', '--member', agent.id), { status: 0, body: { success: true } });
    assert.equal((await t.console(agent.token, 'GET', '/members/')).status, 401);
    assert.equal((await cli('list-members', '--account', '0190b5a0-0000-7000-8000-000000000000')).status, 1);
  });
});

describe('migration 0019: the existing login becomes the owner', () => {
  test('an account made before teams signs in with the same e-mail and password, as its owner', async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), 'parley-migrations-'));
    try {
      // The migrations up to 0018, as an existing installation has them.
      await cp(MIGRATIONS_FOLDER, folder, { recursive: true });
      const journalPath = path.join(folder, 'meta/_journal.json');
      const journal = JSON.parse(await readFile(journalPath, 'utf8')) as { entries: { idx: number }[] };
      journal.entries = journal.entries.filter((entry) => entry.idx < 19);
      await writeFile(journalPath, JSON.stringify(journal));
      const client = await PGlite.create();
      await migrate(drizzle(client), { migrationsFolder: folder });
      const hash = await hashPassword('the old password');
      await client.query(`insert into accounts (id, email, password_hash) values ($1, $2, $3)`, [
        '0190b5a0-0000-7000-8000-0000000000aa',
        'old.owner@example.com',
        hash,
      ]);
      const dump = await client.dumpDataDir('none');
      await client.close();

      const database = await openDatabase({ kind: 'pglite', loadDataDir: dump });
      const t = await startTestApp({ database });
      try {
        const login = await t.console<{ token: string }>(undefined, 'POST', '/auth/login', {
          body: { email: 'old.owner@example.com', password: 'the old password' },
        });
        assert.equal(login.status, 200, login.text);
        const list = await t.console<{ members: Member[] }>(login.body.token, 'GET', '/members/');
        assert.deepEqual(list.body.members, [
          { id: '0190b5a0-0000-7000-8000-0000000000aa', email: 'old.owner@example.com', name: 'old.owner@example.com', role: 'owner', status: 'active', capacity: null },
        ]);
      } finally {
        await t.close();
        await database.close();
      }
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
