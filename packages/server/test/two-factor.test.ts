// Two-factor sign-in (issue #45, item 1; DESIGN "Security and privacy"): set up and confirmed by a code, 10 one-time
// recovery codes, the login's second step (a code accepted once, a challenge of 5 minutes used once, limited like
// the login), turning it off with the password and a code, the owner's requirement, other sessions ended and the
// member e-mailed on each change. Codes are computed here with the same library (otpauth) from the secret given.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { SMTPServer } from 'smtp-server';
import { eventually } from './support/events.ts';
import { PASSWORD, PUBLIC_URL, startTestApp, type TestApp } from './support/harness.ts';

/** The app's clock, moved forward by the tests (TOTP steps, the challenge's 5 minutes). */
const clock = { offset: 0, now: () => new Date(Date.now() + clock.offset) };

const codeOf = (secret: string, at = clock.now().getTime()) =>
  new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({ timestamp: at });
/** Moves the clock to the start of a later 30-second step, so the next code is a new one. */
function nextStep(): void {
  const now = clock.now().getTime();
  clock.offset += 30_000 - (now % 30_000) + 1_000;
}

type Challenge = { twoFactorRequired: true; challenge: string };
type Invitation = { id: string; inviteUrl: string };

let counter = 0;
const uniqueEmail = (what: string) => `twofa-${what}-${process.pid}-${Date.now()}-${(counter += 1)}@example.com`;

async function login(t: TestApp, email: string): Promise<string> {
  const res = await t.request<{ token: string }>('POST', '/console/v1/auth/login', { body: { email, password: PASSWORD } });
  assert.equal(res.status, 200, res.text);
  assert.equal(typeof res.body.token, 'string', res.text);
  return res.body.token;
}

async function challengeOf(t: TestApp, email: string): Promise<string> {
  const res = await t.request<Challenge>('POST', '/console/v1/auth/login', { body: { email, password: PASSWORD } });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(Object.keys(res.body).sort(), ['challenge', 'twoFactorRequired']);
  assert.equal(res.body.twoFactorRequired, true);
  return res.body.challenge;
}

const secondStep = (t: TestApp, body: Record<string, string>) => t.request<{ token: string }>('POST', '/console/v1/auth/login/2fa', { body });

/** Sets two-factor sign-in up and turns it on: the secret and the recovery codes. */
async function turnOn(t: TestApp, token: string): Promise<{ secret: string; recoveryCodes: string[] }> {
  const setup = await t.console<{ secret: string; otpauthUrl: string }>(token, 'POST', '/me/2fa/setup');
  assert.equal(setup.status, 200, setup.text);
  const enabled = await t.console<{ recoveryCodes: string[] }>(token, 'POST', '/me/2fa/enable', { body: { code: codeOf(setup.body.secret) } });
  assert.equal(enabled.status, 200, enabled.text);
  return { secret: setup.body.secret, recoveryCodes: enabled.body.recoveryCodes };
}

describe('two-factor sign-in', () => {
  let t: TestApp;
  let smtp: SMTPServer;
  const received: { to: string[]; body: string }[] = [];
  const mailTo = (email: string, subject: string) =>
    eventually(async () => received.find((m) => m.to.includes(email.toLowerCase()) && m.body.includes(`Subject: ${subject}`)), 20_000);

  before(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          received.push({ to: session.envelope.rcptTo.map((r) => r.address), body: Buffer.concat(chunks).toString('utf8').replace(/\r\n[ \t]+/g, ' ') });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const { port } = smtp.server.address() as { port: number };
    t = await startTestApp({ clock, smtpUrl: `smtp://127.0.0.1:${port}` });
  });
  after(async () => {
    await t.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  test('setup gives a secret and its otpauth URL; enable needs a right code, gives 10 recovery codes, ends other sessions and is e-mailed', async () => {
    const owner = await t.createAccount();
    const other = await login(t, owner.email);
    const token = await login(t, owner.email);
    assert.equal((await t.console<{ twoFactor: boolean }>(token, 'GET', '/me/')).body.twoFactor, false);
    const setup = await t.console<{ secret: string; otpauthUrl: string }>(token, 'POST', '/me/2fa/setup');
    assert.equal(setup.status, 200, setup.text);
    assert.match(setup.body.secret, /^[A-Z2-7]{32}$/);
    // Set up is not on yet.
    assert.equal((await t.console<{ twoFactor: boolean }>(token, 'GET', '/me/')).body.twoFactor, false);
    const url = new URL(setup.body.otpauthUrl);
    assert.equal(`${url.protocol}//${url.host}`, 'otpauth://totp');
    assert.equal(decodeURIComponent(url.pathname), `/Parley:${owner.email}`);
    assert.equal(url.searchParams.get('secret'), setup.body.secret);
    assert.equal(url.searchParams.get('issuer'), 'Parley');

    const wrong = await t.console(token, 'POST', '/me/2fa/enable', { body: { code: codeOf(setup.body.secret, clock.now().getTime() - 600_000) } });
    assert.deepEqual([wrong.status, wrong.body], [400, { message: 'Invalid two-factor code', statusCode: 400 }]);
    assert.equal((await t.console(token, 'POST', '/me/2fa/enable', { body: { code: '12345' } })).status, 400);
    assert.equal((await t.console(other, 'GET', '/me/')).status, 200);

    const enabled = await t.console<{ recoveryCodes: string[] }>(token, 'POST', '/me/2fa/enable', { body: { code: codeOf(setup.body.secret) } });
    assert.equal(enabled.status, 200, enabled.text);
    assert.equal(enabled.body.recoveryCodes.length, 10);
    assert.equal(new Set(enabled.body.recoveryCodes).size, 10);
    for (const code of enabled.body.recoveryCodes) assert.match(code, /^[a-z2-9]{5}-[a-z2-9]{5}$/);
    assert.equal((await t.console(other, 'GET', '/me/')).status, 401);
    assert.equal((await t.console<{ twoFactor: boolean }>(token, 'GET', '/me/')).body.twoFactor, true);
    const mail = await mailTo(owner.email, 'Two-factor sign-in is on');
    assert.ok(!mail.body.includes(setup.body.secret));

    const again = await t.console(token, 'POST', '/me/2fa/setup');
    assert.deepEqual([again.status, again.body], [409, { message: 'Two-factor sign-in is already on', statusCode: 409 }]);
    const enableAgain = await t.console(token, 'POST', '/me/2fa/enable', { body: { code: codeOf(setup.body.secret) } });
    assert.deepEqual([enableAgain.status, enableAgain.body], [409, { message: 'Two-factor sign-in is already on', statusCode: 409 }]);
  });

  test('enable without a setup is 409', async () => {
    const owner = await t.createAccount();
    const token = await login(t, owner.email);
    const res = await t.console(token, 'POST', '/me/2fa/enable', { body: { code: '123456' } });
    assert.deepEqual([res.status, res.body], [409, { message: 'Set up two-factor sign-in first', statusCode: 409 }]);
  });

  test('login asks for a code; a wrong code is 401, a right one gives a token once; the same code is refused the second time', async () => {
    const owner = await t.createAccount();
    const { secret } = await turnOn(t, await login(t, owner.email));
    nextStep();
    const challenge = await challengeOf(t, owner.email);

    const wrong = await secondStep(t, { challenge, code: codeOf(secret, clock.now().getTime() - 600_000) });
    assert.deepEqual([wrong.status, wrong.body], [401, { message: 'Invalid two-factor code', statusCode: 401 }]);
    const both = await secondStep(t, { challenge, code: codeOf(secret), recoveryCode: 'abcde-fghij' });
    assert.deepEqual([both.status, both.body], [400, { message: 'Give either code or recoveryCode', statusCode: 400 }]);
    assert.equal((await secondStep(t, { challenge })).status, 400);
    assert.equal((await secondStep(t, { challenge, code: codeOf(secret), extra: 'x' })).status, 400);

    const code = codeOf(secret);
    const right = await secondStep(t, { challenge, code });
    assert.equal(right.status, 200, right.text);
    assert.deepEqual(Object.keys(right.body), ['token']);
    assert.equal((await t.console(right.body.token, 'GET', '/me/')).status, 200);

    // The challenge was used.
    nextStep();
    const used = await secondStep(t, { challenge, code: codeOf(secret) });
    assert.deepEqual([used.status, used.body], [401, { message: 'Sign-in expired; log in again', statusCode: 401 }]);

    // The same code, with a new challenge, is refused (replay); so is an older one.
    const replay = await secondStep(t, { challenge: await challengeOf(t, owner.email), code });
    assert.deepEqual([replay.status, replay.body], [401, { message: 'Invalid two-factor code', statusCode: 401 }]);
    const fresh = await secondStep(t, { challenge: await challengeOf(t, owner.email), code: codeOf(secret) });
    assert.equal(fresh.status, 200, fresh.text);
    const unknown = await secondStep(t, { challenge: 'not-a-challenge', code: codeOf(secret) });
    assert.deepEqual([unknown.status, unknown.body], [401, { message: 'Sign-in expired; log in again', statusCode: 401 }]);
  });

  test('a challenge lasts 5 minutes and ends after 5 wrong codes', async () => {
    const owner = await t.createAccount();
    const { secret } = await turnOn(t, await login(t, owner.email));
    nextStep();
    const challenge = await challengeOf(t, owner.email);
    clock.offset += 5 * 60_000 + 1_000;
    const expired = await secondStep(t, { challenge, code: codeOf(secret) });
    assert.deepEqual([expired.status, expired.body], [401, { message: 'Sign-in expired; log in again', statusCode: 401 }]);

    const guessed = await challengeOf(t, owner.email);
    for (let i = 0; i < 5; i += 1) {
      const res = await secondStep(t, { challenge: guessed, code: codeOf(secret, clock.now().getTime() - 600_000 - i * 30_000) });
      assert.equal(res.status, 401, res.text);
    }
    const ended = await secondStep(t, { challenge: guessed, code: codeOf(secret) });
    assert.deepEqual([ended.status, ended.body], [401, { message: 'Sign-in expired; log in again', statusCode: 401 }]);
  });

  test('a recovery code signs in once, ends the other sessions and is e-mailed', async () => {
    const owner = await t.createAccount();
    const { secret, recoveryCodes } = await turnOn(t, await login(t, owner.email));
    nextStep();
    const before = await secondStep(t, { challenge: await challengeOf(t, owner.email), code: codeOf(secret) });
    assert.equal(before.status, 200, before.text);
    const [first, second] = recoveryCodes;
    assert.ok(first && second);

    const recovered = await secondStep(t, { challenge: await challengeOf(t, owner.email), recoveryCode: first });
    assert.equal(recovered.status, 200, recovered.text);
    assert.equal((await t.console(recovered.body.token, 'GET', '/me/')).status, 200);
    assert.equal((await t.console(before.body.token, 'GET', '/me/')).status, 401);
    await mailTo(owner.email, 'A recovery code was used');

    const twice = await secondStep(t, { challenge: await challengeOf(t, owner.email), recoveryCode: first });
    assert.deepEqual([twice.status, twice.body], [401, { message: 'Invalid two-factor code', statusCode: 401 }]);
    // Typed back with capitals and without the dash.
    const typed = await secondStep(t, { challenge: await challengeOf(t, owner.email), recoveryCode: second.replace('-', '').toUpperCase() });
    assert.equal(typed.status, 200, typed.text);
  });

  test('the web account: POST /auth/session asks for the code, POST /auth/session/2fa sets the cookie', async () => {
    const owner = await t.createAccount();
    const { secret } = await turnOn(t, await login(t, owner.email));
    nextStep();
    const first = await t.request<Challenge>('POST', '/console/v1/auth/session', { body: { email: owner.email, password: PASSWORD } });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.twoFactorRequired, true);
    assert.equal(first.headers.get('set-cookie'), null);

    // A token login's challenge does not complete a cookie sign-in, nor the other way round.
    const tokenChallenge = await challengeOf(t, owner.email);
    const crossed = await t.request('POST', '/console/v1/auth/session/2fa', { body: { challenge: tokenChallenge, code: codeOf(secret) } });
    assert.deepEqual([crossed.status, crossed.body], [401, { message: 'Sign-in expired; log in again', statusCode: 401 }]);
    assert.equal((await secondStep(t, { challenge: first.body.challenge, code: codeOf(secret) })).status, 401);

    const second = await t.request<{ email: string }>('POST', '/console/v1/auth/session/2fa', { body: { challenge: first.body.challenge, code: codeOf(secret) } });
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.email, owner.email);
    const cookie = (second.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    assert.match(cookie, /^parley_session=.+/);
    assert.equal((await t.request('GET', '/console/v1/me/', { headers: { cookie } })).status, 200);
  });

  test('disable needs the password and a code; it ends the other sessions and is e-mailed; login then needs no code', async () => {
    const owner = await t.createAccount();
    const token = await login(t, owner.email);
    const { secret } = await turnOn(t, token);
    nextStep();
    const other = await secondStep(t, { challenge: await challengeOf(t, owner.email), code: codeOf(secret) });
    assert.equal(other.status, 200, other.text);
    nextStep();

    const badPassword = await t.console(token, 'POST', '/me/2fa/disable', { body: { password: 'not the password', code: codeOf(secret) } });
    assert.deepEqual([badPassword.status, badPassword.body], [400, { message: 'Wrong password', statusCode: 400 }]);
    const badCode = await t.console(token, 'POST', '/me/2fa/disable', { body: { password: PASSWORD, code: codeOf(secret, clock.now().getTime() - 600_000) } });
    assert.deepEqual([badCode.status, badCode.body], [400, { message: 'Invalid two-factor code', statusCode: 400 }]);
    assert.equal((await t.console(token, 'POST', '/me/2fa/disable', { body: { password: PASSWORD } })).status, 400);

    const off = await t.console(token, 'POST', '/me/2fa/disable', { body: { password: PASSWORD, code: codeOf(secret) } });
    assert.deepEqual([off.status, off.body], [200, { success: true }]);
    assert.equal((await t.console(other.body.token, 'GET', '/me/')).status, 401);
    assert.equal((await t.console<{ twoFactor: boolean }>(token, 'GET', '/me/')).body.twoFactor, false);
    await mailTo(owner.email, 'Two-factor sign-in is off');
    await login(t, owner.email);
    const again = await t.console(token, 'POST', '/me/2fa/disable', { body: { password: PASSWORD, code: codeOf(secret) } });
    assert.deepEqual([again.status, again.body], [409, { message: 'Two-factor sign-in is off', statusCode: 409 }]);
  });

  test('requireTwoFactor (owner only): a member without it signs in to a session that can only set it up', async () => {
    const owner = await t.createAccount();
    const ownerToken = await login(t, owner.email);
    const email = uniqueEmail('admin');
    const invite = await t.console<Invitation>(ownerToken, 'POST', '/members/invite/', { body: { email, role: 'admin' } });
    assert.equal(invite.status, 201, invite.text);
    const accepted = await t.console(undefined, 'POST', '/auth/accept-invite', {
      body: { token: invite.body.inviteUrl.slice(`${PUBLIC_URL}/invite/`.length), name: 'Admin', password: PASSWORD },
    });
    assert.equal(accepted.status, 200, accepted.text);

    const adminToken = await login(t, email);
    const byAdmin = await t.console(adminToken, 'PUT', '/account/settings/', { body: { requireTwoFactor: true } });
    assert.deepEqual([byAdmin.status, byAdmin.body], [403, { message: 'Forbidden for your role', statusCode: 403 }]);
    const initial = await t.console<{ requireTwoFactor: boolean }>(ownerToken, 'GET', '/account/settings/');
    assert.equal(initial.body.requireTwoFactor, false);
    const set = await t.console<{ requireTwoFactor: boolean; resolutionQuietMinutes: number }>(ownerToken, 'PUT', '/account/settings/', { body: { requireTwoFactor: true } });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.requireTwoFactor, true);
    assert.equal(set.body.resolutionQuietMinutes, 1440);

    const restricted = await login(t, email);
    const refused = await t.console(restricted, 'GET', '/members/');
    assert.deepEqual([refused.status, refused.body], [403, { message: 'Two-factor sign-in is required', statusCode: 403 }]);
    assert.equal((await t.console(restricted, 'GET', '/me/sessions')).status, 403);
    const session = await t.console<Record<string, unknown>>(restricted, 'GET', '/auth/session');
    assert.equal(session.status, 200, session.text);
    assert.equal(session.body.twoFactorSetupRequired, true);
    assert.equal((await t.console(restricted, 'GET', '/me/')).status, 200);
    // The session made before the requirement is a full one.
    assert.equal((await t.console(adminToken, 'GET', '/members/')).status, 200);

    await turnOn(t, restricted);
    assert.equal((await t.console(restricted, 'GET', '/members/')).status, 200);
    const full = await t.console<Record<string, unknown>>(restricted, 'GET', '/auth/session');
    assert.equal(full.body.twoFactorSetupRequired, undefined);
    // Turning it on ended the admin's other session.
    assert.equal((await t.console(adminToken, 'GET', '/members/')).status, 401);

    // The web account's sign-in says so too.
    const owner2 = await t.request<Record<string, unknown>>('POST', '/console/v1/auth/session', { body: { email: owner.email, password: PASSWORD } });
    assert.equal(owner2.status, 200, owner2.text);
    assert.equal(owner2.body.twoFactorSetupRequired, true);
  });
});

describe('two-factor sign-in cannot be passed by a password reset or an invitation', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ clock });
  });
  after(() => t.close());

  const resetToken = async (email: string) => {
    const link = await t.admin<{ resetUrl: string }>('POST', '/password-resets', { email });
    assert.equal(link.status, 201, link.text);
    return link.body.resetUrl.slice(`${PUBLIC_URL}/reset-password/`.length);
  };

  test('a reset of a member with two-factor sign-in answers its challenge, not a token; the code then signs in with the new password', async () => {
    const owner = await t.createAccount();
    const { secret } = await turnOn(t, await login(t, owner.email));
    nextStep();
    const reset = await t.request<Challenge>('POST', '/console/v1/auth/reset-password', {
      body: { token: await resetToken(owner.email), password: 'a brand new password' },
    });
    assert.equal(reset.status, 200, reset.text);
    assert.deepEqual(Object.keys(reset.body).sort(), ['challenge', 'twoFactorRequired']);
    assert.equal((await secondStep(t, { challenge: reset.body.challenge, code: '000000' })).status, 401);
    const signed = await secondStep(t, { challenge: reset.body.challenge, code: codeOf(secret) });
    assert.equal(signed.status, 200, signed.text);
    assert.equal((await t.console(signed.body.token, 'GET', '/members/')).status, 200);
    // The new password is the one the login takes (and it asks for the code again).
    nextStep();
    const again = await t.request<Challenge>('POST', '/console/v1/auth/login', { body: { email: owner.email, password: 'a brand new password' } });
    assert.equal(again.body.twoFactorRequired, true, again.text);
  });

  test('where the account requires it, a reset and an accepted invitation give a session that can only set it up', async () => {
    const owner = await t.createAccount();
    const ownerToken = await login(t, owner.email);
    await turnOn(t, ownerToken);
    nextStep();
    const email = uniqueEmail('invited');
    const invite = await t.console<Invitation>(ownerToken, 'POST', '/members/invite/', { body: { email, role: 'admin' } });
    assert.equal(invite.status, 201, invite.text);
    assert.equal((await t.console(ownerToken, 'PUT', '/account/settings/', { body: { requireTwoFactor: true } })).status, 200);

    const accepted = await t.request<{ token: string }>('POST', '/console/v1/auth/accept-invite', {
      body: { token: invite.body.inviteUrl.slice(`${PUBLIC_URL}/invite/`.length), name: 'Invited', password: PASSWORD },
    });
    assert.equal(accepted.status, 200, accepted.text);
    const refused = await t.console(accepted.body.token, 'GET', '/members/');
    assert.deepEqual([refused.status, refused.body], [403, { message: 'Two-factor sign-in is required', statusCode: 403 }]);

    const reset = await t.request<{ token: string }>('POST', '/console/v1/auth/reset-password', { body: { token: await resetToken(email), password: 'another new password' } });
    assert.equal(reset.status, 200, reset.text);
    const afterReset = await t.console(reset.body.token, 'GET', '/members/');
    assert.deepEqual([afterReset.status, afterReset.body], [403, { message: 'Two-factor sign-in is required', statusCode: 403 }]);
    assert.equal((await t.console(reset.body.token, 'GET', '/me/')).status, 200);
  });
});

describe('two-factor sign-in is limited like the login', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ clock, loginAttemptsPerIp: 4 });
  });
  after(() => t.close());

  test('POST /auth/login/2fa answers 429 past the login attempts of the address', async () => {
    const statuses: number[] = [];
    let last: { message?: string } = {};
    for (let i = 0; i < 6; i += 1) {
      const res = await secondStep(t, { challenge: `guess-${i}`, code: '123456' });
      statuses.push(res.status);
      last = res.body as { message?: string };
    }
    assert.deepEqual(statuses, [401, 401, 401, 401, 429, 429]);
    assert.equal(last.message, 'Too many login attempts from this address; try again later');
  });
});
