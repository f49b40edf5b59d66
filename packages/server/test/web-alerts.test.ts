// Alerts in a real browser (issue #33, "done when"): the count of chats needing a person in the tab title and beside
// `Inbox` on any page; browser notifications and the chime after `Enable notifications` (the browser's Notification
// recorded by a stand-in, since a headless browser shows none) for a handoff, a chat assigned to me and a customer
// message in my chat; a removed member's open page signing out at once with the sentence saying why; the Profile
// page; and a forgotten password reset from the login page's link to the e-mailed page (a local SMTP server gets it).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { SMTPServer } from 'smtp-server';
import { browserTests, launchBrowser, signIn, withScreenshotOnFailure, type TestBrowser } from './support/browser.ts';
import { eventually } from './support/events.ts';
import { PASSWORD, startTestApp, type TestApp } from './support/harness.ts';

const WAIT = 20_000;

let t: TestApp;
let browser: TestBrowser;
let user: Awaited<ReturnType<TestApp['createConsoleUser']>>;
let channelId: string;
const stamp = `${process.pid}-${Date.now()}`;
/** What the local SMTP server received, as raw messages. */
const mails: string[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  onData(stream, _session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      mails.push(Buffer.concat(chunks).toString('utf8'));
      callback();
    });
  },
});

async function customerSays(externalChatId: string, text: string, senderName: string): Promise<void> {
  const res = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
    headers: { authorization: user.key },
    body: { channel: 'custom', channelId, externalChatId, role: 'user', text, senderName },
  });
  assert.equal(res.status, 201, res.text);
}

async function chatIdOf(externalChatId: string): Promise<string> {
  return eventually(async () => {
    const list = await t.console<{ chats: { id: string; chatId: string }[] }>(user.token, 'GET', '/chat/all-chats/', { query: { channelId } });
    return list.body.chats.find((c) => c.chatId === externalChatId)?.id;
  }, WAIT);
}

/** The browser's Notification and AudioContext, recorded: a headless browser shows and plays nothing. */
const RECORDER = `
  window.__notes = [];
  window.__chimes = 0;
  class RecordedNotification {
    static permission = 'default';
    static async requestPermission() { RecordedNotification.permission = 'granted'; return 'granted'; }
    constructor(title, options) { window.__notes.push({ title, body: options && options.body }); }
    close() {}
  }
  window.Notification = RecordedNotification;
  const createOscillator = AudioContext.prototype.createOscillator;
  AudioContext.prototype.createOscillator = function () { window.__chimes += 1; return createOscillator.call(this); };
`;

async function notes(page: Page): Promise<{ title: string; body: string }[]> {
  return JSON.parse(String(await page.evaluate('JSON.stringify(window.__notes)'))) as { title: string; body: string }[];
}

describe('alerts in the web account', browserTests, () => {
  before(async () => {
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    t = await startTestApp({ smtpUrl: `smtp://127.0.0.1:${(smtp.server.address() as { port: number }).port}` });
    browser = await launchBrowser();
    user = await t.createConsoleUser();
    // Fallbacks never hand over here: only the customers who ask for a person do.
    const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
      body: { name: 'Support', handoffAfterFallbacks: 0 },
    });
    assert.equal(channel.status, 201, channel.text);
    channelId = channel.body.id;
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  test('the tab title and a badge beside Inbox count the chats needing a person, live on any page; notifications and a chime follow', async (ctx) => {
    const { context, page } = await browser.newPage();
    await context.addInitScript(RECORDER);
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, `${t.url}/overview`, user.email, PASSWORD);
      await page.getByRole('link', { name: 'Inbox', exact: true }).waitFor({ timeout: WAIT });
      assert.equal(await page.title(), 'Parley');

      // A handoff while on the Overview: the title and the badge, the Inbox link's name unchanged.
      await customerSays('title-1', 'I want to talk to a human', 'Hugo Human');
      await eventually(async () => (await page.title()) === '(1) Parley', WAIT);
      await page.getByRole('status', { name: '1 chats need a person', exact: true }).waitFor({ timeout: WAIT });
      await page.getByRole('link', { name: 'Inbox', exact: true }).click();

      // Notifications: asked on the Inbox, then a handoff, an assignment and a customer message in my chat.
      await page.getByRole('button', { name: 'Enable notifications', exact: true }).click({ timeout: WAIT });
      await page.getByText('Notifications are on').waitFor({ timeout: WAIT });
      await customerSays('title-2', 'Can I talk to a real person please?', 'Nora Notified');
      await eventually(async () => (await page.title()) === '(2) Parley', WAIT);
      await eventually(async () => (await notes(page)).some((n) => n.title === 'A chat needs a person' && n.body === 'Nora Notified'), WAIT);
      assert.ok(Number(await page.evaluate('window.__chimes')) > 0, 'a chime played');

      await customerSays('mine-1', 'Hello', 'Mia Mine');
      const mine = await chatIdOf('mine-1');
      const assigned = await t.console(user.token, 'POST', `/chat/assign/${mine}/`, { body: { memberId: user.accountId } });
      assert.equal(assigned.status, 200, assigned.text);
      await eventually(async () => (await notes(page)).some((n) => n.title === 'A chat was assigned to you' && n.body === 'Mia Mine'), WAIT);
      await customerSays('mine-1', 'Are you there?', 'Mia Mine');
      await eventually(async () => (await notes(page)).some((n) => n.title === 'New message in your chat' && n.body === 'Mia Mine'), WAIT);

      // Taken care of: the count goes down.
      const first = await chatIdOf('title-1');
      assert.equal((await t.console(user.token, 'POST', `/chat/messages/${first}/`, { body: { text: 'Here I am.' } })).status, 201);
      await eventually(async () => (await page.title()) === '(1) Parley', WAIT);
    });
  });

  test('a removed member’s open page signs out at once, saying why', async (ctx) => {
    const email = `gone-${stamp}@example.com`;
    const invite = await t.console<{ id: string; inviteUrl: string }>(user.token, 'POST', '/members/invite/', { body: { email, role: 'agent' } });
    assert.equal(invite.status, 201, invite.text);
    const token = new URL(invite.body.inviteUrl).pathname.split('/').pop() ?? '';
    assert.equal((await t.console(undefined, 'POST', '/auth/accept-invite', { body: { token, name: 'Gone Agent', password: PASSWORD } })).status, 200);
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, `${t.url}/channels`, email, PASSWORD);
      await page.getByRole('link', { name: 'Inbox', exact: true }).waitFor({ timeout: WAIT });
      assert.equal((await t.console(user.token, 'DELETE', `/members/${invite.body.id}/`)).status, 200);
      // No click: the page itself signs out.
      await page.getByText('Your access to this account was removed', { exact: true }).waitFor({ timeout: WAIT });
      await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor({ timeout: WAIT });
    });
  });

  test('Profile: the member changes their name, e-mail alerts and password', async (ctx) => {
    const owner = await t.createConsoleUser();
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, `${t.url}/overview`, owner.email, PASSWORD);
      await page.getByRole('link', { name: 'Profile', exact: true }).click({ timeout: WAIT });
      const name = page.getByRole('textbox', { name: 'Name', exact: true });
      await eventually(async () => (await name.inputValue()) === owner.email, WAIT);
      await name.fill('Paula Profile');
      await page.getByRole('combobox', { name: 'E-mail alerts', exact: true }).selectOption('off');
      await page.getByRole('button', { name: 'Save profile', exact: true }).click();
      await page.getByText('Profile saved.').waitFor({ timeout: WAIT });
      await page.getByText('Paula Profile ·').waitFor({ timeout: WAIT });
      const me = await t.console<{ name: string; notifications: { email: string } }>(owner.token, 'GET', '/me/');
      assert.deepEqual([me.body.name, me.body.notifications.email], ['Paula Profile', 'off']);

      await page.getByRole('textbox', { name: 'Current password', exact: true }).fill('not the password');
      await page.getByRole('textbox', { name: 'New password', exact: true }).fill('a brand new password');
      await page.getByRole('button', { name: 'Change password', exact: true }).click();
      await page.getByText('Wrong password').waitFor({ timeout: WAIT });
      await page.getByRole('textbox', { name: 'Current password', exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Change password', exact: true }).click();
      await page.getByText('Password changed. Your other sessions were signed out.').waitFor({ timeout: WAIT });
      // This page stays signed in; the other token is over.
      await page.getByRole('link', { name: 'Inbox', exact: true }).click();
      await page.getByRole('list', { name: 'Chats', exact: true }).waitFor({ timeout: WAIT });
      assert.equal((await t.console(owner.token, 'GET', '/me/')).status, 401);
    });
  });

  test('Forgot password? on the login page, then the e-mailed link’s page signs the member in with the new password', async (ctx) => {
    const owner = await t.createConsoleUser();
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await page.goto(`${t.url}/overview`);
      await page.getByRole('link', { name: 'Forgot password?', exact: true }).click({ timeout: WAIT });
      await page.getByRole('textbox', { name: 'Email', exact: true }).fill(owner.email);
      await page.getByRole('button', { name: 'Send reset link', exact: true }).click();
      await page.getByText('a link to choose a new password is on its way', { exact: false }).waitFor({ timeout: WAIT });
      // The e-mail's link (quoted-printable soft breaks undone).
      const path = await eventually(
        async () => mails.map((mail) => /\/reset-password\/[\w-]{43}/.exec(mail.replace(/=\r?\n/g, ''))?.[0]).find(Boolean),
        WAIT,
      );
      await page.goto(`${t.url}${path}`);
      await page.getByRole('textbox', { name: 'New password', exact: true }).fill('reset in the browser');
      await page.getByRole('button', { name: 'Set password', exact: true }).click();
      await page.getByRole('list', { name: 'Chats', exact: true }).waitFor({ timeout: WAIT });
      const login = await t.console(undefined, 'POST', '/auth/login', { body: { email: owner.email, password: 'reset in the browser' } });
      assert.equal(login.status, 200, login.text);
    });
  });
});
