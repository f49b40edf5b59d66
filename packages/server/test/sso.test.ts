// Single sign-on with OpenID Connect (issue #45, item 2; DESIGN "Security and privacy"), against a real OpenID provider
// (`oidc-provider`, support/oidc-provider.ts) on 127.0.0.1: the owner's settings (secret write-only, owner only, each
// account its own), the redirect with state, nonce and PKCE, the callback's checks (a wrong state, a wrong or replayed
// nonce, an unverified e-mail, a removed member are refused on the login page), who signs in or joins (a member, a
// pending invitation with its role, an allowed domain with the default role), the session it opens (the same
// sessions as a password sign-in), and password sign-in turned off for members other than the owner.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { PASSWORD, startTestApp, type TestApp } from './support/harness.ts';
import { startOidcProvider, type OidcUser, type TestOidcProvider } from './support/oidc-provider.ts';

type Sso = {
  issuer: string | null;
  clientId: string | null;
  clientSecretSet: boolean;
  buttonName: string;
  allowedDomains: string[];
  defaultRole: string;
  passwordLogin: boolean;
  slug: string;
  loginUrl: string;
  redirectUri: string;
};

let counter = 0;
const unique = (what: string) => `${what}-${process.pid}-${Date.now()}-${(counter += 1)}`;

function cookiesOf(response: Response): Map<string, string> {
  const jar = new Map<string, string>();
  for (const line of response.headers.getSetCookie()) {
    const [pair = ''] = line.split(';');
    const separator = pair.indexOf('=');
    jar.set(pair.slice(0, separator).trim(), pair.slice(separator + 1));
  }
  return jar;
}
const cookieHeader = (jar: Map<string, string>) => [...jar].map(([name, value]) => `${name}=${value}`).join('; ');

interface Flow {
  /** Where the callback sent the browser. */
  location: string;
  /** The web-account session cookie's value, when one was set. */
  session: string | undefined;
  /** The callback's address (to replay it) and the start's cookie. */
  callback: URL;
  ssoCookie: string;
}

describe('single sign-on (OpenID Connect)', () => {
  let t: TestApp;
  let idp: TestOidcProvider;
  let owner: { accountId: string; email: string; token: string };
  let sso: Sso;
  const domain = `${unique('corp')}.example.com`;

  /** A sign-in through the provider as `user`; `tamper` changes the provider's URL, the callback's query or the cookie. */
  async function signIn(
    user: OidcUser,
    tamper: { authUrl?: (url: URL) => void; callback?: (url: URL) => void; ssoCookie?: string | null } = {},
    slug = sso.slug,
  ): Promise<Flow> {
    idp.nextUser = user;
    const start = await fetch(`${t.url}/console/v1/auth/sso/start?account=${slug}`, { redirect: 'manual' });
    assert.equal(start.status, 302, await start.text());
    const ssoCookie = cookiesOf(start).get('parley_sso') ?? '';
    assert.ok(ssoCookie, 'the start sets the sign-in cookie');
    assert.match(start.headers.getSetCookie().join(), /parley_sso=[^;]+; Path=\/console\/v1\/auth\/sso; HttpOnly; SameSite=Lax; Max-Age=600/);
    let next = new URL(start.headers.get('location') ?? '');
    assert.equal(next.origin, idp.issuer);
    assert.equal(next.searchParams.get('code_challenge_method'), 'S256');
    for (const param of ['state', 'nonce', 'code_challenge']) assert.ok(next.searchParams.get(param), param);
    tamper.authUrl?.(next);
    // The provider's redirects (sign-in and consent are automatic), with its cookies, back to the callback.
    const jar = new Map<string, string>();
    for (let hop = 0; next.origin === idp.issuer; hop += 1) {
      assert.ok(hop < 10, 'the provider comes back to the callback');
      const res = await fetch(next, { redirect: 'manual', headers: { cookie: cookieHeader(jar) } });
      for (const [name, value] of cookiesOf(res)) jar.set(name, value);
      assert.ok([302, 303].includes(res.status), `${res.status} ${await res.text()}`);
      next = new URL(res.headers.get('location') ?? '', next);
    }
    assert.equal(`${next.origin}${next.pathname}`, sso.redirectUri);
    tamper.callback?.(next);
    const cookie = tamper.ssoCookie === null ? undefined : (tamper.ssoCookie ?? ssoCookie);
    const callback = new URL(`${next.pathname}${next.search}`, t.url);
    const res = await fetch(callback, { redirect: 'manual', headers: cookie ? { cookie: `parley_sso=${cookie}` } : {} });
    assert.equal(res.status, 302, await res.text());
    return { location: res.headers.get('location') ?? '', session: cookiesOf(res).get('parley_session') || undefined, callback, ssoCookie };
  }

  const whoIs = (session: string) =>
    t.request<{ email: string; role: string }>('GET', '/console/v1/auth/session', { headers: { cookie: `parley_session=${session}` } });

  async function invite(email: string, role: 'admin' | 'agent') {
    const res = await t.console<{ id: string; inviteUrl: string }>(owner.token, 'POST', '/members/invite/', { body: { email, role } });
    assert.equal(res.status, 201, res.text);
    return res.body;
  }

  async function memberByEmail(email: string) {
    const list = await t.console<{ members: { id: string; email: string; role: string; status: string }[] }>(owner.token, 'GET', '/members/');
    assert.equal(list.status, 200, list.text);
    return list.body.members.find((m) => m.email === email);
  }

  /** The account's audit events of `kind` about the member `id`: actor, target and changes. */
  async function auditOf(kind: string, id: string | undefined) {
    type Event = { actor: { kind: string; id: string | null; name: string }; target: { type: string; id: string | null; name: string | null }; changes: unknown };
    const res = await t.console<{ events: Event[] }>(owner.token, 'GET', '/audit', { query: { kind } });
    assert.equal(res.status, 200, res.text);
    return res.body.events.filter((event) => event.target.id === id).map(({ actor, target, changes }) => ({ actor, target, changes }));
  }

  before(async () => {
    t = await startTestApp({ webhookAllowPrivateNetworks: true, realPublicUrl: true });
    idp = await startOidcProvider(`${t.url}/console/v1/auth/sso/callback`);
    owner = await t.createConsoleUser();
    const res = await t.console<Sso>(owner.token, 'PUT', '/account/sso/', {
      body: { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, buttonName: 'Acme ID', allowedDomains: [domain.toUpperCase()], defaultRole: 'agent' },
    });
    assert.equal(res.status, 200, res.text);
    sso = res.body;
  });
  after(async () => {
    await idp?.close();
    await t?.close();
  });

  test('the settings: read-only addresses, the secret never shown, defaults', async () => {
    assert.deepEqual(sso, {
      issuer: idp.issuer,
      clientId: idp.clientId,
      clientSecretSet: true,
      buttonName: 'Acme ID',
      allowedDomains: [domain],
      defaultRole: 'agent',
      passwordLogin: true,
      slug: sso.slug,
      loginUrl: `${t.url}/login/${sso.slug}`,
      redirectUri: `${t.url}/console/v1/auth/sso/callback`,
    });
    assert.match(sso.slug, /^[0-9a-f]{12}$/);
    const read = await t.console<Sso>(owner.token, 'GET', '/account/sso/');
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, sso);
    assert.ok(!read.text.includes(idp.clientSecret), 'the secret is never echoed');
    // Sealed at rest.
    const [row] = await queryRows<{ client_secret: string }>(t.database.db, sql`select client_secret from account_sso where account_id = ${owner.accountId}`);
    assert.ok(row?.client_secret.startsWith('enc:v1:'), 'sealed with SECRETS_KEY');
    // A new account has single sign-on off.
    const other = await t.createConsoleUser();
    const fresh = await t.console<Sso>(other.token, 'GET', '/account/sso/');
    assert.equal(fresh.status, 200, fresh.text);
    assert.equal(fresh.body.issuer, null);
    assert.equal(fresh.body.clientSecretSet, false);
    assert.equal(fresh.body.buttonName, 'SSO');
    assert.equal(fresh.body.passwordLogin, true);
    assert.notEqual(fresh.body.slug, sso.slug);
  });

  test('the settings are checked: https issuer, client id, passwords off only with single sign-on, unknown fields', async () => {
    const other = await t.createConsoleUser();
    const put = (body: unknown) => t.console<{ message: string }>(other.token, 'PUT', '/account/sso/', { body });
    let res = await put({ issuer: 'ftp://idp.example.com', clientId: 'x' });
    assert.equal(res.status, 400);
    assert.equal(res.body.message, 'issuer must be an https URL (http only with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true)');
    res = await put({ issuer: 'https://idp.example.com' });
    assert.deepEqual([res.status, res.body.message], [400, 'clientId is required with an issuer']);
    res = await put({ passwordLogin: false });
    assert.deepEqual([res.status, res.body.message], [400, 'passwordLogin can be false only while single sign-on is on (issuer and clientId)']);
    res = await put({ defaultRole: 'owner' });
    assert.equal(res.status, 400);
    res = await put({ slug: 'mine' });
    assert.equal(res.status, 400);
    res = await put({ clientSecretSet: true });
    assert.equal(res.status, 400);
    // Without WEBHOOK_ALLOW_PRIVATE_NETWORKS: https only, and no private address.
    const strict = await startTestApp();
    try {
      const user = await strict.createConsoleUser();
      const http = await strict.console<{ message: string }>(user.token, 'PUT', '/account/sso/', { body: { issuer: idp.issuer, clientId: 'x' } });
      assert.deepEqual([http.status, http.body.message], [400, 'issuer must be an https URL (http only with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true)']);
      const priv = await strict.console<{ message: string }>(user.token, 'PUT', '/account/sso/', { body: { issuer: 'https://127.0.0.1:9', clientId: 'x' } });
      assert.equal(priv.status, 400, priv.text);
      assert.match(priv.body.message, /private/);
    } finally {
      await strict.close();
    }
  });

  test('owner only: an admin and an agent get 403; no credential 401', async () => {
    for (const role of ['admin', 'agent'] as const) {
      const email = `${unique(role)}@example.com`;
      const inv = await invite(email, role);
      const accepted = await t.console<{ token: string }>(undefined, 'POST', '/auth/accept-invite', {
        body: { token: inv.inviteUrl.slice(inv.inviteUrl.lastIndexOf('/') + 1), name: role, password: PASSWORD },
      });
      assert.equal(accepted.status, 200, accepted.text);
      const get = await t.console<{ message: string }>(accepted.body.token, 'GET', '/account/sso/');
      assert.deepEqual([get.status, get.body.message], [403, 'Forbidden for your role']);
      const put = await t.console<{ message: string }>(accepted.body.token, 'PUT', '/account/sso/', { body: { buttonName: 'Mine' } });
      assert.deepEqual([put.status, put.body.message], [403, 'Forbidden for your role']);
    }
    assert.equal((await t.console(undefined, 'GET', '/account/sso/')).status, 401);
    assert.equal((await t.console<Sso>(owner.token, 'GET', '/account/sso/')).body.buttonName, 'Acme ID');
  });

  test("each account its own: another owner's settings never show or change this account's", async () => {
    const other = await t.createConsoleUser();
    const put = await t.console<Sso>(other.token, 'PUT', '/account/sso/', { body: { buttonName: 'Other', allowedDomains: ['other.example.com'] } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.issuer, null);
    const mine = await t.console<Sso>(owner.token, 'GET', '/account/sso/');
    assert.deepEqual(mine.body, sso);
    // The other account's sign-in page offers no button (single sign-on off there).
    const discover = await t.console<{ sso: unknown }>(undefined, 'GET', '/auth/sso/discover', { query: { account: put.body.slug } });
    assert.deepEqual(discover.body, { sso: null });
    const start = await fetch(`${t.url}/console/v1/auth/sso/start?account=${put.body.slug}`, { redirect: 'manual' });
    assert.equal(start.status, 302);
    assert.equal(start.headers.get('location'), `/login/${put.body.slug}?sso=off`);
  });

  test('the login page finds the button by the sign-in page or by an allowed domain only', async () => {
    const bySlug = await t.console<{ sso: unknown }>(undefined, 'GET', '/auth/sso/discover', { query: { account: sso.slug } });
    assert.deepEqual(bySlug.body, { sso: { buttonName: 'Acme ID', startUrl: `/console/v1/auth/sso/start?account=${sso.slug}` } });
    const byDomain = await t.console<{ sso: unknown }>(undefined, 'GET', '/auth/sso/discover', { query: { email: `Someone@${domain.toUpperCase()}` } });
    assert.deepEqual(byDomain.body, bySlug.body);
    // The owner's own e-mail is a member, but its domain is not listed: nothing said.
    const byMember = await t.console<{ sso: unknown }>(undefined, 'GET', '/auth/sso/discover', { query: { email: owner.email } });
    assert.deepEqual(byMember.body, { sso: null });
    assert.deepEqual((await t.console(undefined, 'GET', '/auth/sso/discover', { query: { account: 'nope' } })).body, { sso: null });
    assert.equal((await t.console(undefined, 'GET', '/auth/sso/discover')).status, 400);
    assert.equal((await t.console(undefined, 'GET', '/auth/sso/discover', { query: { account: sso.slug, email: owner.email } })).status, 400);
    assert.equal((await t.console(undefined, 'GET', '/auth/sso/discover', { query: { account: sso.slug, other: '1' } })).status, 400);
  });

  test('an existing member is matched by verified e-mail: a web-account session like a password sign-in', async () => {
    const flow = await signIn({ email: owner.email.toUpperCase(), emailVerified: true, name: 'Owner' });
    assert.equal(flow.location, '/');
    assert.ok(flow.session);
    const me = await whoIs(flow.session);
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.email, owner.email);
    assert.equal(me.body.role, 'owner');
    // Listed among the owner's sessions, and signed out everywhere like any other.
    const sessions = await t.request<{ sessions: { current: boolean }[] }>('GET', '/console/v1/me/sessions', { headers: { cookie: `parley_session=${flow.session}` } });
    assert.equal(sessions.status, 200, sessions.text);
    assert.equal(sessions.body.sessions.filter((s) => s.current).length, 1);
    const out = await t.request('DELETE', '/console/v1/auth/session', { headers: { cookie: `parley_session=${flow.session}`, 'x-requested-with': 'parley' } });
    assert.equal(out.status, 200);
    assert.equal((await whoIs(flow.session)).status, 401);
    owner.token = (await t.request<{ token: string }>('POST', '/console/v1/auth/login', { body: { email: owner.email, password: PASSWORD } })).body.token;
  });

  test('a new member joins by a pending invitation (its role; the invitation is used)', async () => {
    const email = `${unique('invited')}@elsewhere.example.com`;
    const inv = await invite(email, 'admin');
    const flow = await signIn({ email, emailVerified: true, name: 'Invited Person' });
    assert.equal(flow.location, '/');
    const me = await whoIs(flow.session ?? '');
    assert.deepEqual([me.status, me.body.email, me.body.role], [200, email, 'admin']);
    const member = await memberByEmail(email);
    assert.equal(member?.status, 'active');
    // Written in the join's transaction, the new member its actor.
    assert.deepEqual(await auditOf('invitation.accepted', inv.id), [
      {
        actor: { kind: 'member', id: inv.id, name: 'Invited Person' },
        target: { type: 'member', id: inv.id, name: 'Invited Person' },
        changes: { status: ['invited', 'active'] },
      },
    ]);
    const used = await t.console<{ message: string }>(undefined, 'POST', '/auth/accept-invite', {
      body: { token: inv.inviteUrl.slice(inv.inviteUrl.lastIndexOf('/') + 1), name: 'X', password: PASSWORD },
    });
    assert.deepEqual([used.status, used.body.message], [400, 'This invitation has already been used; sign in instead']);
  });

  test('a new member joins by an allowed domain with the default role; an unknown e-mail elsewhere is refused', async () => {
    const email = `${unique('domain')}@${domain}`;
    const flow = await signIn({ email, emailVerified: true, name: 'Domain Person' });
    assert.equal(flow.location, '/');
    const me = await whoIs(flow.session ?? '');
    assert.deepEqual([me.status, me.body.email, me.body.role], [200, email, 'agent']);
    const joined = await memberByEmail(email);
    assert.equal(joined?.status, 'active');
    assert.deepEqual(await auditOf('member.joined', joined?.id), [
      {
        actor: { kind: 'member', id: joined?.id, name: 'Domain Person' },
        target: { type: 'member', id: joined?.id, name: 'Domain Person' },
        changes: { email: [null, email], role: [null, 'agent'] },
      },
    ]);

    const stranger = `${unique('stranger')}@elsewhere.example.com`;
    const refused = await signIn({ email: stranger, emailVerified: true, name: 'Stranger' });
    assert.deepEqual([refused.location, refused.session], [`/login/${sso.slug}?sso=not_member`, undefined]);
    assert.equal(await memberByEmail(stranger), undefined);
    // A member of another account is not taken over.
    const other = await t.createConsoleUser();
    const elsewhere = await signIn({ email: other.email, emailVerified: true, name: 'Other owner' });
    assert.deepEqual([elsewhere.location, elsewhere.session], [`/login/${sso.slug}?sso=not_member`, undefined]);
  });

  test('an unverified e-mail is refused', async () => {
    const email = `${unique('unverified')}@${domain}`;
    const flow = await signIn({ email, emailVerified: false, name: 'Unverified' });
    assert.deepEqual([flow.location, flow.session], [`/login/${sso.slug}?sso=unverified`, undefined]);
    assert.equal(await memberByEmail(email), undefined);
    // Nor does an unverified e-mail of an existing member sign in.
    const owners = await signIn({ email: owner.email, emailVerified: false, name: 'Owner' });
    assert.deepEqual([owners.location, owners.session], [`/login/${sso.slug}?sso=unverified`, undefined]);
  });

  test('a wrong state, a missing sign-in cookie, a wrong nonce and a replayed callback are refused', async () => {
    const email = `${unique('checks')}@${domain}`;
    const user = { email, emailVerified: true, name: 'Checks' };
    const wrongState = await signIn(user, { callback: (url) => url.searchParams.set('state', 'forged-state') });
    assert.deepEqual([wrongState.location, wrongState.session], [`/login/${sso.slug}?sso=invalid`, undefined]);
    const noCookie = await signIn(user, { ssoCookie: null });
    assert.deepEqual([noCookie.location, noCookie.session], ['/login?sso=expired', undefined]);
    const forgedCookie = await signIn(user, { ssoCookie: 'eyJhbGciOiJIUzI1NiJ9.e30.forged' });
    assert.deepEqual([forgedCookie.location, forgedCookie.session], ['/login?sso=expired', undefined]);
    // The provider was asked with another nonce than the one this browser's sign-in holds.
    const wrongNonce = await signIn(user, { authUrl: (url) => url.searchParams.set('nonce', 'another-nonce') });
    assert.deepEqual([wrongNonce.location, wrongNonce.session], [`/login/${sso.slug}?sso=invalid`, undefined]);
    assert.ok(t.logs.some((line) => line.includes('did not pass its checks') && line.includes('nonce')), 'refused for its nonce');
    // Another browser's sign-in (its cookie) with this one's answer: state and nonce are not its own.
    const first = await signIn(user, { ssoCookie: null });
    const second = await signIn(user, { ssoCookie: null });
    const crossed = await fetch(first.callback, { redirect: 'manual', headers: { cookie: `parley_sso=${second.ssoCookie}` } });
    assert.equal(crossed.headers.get('location'), `/login/${sso.slug}?sso=invalid`);
    assert.equal(await memberByEmail(email), undefined, 'no attempt joined');
    // A good sign-in, then its callback replayed: the code (and its nonce) are used.
    const good = await signIn(user);
    assert.equal(good.location, '/');
    const replay = await fetch(good.callback, { redirect: 'manual', headers: { cookie: `parley_sso=${good.ssoCookie}` } });
    assert.equal(replay.status, 302);
    assert.equal(replay.headers.get('location'), `/login/${sso.slug}?sso=invalid`);
    assert.equal(cookiesOf(replay).get('parley_session'), undefined);
  });

  test('a removed member is refused (even of an allowed domain) until invited again', async () => {
    const email = `${unique('removed')}@${domain}`;
    const joined = await signIn({ email, emailVerified: true, name: 'Soon Removed' });
    assert.equal(joined.location, '/');
    const member = await memberByEmail(email);
    assert.ok(member);
    const removed = await t.console(owner.token, 'DELETE', `/members/${member.id}/`);
    assert.equal(removed.status, 200, removed.text);
    assert.equal((await whoIs(joined.session ?? '')).status, 401, 'the removal ended the session');
    const again = await signIn({ email, emailVerified: true, name: 'Soon Removed' });
    assert.deepEqual([again.location, again.session], [`/login/${sso.slug}?sso=removed`, undefined]);
    assert.equal(await memberByEmail(email), undefined);
    await invite(email, 'agent');
    const invited = await signIn({ email, emailVerified: true, name: 'Back Again' });
    assert.equal(invited.location, '/');
    assert.equal((await whoIs(invited.session ?? '')).body.email, email);
  });

  test('passwordLogin false: members other than the owner cannot sign in by password', async () => {
    const email = `${unique('password')}@example.com`;
    const inv = await invite(email, 'admin');
    const accepted = await t.console(undefined, 'POST', '/auth/accept-invite', {
      body: { token: inv.inviteUrl.slice(inv.inviteUrl.lastIndexOf('/') + 1), name: 'Pat', password: PASSWORD },
    });
    assert.equal(accepted.status, 200, accepted.text);
    const off = await t.console<Sso>(owner.token, 'PUT', '/account/sso/', { body: { passwordLogin: false } });
    assert.equal(off.status, 200, off.text);
    assert.equal(off.body.passwordLogin, false);
    try {
      for (const path of ['/console/v1/auth/login', '/console/v1/auth/session']) {
        const res = await t.request<{ message: string }>('POST', path, { body: { email, password: PASSWORD } });
        assert.deepEqual([res.status, res.body.message], [403, 'Password sign-in is off for this account: sign in with single sign-on']);
        // A wrong password is still just wrong (nothing said about the account).
        const wrong = await t.request<{ message: string }>('POST', path, { body: { email, password: 'not the password' } });
        assert.deepEqual([wrong.status, wrong.body.message], [401, 'Invalid e-mail or password']);
      }
      const ownerLogin = await t.request('POST', '/console/v1/auth/login', { body: { email: owner.email, password: PASSWORD } });
      assert.equal(ownerLogin.status, 200, 'the owner still may');
      // Nor by a password reset or an invitation accepted with a password; the invitation stays for single sign-on.
      const link = await t.admin<{ resetUrl: string }>('POST', '/password-resets', { email });
      assert.equal(link.status, 201, link.text);
      const reset = await t.request<{ message: string }>('POST', '/console/v1/auth/reset-password', {
        body: { token: link.body.resetUrl.slice(link.body.resetUrl.lastIndexOf('/') + 1), password: 'a brand new password' },
      });
      assert.deepEqual([reset.status, reset.body.message], [403, 'Password sign-in is off for this account: sign in with single sign-on']);
      const newcomer = `${unique('newcomer')}@example.com`;
      const pending = await invite(newcomer, 'agent');
      const refused = await t.request<{ message: string }>('POST', '/console/v1/auth/accept-invite', {
        body: { token: pending.inviteUrl.slice(pending.inviteUrl.lastIndexOf('/') + 1), name: 'New', password: PASSWORD },
      });
      assert.deepEqual([refused.status, refused.body.message], [403, 'Password sign-in is off for this account: sign in with single sign-on']);
      assert.equal((await memberByEmail(newcomer))?.status, 'invited');
      // The member signs in with single sign-on instead.
      const flow = await signIn({ email, emailVerified: true, name: 'Pat' });
      assert.equal((await whoIs(flow.session ?? '')).body.email, email);
    } finally {
      const on = await t.console<Sso>(owner.token, 'PUT', '/account/sso/', { body: { passwordLogin: true } });
      assert.equal(on.status, 200, on.text);
    }
    // Password sign-in back on: the password the refused reset set is the member's (the link proved the e-mail).
    assert.equal((await t.request('POST', '/console/v1/auth/login', { body: { email, password: 'a brand new password' } })).status, 200);
  });

  test('single sign-on turned off: the start ends on the login page; a provider that cannot be read too', async () => {
    const other = await t.createConsoleUser();
    const put = await t.console<Sso>(other.token, 'PUT', '/account/sso/', { body: { issuer: 'http://127.0.0.1:9', clientId: 'x' } });
    assert.equal(put.status, 200, put.text);
    const start = await fetch(`${t.url}/console/v1/auth/sso/start?account=${put.body.slug}`, { redirect: 'manual' });
    assert.equal(start.status, 302);
    assert.equal(start.headers.get('location'), `/login/${put.body.slug}?sso=unavailable`);
    assert.equal(start.headers.getSetCookie().length, 0);
    const off = await t.console<Sso>(other.token, 'PUT', '/account/sso/', { body: { issuer: null } });
    assert.equal(off.status, 200, off.text);
    const unknown = await fetch(`${t.url}/console/v1/auth/sso/start?account=unknown-slug`, { redirect: 'manual' });
    assert.equal(unknown.headers.get('location'), '/login?sso=off');
    assert.ok(!t.logs.some((line) => line.includes(idp.clientSecret)), 'the secret is never logged');
  });
});
