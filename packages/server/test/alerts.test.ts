// Alerts and follow-through (issue #33) over HTTP against a real database: each member's own settings and password
// (GET/PUT /me/, PUT /me/password keeping the caller signed in), forgotten passwords by a one-time link through a
// local SMTP server, the operator's `name`, the alert webhook (a local receiver: body, retries, URL guard, roles,
// isolation), alert e-mails (delay, nobody online, preferences, at most one an hour), the assignee's e-mail (`mine`) for
// a customer message while offline, and the follow-through of a customer message in a paused chat and of a member's
// removal; on a channel of a model, alerts that carry the model's summary.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { SMTPServer } from 'smtp-server';
import { queryRows } from '../src/db/client.ts';
import { eventually } from './support/events.ts';
import { reply, startFakeLlm } from './support/fake-llm.ts';
import { PASSWORD, PUBLIC_URL, startTestApp, type TestApp } from './support/harness.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

type User = Awaited<ReturnType<TestApp['createConsoleUser']>>;
interface Mail {
  to: string[];
  body: string;
}
interface Profile {
  id: string;
  email: string;
  name: string;
  role: string;
  language: string;
  notifications: { email: string; browser: boolean };
}

let counter = 0;
const uniqueEmail = (name: string) => `${name}-${process.pid}-${Date.now()}-${(counter += 1)}@example.com`;
/** A mail's text with quoted-printable soft breaks undone. */
const textOf = (mail: Mail) => mail.body.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
/** The Subject header, its MIME encoded-words (RFC 2047, Q encoding) decoded. */
const subjectOf = (mail: Mail) =>
  /^Subject: (.*)$/m
    .exec(mail.body.replace(/\r\n[ \t]+/g, ' '))?.[1]
    ?.replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?UTF-8\?Q\?(.*?)\?=/gi, (_m, text: string) =>
      Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_h, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8'),
    )
    .trim();

async function startSmtp(): Promise<{ url: string; received: Mail[]; close(): Promise<void> }> {
  const received: Mail[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), body: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const { port } = smtp.server.address() as { port: number };
  return { url: `smtp://127.0.0.1:${port}`, received, close: () => new Promise<void>((resolve) => smtp.close(() => resolve())) };
}

/** Invites `email` as `role` and accepts: the member's id, e-mail and console token. */
async function addMember(t: TestApp, ownerToken: string, role: 'admin' | 'agent', name = 'Teammate') {
  const email = uniqueEmail(role);
  const invite = await t.console<{ id: string; inviteUrl: string }>(ownerToken, 'POST', '/members/invite/', { body: { email, role } });
  assert.equal(invite.status, 201, invite.text);
  const accepted = await t.console<{ token: string }>(undefined, 'POST', '/auth/accept-invite', {
    body: { token: invite.body.inviteUrl.slice(`${PUBLIC_URL}/invite/`.length), name, password: PASSWORD },
  });
  assert.equal(accepted.status, 200, accepted.text);
  return { id: invite.body.id, email: email.toLowerCase(), token: accepted.body.token };
}

/** A web-account session: its cookie. */
async function sessionOf(t: TestApp, email: string, password = PASSWORD): Promise<string> {
  const res = await t.request('POST', '/console/v1/auth/session', { body: { email, password } });
  assert.equal(res.status, 200, res.text);
  return cookieOf(res.headers);
}
function cookieOf(headers: Headers): string {
  const cookie = /parley_session=([^;]*)/.exec(headers.get('set-cookie') ?? '')?.[1];
  assert.ok(cookie, 'a session cookie is set');
  return `parley_session=${cookie}`;
}

describe('the member’s own settings and password', () => {
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  before(async () => {
    smtp = await startSmtp();
    t = await startTestApp({ smtpUrl: smtp.url });
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  test('GET /me/: defaults by role (handoffs for the owner and admins, mine for agents); PUT changes only the fields named', async () => {
    const owner = await t.createConsoleUser();
    const me = await t.console<Profile>(owner.token, 'GET', '/me/');
    assert.equal(me.status, 200, me.text);
    assert.deepEqual(me.body, {
      id: owner.accountId,
      email: owner.email,
      name: owner.email,
      role: 'owner',
      language: 'en',
      notifications: { email: 'handoffs', browser: true },
      twoFactor: false,
      availability: 'available',
      awayWhenOffline: false,
    });
    const agent = await addMember(t, owner.token, 'agent', 'Ann');
    const admin = await addMember(t, owner.token, 'admin', 'Abe');
    assert.deepEqual((await t.console<Profile>(agent.token, 'GET', '/me/')).body.notifications, { email: 'mine', browser: true });
    assert.deepEqual((await t.console<Profile>(admin.token, 'GET', '/me/')).body.notifications, { email: 'handoffs', browser: true });

    const renamed = await t.console<Profile>(agent.token, 'PUT', '/me/', { body: { name: '  Ann Lee ', notifications: { browser: false } } });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual(renamed.body, {
      id: agent.id,
      email: agent.email,
      name: 'Ann Lee',
      role: 'agent',
      language: 'en',
      notifications: { email: 'mine', browser: false },
      twoFactor: false,
      availability: 'available',
      awayWhenOffline: false,
    });
    const more = await t.console<Profile>(agent.token, 'PUT', '/me/', { body: { language: 'ru', notifications: { email: 'off' } } });
    assert.deepEqual([more.body.name, more.body.language, more.body.notifications], ['Ann Lee', 'ru', { email: 'off', browser: false }]);
    // The team sees the new name; the session's own name follows at once.
    const members = await t.console<{ members: { id: string; name: string }[] }>(owner.token, 'GET', '/members/');
    assert.equal(members.body.members.find((m) => m.id === agent.id)?.name, 'Ann Lee');
    assert.equal((await t.console<{ name: string }>(agent.token, 'GET', '/auth/session')).body.name, 'Ann Lee');

    for (const body of [{ role: 'owner' }, { name: '   ' }, { notifications: { email: 'always' } }, { notifications: { sms: true } }, { email: 'x@example.com' }]) {
      const res = await t.console(agent.token, 'PUT', '/me/', { body });
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
    }
    assert.equal((await t.console(undefined, 'GET', '/me/')).status, 401);
  });

  test('PUT /me/password: a wrong current one is 400 `Wrong password`; the change ends the other sessions, the caller stays signed in', async () => {
    const owner = await t.createConsoleUser();
    const other = await t.console<{ token: string }>(undefined, 'POST', '/auth/login', { body: { email: owner.email, password: PASSWORD } });
    const cookie = await sessionOf(t, owner.email);

    const wrong = await t.console(owner.token, 'PUT', '/me/password', { body: { currentPassword: 'not it at all', newPassword: 'a new secret one' } });
    assert.equal(wrong.status, 400, wrong.text);
    assert.deepEqual(wrong.body, { message: 'Wrong password', statusCode: 400 });
    assert.equal((await t.console(owner.token, 'GET', '/me/')).status, 200);

    // From the web account (its cookie): a new cookie comes back and works; every other token and session ends.
    const changed = await t.request('PUT', '/console/v1/me/password', {
      headers: { cookie, 'x-requested-with': 'parley' },
      body: { currentPassword: PASSWORD, newPassword: 'a new secret one' },
    });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(changed.body, { success: true });
    const renewed = cookieOf(changed.headers);
    assert.equal((await t.request('GET', '/console/v1/me/', { headers: { cookie: renewed } })).status, 200);
    assert.equal((await t.request('GET', '/console/v1/me/', { headers: { cookie } })).status, 401);
    assert.equal((await t.console(owner.token, 'GET', '/me/')).status, 401);
    assert.equal((await t.console(other.body.token, 'GET', '/me/')).status, 401);
    const login = await t.console<{ token: string }>(undefined, 'POST', '/auth/login', { body: { email: owner.email, password: 'a new secret one' } });
    assert.equal(login.status, 200, login.text);

    // With a bearer token: its new token comes back in `token`.
    const byToken = await t.console<{ success: true; token: string }>(login.body.token, 'PUT', '/me/password', {
      body: { currentPassword: 'a new secret one', newPassword: 'and another one' },
    });
    assert.equal(byToken.status, 200, byToken.text);
    assert.equal(byToken.body.success, true);
    assert.equal((await t.console(byToken.body.token, 'GET', '/me/')).status, 200);
    assert.equal((await t.console(login.body.token, 'GET', '/me/')).status, 401);
    assert.equal((await t.request('GET', '/console/v1/me/', { headers: { cookie: renewed } })).status, 401);
  });

  test('forgotten password: always 202; a one-time link valid 1 hour is e-mailed; resetting signs in and ends every session', async () => {
    const owner = await t.createConsoleUser();
    const before = smtp.received.length;
    const unknown = await t.console(undefined, 'POST', '/auth/forgot-password', { body: { email: uniqueEmail('nobody') } });
    assert.equal(unknown.status, 202, unknown.text);
    assert.deepEqual(unknown.body, { success: true });
    const asked = await t.console(undefined, 'POST', '/auth/forgot-password', { body: { email: owner.email.toUpperCase() } });
    assert.equal(asked.status, 202, asked.text);
    const mail = await eventually(async () => smtp.received.slice(before).find((m) => m.to.includes(owner.email)), 20_000);
    assert.equal(subjectOf(mail), 'Reset your Parley password');
    const link = new RegExp(`${PUBLIC_URL}/reset-password/([A-Za-z0-9_-]{43})`).exec(textOf(mail));
    assert.ok(link?.[1], textOf(mail));
    const token = link[1];
    const [stored] = await queryRows<{ reset_token_hash: string; minutes: number }>(
      t.database.db,
      sql`select reset_token_hash, round(extract(epoch from reset_expires_at - now()) / 60)::int as minutes from members where id = ${owner.accountId}`,
    );
    assert.match(stored?.reset_token_hash ?? '', /^[0-9a-f]{64}$/);
    assert.equal(stored?.minutes, 60);
    // Nothing went to the unknown address.
    assert.equal(smtp.received.slice(before).length, 1);

    const reset = await t.console<{ token: string }>(undefined, 'POST', '/auth/reset-password', { body: { token, password: 'brand new password' } });
    assert.equal(reset.status, 200, reset.text);
    assert.equal((await t.console(reset.body.token, 'GET', '/me/')).status, 200);
    assert.equal((await t.console(owner.token, 'GET', '/me/')).status, 401);
    const again = await t.console(undefined, 'POST', '/auth/reset-password', { body: { token, password: 'brand new password' } });
    assert.equal(again.status, 400, again.text);
    assert.equal((again.body as { message: string }).message, 'This password reset link is used, unknown or expired; ask for a new one');
    assert.equal((await t.console(undefined, 'POST', '/auth/login', { body: { email: owner.email, password: PASSWORD } })).status, 401);
    assert.equal((await t.console(undefined, 'POST', '/auth/login', { body: { email: owner.email, password: 'brand new password' } })).status, 200);

    // An expired link.
    await t.console(undefined, 'POST', '/auth/forgot-password', { body: { email: owner.email } });
    const second = await eventually(async () => smtp.received.slice(before + 1).find((m) => m.to.includes(owner.email)), 20_000);
    const expired = new RegExp(`/reset-password/([A-Za-z0-9_-]{43})`).exec(textOf(second))?.[1] ?? '';
    await t.database.db.execute(sql`update members set reset_expires_at = now() - interval '1 second' where id = ${owner.accountId}`);
    assert.equal((await t.console(undefined, 'POST', '/auth/reset-password', { body: { token: expired, password: 'brand new password' } })).status, 400);
    assert.equal((await t.console(undefined, 'POST', '/auth/reset-password', { body: { token: 'x'.repeat(43), password: 'brand new password' } })).status, 400);
  });

  test('the operator creates an account with its owner’s name (`create-account --name`)', async () => {
    const email = uniqueEmail('named');
    const created = await t.admin<{ id: string }>('POST', '/accounts', { email, password: PASSWORD, name: 'Olga Owner' });
    assert.equal(created.status, 201, created.text);
    const login = await t.console<{ token: string }>(undefined, 'POST', '/auth/login', { body: { email, password: PASSWORD } });
    assert.equal((await t.console<Profile>(login.body.token, 'GET', '/me/')).body.name, 'Olga Owner');
  });

  test('GET /server/ says e-mail is set up (no credential needed)', async () => {
    const res = await t.console(undefined, 'GET', '/server/');
    assert.deepEqual([res.status, res.body], [200, { emailConfigured: true }]);
  });
});

describe('a server without SMTP_URL says so, and the operator resets passwords', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());
  const resetHashOf = async (memberId: string) =>
    (await queryRows<{ hash: string | null }>(t.database.db, sql`select reset_token_hash as hash from members where id = ${memberId}`))[0]?.hash;

  test('GET /server/: emailConfigured false, to anyone, with or without the slash', async () => {
    const res = await t.console(undefined, 'GET', '/server/');
    assert.deepEqual([res.status, res.body], [200, { emailConfigured: false }]);
    assert.equal((await t.console(undefined, 'GET', '/server')).status, 200);
  });

  test('Forgot password makes no link no one would receive; the operator’s link (POST /admin/v1/password-resets) works once, for an hour', async () => {
    const owner = await t.createConsoleUser();
    const asked = await t.console(undefined, 'POST', '/auth/forgot-password', { body: { email: owner.email } });
    assert.deepEqual([asked.status, asked.body], [202, { success: true }]);
    assert.equal(await resetHashOf(owner.accountId), null);

    const made = await t.admin<{ memberId: string; email: string; resetUrl: string; expiresAt: string }>('POST', '/password-resets', {
      email: owner.email.toUpperCase(),
    });
    assert.equal(made.status, 201, made.text);
    assert.deepEqual(Object.keys(made.body).sort(), ['email', 'expiresAt', 'memberId', 'resetUrl']);
    assert.deepEqual([made.body.memberId, made.body.email], [owner.accountId, owner.email]);
    const token = new RegExp(`^${PUBLIC_URL}/reset-password/([A-Za-z0-9_-]{43})$`).exec(made.body.resetUrl)?.[1];
    assert.ok(token, made.body.resetUrl);
    const minutes = Math.round((Date.parse(made.body.expiresAt) - Date.now()) / 60_000);
    assert.equal(minutes, 60);
    // A member's Forgot password? meanwhile does not replace the operator's link.
    await t.console(undefined, 'POST', '/auth/forgot-password', { body: { email: owner.email } });
    const reset = await t.console<{ token: string }>(undefined, 'POST', '/auth/reset-password', { body: { token, password: 'set by the operator' } });
    assert.equal(reset.status, 200, reset.text);
    assert.equal((await t.console(undefined, 'POST', '/auth/login', { body: { email: owner.email, password: 'set by the operator' } })).status, 200);
    assert.equal((await t.console(undefined, 'POST', '/auth/reset-password', { body: { token, password: 'once more please' } })).status, 400);

    // A newer link replaces an older one.
    const first = await t.admin<{ resetUrl: string }>('POST', '/password-resets', { email: owner.email });
    const second = await t.admin<{ resetUrl: string }>('POST', '/password-resets', { email: owner.email });
    const tokenOf = (url: string) => url.split('/').pop();
    assert.equal((await t.console(undefined, 'POST', '/auth/reset-password', { body: { token: tokenOf(first.body.resetUrl), password: 'older link' } })).status, 400);
    assert.equal((await t.console(undefined, 'POST', '/auth/reset-password', { body: { token: tokenOf(second.body.resetUrl), password: 'newer link' } })).status, 200);
  });

  test('POST /admin/v1/password-resets: 404 for an e-mail of no active member (unknown, or only invited); operator token only; validated', async () => {
    const owner = await t.createConsoleUser();
    const invited = uniqueEmail('invited');
    assert.equal((await t.console(owner.token, 'POST', '/members/invite/', { body: { email: invited, role: 'agent' } })).status, 201);
    for (const email of [uniqueEmail('nobody'), invited]) {
      const res = await t.admin('POST', '/password-resets', { email });
      assert.deepEqual([res.status, res.body], [404, { message: 'Member not found', statusCode: 404 }], email);
    }
    const anonymous = await t.request('POST', '/admin/v1/password-resets', { body: { email: owner.email } });
    assert.equal(anonymous.status, 401);
    const member = await t.request('POST', '/admin/v1/password-resets', { headers: { authorization: `Bearer ${owner.token}` }, body: { email: owner.email } });
    assert.equal(member.status, 401);
    for (const body of [{}, { email: '' }, { email: owner.email, extra: 1 }]) {
      assert.equal((await t.admin('POST', '/password-resets', body)).status, 400, JSON.stringify(body));
    }
    assert.equal(await resetHashOf(owner.accountId), null, 'nothing made by a refused call');
  });
});

describe('alerts: the alert webhook, e-mails and follow-through', () => {
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let receiver: Receiver;
  before(async () => {
    smtp = await startSmtp();
    receiver = await startReceiver();
    t = await startTestApp({ smtpUrl: smtp.url, webhookAllowPrivateNetworks: true, alertEmailDelaySeconds: 1 });
  });
  after(async () => {
    await t.close();
    await receiver.close();
    await smtp.close();
  });

  /** The chat's alert jobs of a kind have run (sending what they were to send: a post is answered before its job ends). */
  async function emailJobsDone(chatId: string, kind = 'alerts.email'): Promise<void> {
    await eventually(async () => {
      const [left] = await queryRows<{ n: number }>(
        t.database.db,
        sql`select count(*)::int as n from jobs where kind = ${kind} and payload->>'chatId' = ${chatId}`,
      );
      return left?.n === 0;
    }, 15_000);
  }

  /** An API channel (no webhook) whose owner's alert webhook is `${receiver.url}/alerts/<tag>`. */
  async function setUp(tag: string, owner?: User, channelFields: Record<string, unknown> = {}) {
    const user = owner ?? (await t.createConsoleUser());
    const alertUrl = `${receiver.url}/alerts/${tag}`;
    const saved = await t.console(user.token, 'PUT', '/account/alerts/', { body: { alertWebhookUrl: alertUrl } });
    assert.equal(saved.status, 200, saved.text);
    const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', { body: { name: 'Shop', ...channelFields } });
    assert.equal(channel.status, 201, channel.text);
    const send = async (externalChatId: string, text: string) => {
      const res = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
        headers: { authorization: user.key },
        body: { channel: 'custom', channelId: channel.body.id, externalChatId, role: 'user', text, senderName: `Customer ${externalChatId}` },
      });
      assert.equal(res.status, 201, res.text);
    };
    const chat = async (externalChatId: string) => {
      const list = await t.console<{ chats: { id: string; chatId: string; paused: boolean; needsHuman: boolean; assignee: { id: string } | null }[] }>(
        user.token,
        'GET',
        '/chat/all-chats/',
        { query: { channelId: channel.body.id } },
      );
      return list.body.chats.find((c) => c.chatId === externalChatId);
    };
    const alerts = () => receiver.requests.filter((r) => r.url === `/alerts/${tag}`).map((r) => JSON.parse(r.body) as Record<string, unknown>);
    /** The customer asks for a person: the chat is handed off; its console id. */
    const handOff = async (externalChatId: string) => {
      await send(externalChatId, 'Can I talk to a real person please?');
      return (await eventually(async () => {
        const found = await chat(externalChatId);
        return found?.needsHuman ? found : undefined;
      }, 15_000)).id;
    };
    return { user, channelId: channel.body.id, send, chat, alerts, handOff };
  }

  test('the alert webhook: GET/PUT /account/alerts/ (admin role, URL guard, per account); every handoff posts `{ text, chat, reason, url, summary }`', async () => {
    const s = await setUp('handoff');
    assert.deepEqual((await t.console(s.user.token, 'GET', '/account/alerts/')).body, { alertWebhookUrl: `${receiver.url}/alerts/handoff` });
    const agent = await addMember(t, s.user.token, 'agent');
    assert.equal((await t.console(agent.token, 'GET', '/account/alerts/')).status, 403);
    assert.equal((await t.console(agent.token, 'PUT', '/account/alerts/', { body: { alertWebhookUrl: null } })).status, 403);
    const bad = await t.console(s.user.token, 'PUT', '/account/alerts/', { body: { alertWebhookUrl: 'ftp://example.com/x' } });
    assert.equal(bad.status, 400, bad.text);
    // Another account sees its own setting only.
    const stranger = await t.createConsoleUser();
    assert.deepEqual((await t.console(stranger.token, 'GET', '/account/alerts/')).body, { alertWebhookUrl: null });

    const chatId = await s.handOff('c1');
    const [posted] = await eventually(async () => (s.alerts().length > 0 ? s.alerts() : undefined), 30_000);
    assert.deepEqual(posted, {
      text: `Chat "Customer c1" (Shop) needs a person: the customer asked for a person. ${PUBLIC_URL}/inbox/${chatId}`,
      chat: { id: chatId, name: 'Customer c1', channelName: 'custom' },
      reason: 'customer_request',
      url: `${PUBLIC_URL}/inbox/${chatId}`,
      summary: [
        'Request: Can I talk to a real person please?',
        'Agent: nothing before the handoff',
        'Reason: the customer asked for a person',
        'Customer: Customer c1 · no e-mail · id c1 · Shop (custom)',
      ].join('\n'),
    });
  });

  test('the alert webhook is tried 3 times; the URL guard refuses private addresses unless allowed', async () => {
    const s = await setUp('retry');
    receiver.respond((request, res) => {
      res.statusCode = request.url === '/alerts/retry' ? 503 : 200;
      res.end('busy');
    });
    try {
      await s.handOff('r1');
      await eventually(async () => s.alerts().length >= 3, 20_000);
      const [job] = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from jobs where kind = 'alerts.webhook' and payload->>'accountId' = ${s.user.accountId}`);
      assert.equal(job?.n, 0, 'the job is over after its third try');
      assert.equal(s.alerts().length, 3);
    } finally {
      receiver.respond((_r, res) => res.end('ok'));
    }
    const guarded = await startTestApp();
    try {
      const owner = await guarded.createConsoleUser();
      const refused = await guarded.console(owner.token, 'PUT', '/account/alerts/', { body: { alertWebhookUrl: `${receiver.url}/x` } });
      assert.equal(refused.status, 400, refused.text);
    } finally {
      await guarded.close();
    }
  });

  test('alert e-mails: after the delay, to members wanting them, only when no one is online; one per chat and member an hour', async () => {
    const s = await setUp('mail');
    const agent = await addMember(t, s.user.token, 'agent', 'Agent Mine');
    const quiet = await addMember(t, s.user.token, 'admin', 'Quiet Admin');
    assert.equal((await t.console(quiet.token, 'PUT', '/me/', { body: { notifications: { email: 'off' } } })).status, 200);
    const start = smtp.received.length;
    const chatId = await s.handOff('m1');
    const mails = await eventually(async () => {
      const got = smtp.received.slice(start);
      return got.length >= 2 ? got : undefined;
    }, 20_000);
    assert.deepEqual(mails.flatMap((m) => m.to).sort(), [agent.email, s.user.email].sort());
    for (const mail of mails) {
      assert.equal(subjectOf(mail), 'Chat "Customer m1" on Shop (custom) needs a person');
      assert.match(textOf(mail), /Customer: Can I talk to a real person please\?/);
      // The body is quoted-printable (the card's `·`).
      const decoded = Buffer.from(textOf(mail).replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8').replaceAll('\r\n', '\n');
      assert.ok(decoded.includes('Summary:\nRequest: Can I talk to a real person please?\nAgent: nothing before the handoff\nReason: the customer asked for a person\nCustomer: Customer m1 · no e-mail · id m1 · Shop (custom)\n'), decoded);
      assert.ok(textOf(mail).includes(`${PUBLIC_URL}/inbox/${chatId}`));
    }
    // The same chat again within the hour: the webhook posts, no second e-mail.
    await t.console(s.user.token, 'POST', `/chat/resume-chat/${chatId}/`);
    await s.handOff('m1');
    await eventually(async () => s.alerts().length >= 2, 30_000);
    await emailJobsDone(chatId);
    assert.equal(smtp.received.slice(start).length, 2);
  });

  test("a channel of a model: the alert webhook and the alert e-mail carry the model's three lines (issue #44)", async () => {
    const fake = await startFakeLlm();
    try {
      const s = await setUp('model-mail', undefined, { agentEngine: { kind: 'openai-compatible', baseUrl: `${fake.url}/v1`, model: 'test-model', timeoutSeconds: 10 } });
      const lines = ['Request: the customer wants a person.', 'Agent: nothing yet.', 'Reason: they asked for a person.'];
      fake.script('/v1/chat/completions', reply.text(lines.join('\n')));
      const start = smtp.received.length;
      const chatId = await s.handOff('mm1');
      const summary = [...lines, 'Customer: Customer mm1 · no e-mail · id mm1 · Shop (custom)'].join('\n');
      const [posted] = await eventually(async () => (s.alerts().length > 0 ? s.alerts() : undefined), 15_000);
      assert.equal(posted?.summary, summary);
      const [mail] = await eventually(async () => {
        const got = smtp.received.slice(start).filter((m) => subjectOf(m) === 'Chat "Customer mm1" on Shop (custom) needs a person');
        return got.length > 0 ? got : undefined;
      }, 20_000);
      const decoded = Buffer.from(textOf(mail as Mail).replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8').replaceAll('\r\n', '\n');
      assert.ok(decoded.includes(`Summary:\n${summary}\n`), decoded);
      assert.ok(decoded.includes(`${PUBLIC_URL}/inbox/${chatId}`));
    } finally {
      await fake.close();
    }
  });

  test('alert e-mails wait for no one while a member has the web account open (a live stream), on any process', async () => {
    const s = await setUp('online');
    // The stream is open on another (API-only) process of the same database; the e-mail job runs on this one.
    const other = await startTestApp({ database: t.database, workers: false });
    const live = new AbortController();
    const start = smtp.received.length;
    try {
      const stream = await fetch(`${other.url}/console/v1/live`, { headers: { authorization: `Bearer ${s.user.token}` }, signal: live.signal });
      assert.equal(stream.status, 200);
      await eventually(async () => (await queryRows(t.database.db, sql`select 1 from member_presence where member_id = ${s.user.accountId}`)).length > 0, 30_000);
      await emailJobsDone(await s.handOff('o1'));
      assert.equal(smtp.received.slice(start).filter((m) => m.to.includes(s.user.email)).length, 0);
    } finally {
      live.abort();
      await other.close();
    }
    // Closed: the member is offline at once.
    await eventually(async () => {
      const rows = await queryRows(t.database.db, sql`select 1 from member_presence where member_id = ${s.user.accountId}`);
      return rows.length === 0;
    }, 30_000);
  });

  test('follow-through: a customer message in a paused unassigned chat flags it again and alerts, with no second chat_handed_off', async () => {
    const s = await setUp('follow');
    const chatId = await s.handOff('f1');
    await eventually(async () => s.alerts().length === 1, 30_000);
    const reply = await t.console(s.user.token, 'POST', `/chat/messages/${chatId}/`, { body: { text: 'Hello, I am here.' } });
    assert.equal(reply.status, 201, reply.text);
    assert.deepEqual(await s.chat('f1').then((c) => [c?.paused, c?.needsHuman]), [true, false]);

    await s.send('f1', 'Are you still there?');
    await eventually(async () => (await s.chat('f1'))?.needsHuman === true, 30_000);
    const [again] = await eventually(async () => (s.alerts().length >= 2 ? s.alerts().slice(1) : undefined), 30_000);
    assert.equal(again?.reason, 'customer_message');
    const handedOff = await queryRows(t.database.db, sql`select 1 from events where chat_id = ${chatId} and kind = 'chat_handed_off'`);
    assert.equal(handedOff.length, 1);
    // Already flagged: a further message alerts no one again.
    await s.send('f1', 'Hello?');
    await emailJobsDone(chatId, 'alerts.webhook');
    assert.equal(s.alerts().length, 2);
  });

  test('follow-through: a customer message in a paused chat with an assignee e-mails that member (mine) while offline, and flags nothing', async () => {
    const s = await setUp('assigned');
    const agent = await addMember(t, s.user.token, 'agent', 'Assigned Agent');
    const chatId = await s.handOff('a1');
    await eventually(async () => s.alerts().length === 1, 30_000);
    assert.equal((await t.console(agent.token, 'POST', `/chat/assign/${chatId}/`, { body: { memberId: agent.id } })).status, 200);
    assert.equal((await t.console(agent.token, 'POST', `/chat/messages/${chatId}/`, { body: { text: 'On it.' } })).status, 201);
    const start = smtp.received.length;
    await s.send('a1', 'Thanks, one more question');
    const mail = await eventually(
      async () => smtp.received.slice(start).find((m) => m.to.includes(agent.email) && subjectOf(m)?.startsWith('New message')),
      20_000,
    );
    assert.equal(subjectOf(mail), 'New message in chat "Customer a1" on Shop (custom)');
    assert.match(textOf(mail), /Customer: Thanks, one more question/);
    assert.equal((await s.chat('a1'))?.needsHuman, false);
    assert.equal(s.alerts().length, 1);
  });

  test('mine: a customer message in a chat assigned to a member, not paused and answered by the agent, e-mails the assignee while offline, once an hour; never while online', async () => {
    // The agent answers every message (its fallbacks never hand the chat off).
    const s = await setUp('mine', undefined, { handoffAfterFallbacks: 0 });
    const offline = await addMember(t, s.user.token, 'agent', 'Offline Agent');
    const online = await addMember(t, s.user.token, 'agent', 'Online Agent');
    /** A chat the agent answers, assigned to `member`: its console id. */
    const assigned = async (externalChatId: string, member: { id: string }) => {
      await s.send(externalChatId, 'Hello there');
      const chat = await eventually(async () => s.chat(externalChatId), 30_000);
      assert.equal((await t.console(s.user.token, 'POST', `/chat/assign/${chat.id}/`, { body: { memberId: member.id } })).status, 200);
      return chat.id;
    };
    /** The agent's replies in the chat (the agent answers: the chat is not paused). */
    const agentReplies = async (chatId: string) => {
      const history = await t.console<{ messages: { kind: string; fromAgent?: boolean }[] }>(s.user.token, 'GET', `/chat/messages/${chatId}/`);
      return history.body.messages.filter((m) => m.kind === 'message' && m.fromAgent === true).length;
    };
    const mineTo = (email: string) => smtp.received.filter((m) => m.to.includes(email) && subjectOf(m)?.startsWith('New message'));

    // Offline (no live stream): one e-mail after the delay.
    const chatId = await assigned('mo1', offline);
    const repliesBefore = await eventually(async () => ((await agentReplies(chatId)) >= 1 ? agentReplies(chatId) : undefined), 30_000);
    await s.send('mo1', 'When do you open tomorrow?');
    const mail = await eventually(async () => mineTo(offline.email)[0], 20_000);
    assert.equal(subjectOf(mail), 'New message in chat "Customer mo1" on Shop (custom)');
    assert.match(textOf(mail), /Customer: When do you open tomorrow\?/);
    assert.ok(textOf(mail).includes(`${PUBLIC_URL}/inbox/${chatId}`));
    assert.deepEqual(await s.chat('mo1').then((c) => [c?.paused, c?.needsHuman, c?.assignee?.id]), [false, false, offline.id]);
    await eventually(async () => (await agentReplies(chatId)) > repliesBefore, 30_000);
    // A second message within the hour: no second e-mail.
    await s.send('mo1', 'And on Sunday?');
    await emailJobsDone(chatId);
    assert.equal(mineTo(offline.email).length, 1);

    // Online (a live stream open): no e-mail.
    const live = new AbortController();
    try {
      const stream = await fetch(`${t.url}/console/v1/live`, { headers: { authorization: `Bearer ${online.token}` }, signal: live.signal });
      assert.equal(stream.status, 200);
      await eventually(async () => (await queryRows(t.database.db, sql`select 1 from member_presence where member_id = ${online.id}`)).length > 0, 30_000);
      const other = await assigned('mo2', online);
      await s.send('mo2', 'When do you open tomorrow?');
      await emailJobsDone(other);
      await eventually(async () => (await agentReplies(other)) >= 2, 30_000);
      assert.equal(mineTo(online.email).length, 0);
    } finally {
      live.abort();
    }
    assert.equal(s.alerts().length, 0, 'no chat needed a person');
  });

  test('removing a member unassigns its chats; the paused ones need a person and alert; its session state says why it ended', async () => {
    const s = await setUp('removed');
    const agent = await addMember(t, s.user.token, 'agent', 'Leaving Agent');
    const cookie = await sessionOf(t, agent.email);
    const chatId = await s.handOff('x1');
    await eventually(async () => s.alerts().length === 1, 30_000);
    await t.console(agent.token, 'POST', `/chat/assign/${chatId}/`, { body: { memberId: agent.id } });
    await t.console(agent.token, 'POST', `/chat/messages/${chatId}/`, { body: { text: 'Looking.' } });
    await s.send('x2', 'An unpaused chat');
    const other = await eventually(async () => s.chat('x2'), 30_000);
    await t.console(agent.token, 'POST', `/chat/assign/${other.id}/`, { body: { memberId: agent.id } });
    assert.deepEqual(await s.chat('x1').then((c) => [c?.assignee?.id, c?.needsHuman]), [agent.id, false]);

    const removed = await t.console(s.user.token, 'DELETE', `/members/${agent.id}/`);
    assert.equal(removed.status, 200, removed.text);
    assert.deepEqual(await s.chat('x1').then((c) => [c?.assignee, c?.paused, c?.needsHuman]), [null, true, true]);
    assert.deepEqual(await s.chat('x2').then((c) => [c?.assignee, c?.needsHuman]), [null, false]);
    const [alert] = await eventually(async () => (s.alerts().length >= 2 ? s.alerts().slice(1) : undefined), 30_000);
    assert.equal(alert?.reason, 'member_removed');
    const state = await t.request('GET', '/console/v1/auth/session/state', { headers: { cookie } });
    assert.deepEqual(state.body, { signedIn: false, ended: 'removed' });
    // A signed-out visitor, or a bad cookie, gets no reason.
    assert.deepEqual((await t.request('GET', '/console/v1/auth/session/state')).body, { signedIn: false });
  });
});
