// Day two (issue #42, items 7, 10, 11) in a real browser, as a new shop owner lives it with no model and no mail
// server: the owner the operator made without a name is asked for one first; Settings sets the quiet time that ends
// conversations and the alert webhook (an agent is not offered the page); Reports says what has happened so far in
// open conversations and when they end; Overview counts replies as replies, in correct plurals (Russian too), with the
// clarifying questions beside the answers; `Forgot password?` says to ask the operator, whose link works; Profile says
// e-mail is not set up; the Team page shows a pending invitation's link again, first steps say *invited* until the
// teammate joins; the saved replies' short code says its format in words. (The widget's CSAT moment is
// csat-widget-browser.test.ts; the live refused-sites list is web-day-one.test.ts.)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { browserTests, launchBrowser, signIn, withScreenshotOnFailure, type TestBrowser } from './support/browser.ts';
import { eventually } from './support/events.ts';
import { PASSWORD, startTestApp, type TestApp } from './support/harness.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

const WAIT = { timeout: 20_000 };
const QUESTION = 'Do you ship abroad?';
const ANSWER = 'Yes, to every country of the EU.';

let t: TestApp;
let browser: TestBrowser;
let receiver: Receiver;
let owner: Awaited<ReturnType<TestApp['createConsoleUser']>>;
let channelId = '';
const stamp = `${process.pid}-${Date.now()}`;
const teammate = { email: `tess-${stamp}@example.com`, password: 'tess own password' };

/** Collects what a page writes to its console as errors, and the scripts' uncaught exceptions. */
function consoleErrorsOf(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`${page.url()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`${page.url()}: ${error.message}`));
  return errors;
}

/** A customer message through the public API; the chat's console id once the agent has replied. */
async function customerSays(externalChatId: string, senderName: string, text: string): Promise<string> {
  const res = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
    headers: { authorization: owner.key },
    body: { channel: 'custom', channelId, externalChatId, role: 'user', text, senderName },
  });
  assert.equal(res.status, 201, res.text);
  return eventually(async () => {
    const list = await t.console<{ chats: { id: string; chatId: string }[] }>(owner.token, 'GET', '/chat/all-chats/');
    const chat = list.body.chats.find((c) => c.chatId === externalChatId);
    if (!chat) return undefined;
    const messages = await t.console<{ messages: { role: string }[] }>(owner.token, 'GET', `/chat/messages/${chat.id}/`);
    return messages.body.messages.some((m) => m.role === 'assistant') ? chat.id : undefined;
  }, 20_000);
}

describe('day two for a new shop owner in the web account (no model, no mail server)', browserTests, () => {
  before(async () => {
    t = await startTestApp({ webhookAllowPrivateNetworks: true });
    browser = await launchBrowser();
    receiver = await startReceiver();
    owner = await t.createConsoleUser(); // made without a name: the operator's create-account with no --name
    const base = await t.console<{ id: string }>(owner.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ', language: 'en' } });
    await t.console(owner.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, { body: { question: QUESTION, answer: ANSWER } });
    const channel = await t.console<{ id: string }>(owner.token, 'POST', '/channel/custom/connect/', {
      body: { name: 'Shop', knowledgeBaseId: base.body.id, clarifyChoices: 0 },
    });
    assert.equal(channel.status, 201, channel.text);
    channelId = channel.body.id;
    // Two open conversations: one the agent answered, one handed to the team.
    await customerSays('ann', 'Ann Answered', QUESTION);
    await customerSays('pete', 'Pete Person', 'Can I talk to a real person please?');
  });
  after(async () => {
    await browser?.close();
    await receiver?.close();
    await t?.close();
  });

  test('the owner with no name is asked for one before anything else; then Settings sets the quiet time and the alert webhook', async (ctx) => {
    const { page } = await browser.newPage();
    const errors = consoleErrorsOf(page);
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, `${t.url}/overview`, owner.email, PASSWORD);
      const ask = page.getByRole('form', { name: 'Your name', exact: true });
      await ask.waitFor(WAIT);
      // First in the page, above the page's own content.
      const first = await page.getByRole('main').locator('> *').first().getAttribute('aria-label');
      assert.equal(first, 'Your name');
      await ask.getByRole('textbox', { name: 'Your name', exact: true }).fill('Dana Owner');
      await ask.getByRole('button', { name: 'Save name', exact: true }).click();
      await ask.waitFor({ state: 'detached', ...WAIT });
      await page.getByRole('banner').getByText('Dana Owner').waitFor(WAIT);
      assert.equal((await t.console<{ name: string }>(owner.token, 'GET', '/me/')).body.name, 'Dana Owner');
      await page.reload();
      await page.getByRole('heading', { name: 'Overview', exact: true }).waitFor(WAIT);
      assert.equal(await page.getByRole('form', { name: 'Your name', exact: true }).count(), 0);

      // Settings, in sections.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).click();
      await page.getByRole('heading', { name: 'Settings', exact: true }).waitFor(WAIT);
      const conversations = page.getByRole('region', { name: 'Conversations', exact: true });
      const quiet = conversations.getByRole('spinbutton', { name: 'Quiet time (minutes)', exact: true });
      await eventually(async () => (await quiet.inputValue()) === '1440', 20_000);
      await quiet.fill('90');
      const retention = conversations.getByRole('spinbutton', { name: 'Keep ended conversations (days)', exact: true });
      assert.equal(await retention.inputValue(), '');
      await retention.fill('30');
      await conversations.getByRole('button', { name: 'Save conversation settings', exact: true }).click();
      await conversations
        .getByRole('status')
        .getByText('Saved: a conversation now ends after 1 hour 30 minutes without a customer message. Conversations ended more than 30 days ago are deleted.')
        .waitFor(WAIT);
      assert.deepEqual((await t.console(owner.token, 'GET', '/account/settings/')).body, { resolutionQuietMinutes: 90, retentionDays: 30, requireTwoFactor: false });
      // Emptied: kept again.
      await retention.fill('');
      await conversations.getByRole('button', { name: 'Save conversation settings', exact: true }).click();
      await conversations.getByRole('status').getByText('Ended conversations are kept.', { exact: false }).waitFor(WAIT);
      assert.deepEqual((await t.console(owner.token, 'GET', '/account/settings/')).body, { resolutionQuietMinutes: 90, retentionDays: null, requireTwoFactor: false });
      // Out of range: the browser says so before any request.
      await quiet.fill('20000');
      assert.equal(await quiet.evaluate((input) => (input as unknown as { validity: { valid: boolean } }).validity.valid), false);

      const alerts = page.getByRole('region', { name: 'Alerts', exact: true });
      const webhook = alerts.getByRole('textbox', { name: 'Alert webhook URL', exact: true });
      await webhook.fill(`${receiver.url}/alerts`);
      await alerts.getByRole('button', { name: 'Save alert settings', exact: true }).click();
      await alerts.getByRole('status').getByText('Saved: every handoff is posted to this webhook.').waitFor(WAIT);
      assert.deepEqual((await t.console(owner.token, 'GET', '/account/alerts/')).body, { alertWebhookUrl: `${receiver.url}/alerts` });
      // The server's own sentence for a URL it refuses.
      await webhook.fill('ftp://files.example.com/x');
      await alerts.getByRole('button', { name: 'Save alert settings', exact: true }).click();
      await alerts.getByRole('alert').waitFor(WAIT);
      await webhook.fill('');
      await alerts.getByRole('button', { name: 'Save alert settings', exact: true }).click();
      await alerts.getByRole('status').getByText('Saved: no alert webhook.').waitFor(WAIT);
      assert.deepEqual((await t.console(owner.token, 'GET', '/account/alerts/')).body, { alertWebhookUrl: null });
      // Kept on a new visit.
      await page.reload();
      await eventually(async () => (await quiet.inputValue()) === '90', 20_000);
      assert.deepEqual(errors.filter((line) => !line.includes('400')), []);
    });
  });

  test('Reports say what has happened so far in each open conversation and when quiet time ends it; Overview counts replies, in plurals', async (ctx) => {
    const { page } = await browser.newPage();
    const errors = consoleErrorsOf(page);
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, `${t.url}/reports`, owner.email, PASSWORD);
      const open = page.getByRole('link', { name: 'Still open: 2', exact: true });
      await open.waitFor(WAIT);
      // Day one: nothing has ended, and the page says what ends a conversation (the quiet time set in Settings).
      await page.getByText('A conversation ends when its task is marked done, or after 1 hour 30 minutes without a customer message.').waitFor(WAIT);
      await page.getByRole('link', { name: 'Answered after a choice: 0', exact: true }).getByText('0 agent answers').waitFor(WAIT);
      await open.click();
      const ledger = page.getByRole('table', { name: 'Conversations', exact: true });
      const row = (name: string) => ledger.getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) });
      await row('Ann Answered').getByText('Still open: answered by the agent').waitFor(WAIT);
      await row('Pete Person').getByText('Still open: waiting for the team').waitFor(WAIT);
      const ends = (await row('Ann Answered').getByText(/^ends /).innerText()).trim();
      assert.match(ends, /^ends .+ unless the customer writes$/);
      // A member replies to Pete: now the team waits for the customer.
      const pete = (await t.console<{ chats: { id: string; chatId: string }[] }>(owner.token, 'GET', '/chat/all-chats/')).body.chats.find((c) => c.chatId === 'pete');
      assert.equal((await t.console(owner.token, 'POST', `/chat/messages/${pete?.id}/`, { body: { text: 'Hello Pete, Dana here.' } })).status, 201);
      await page.reload();
      await row('Pete Person').getByText('Still open: waiting for the customer').waitFor(WAIT);

      // Overview: replies counted as replies, each with its plural; new chats are chats.
      await page.getByRole('link', { name: 'Overview', exact: true }).click();
      await page.getByRole('img', { name: 'New chats per day', exact: true }).waitFor(WAIT);
      await page.getByText('1 direct answer · 0 answers after a choice · 0 clarifying questions · 0 fallbacks · 1 handoff', { exact: true }).waitFor(WAIT);
      const perDay = page.getByRole('table', { name: 'Agent replies per day' });
      await perDay.getByRole('columnheader', { name: 'Clarifying questions', exact: true }).waitFor(WAIT);
      assert.deepEqual(await perDay.getByRole('row').nth(1).getByRole('cell').allInnerTexts(), ['1', '0', '0', '0', '1']);
      // Russian forms: 1 прямой ответ, 0 … ответов, 1 передача.
      await page.getByRole('combobox', { name: 'Language', exact: true }).first().selectOption('ru');
      await page.getByText('1 прямой ответ · 0 ответов после выбора · 0 уточняющих вопросов · 0 запасных ответов · 1 передача команде', { exact: true }).waitFor(WAIT);
      await page.getByRole('combobox', { name: 'Language', exact: true }).first().selectOption('en');
      assert.deepEqual(errors, []);
    });
  });

  test('no mail server: Forgot password? says to ask the operator, whose one-time link works; Profile says e-mail is not set up', async (ctx) => {
    const { page } = await browser.newPage();
    const errors = consoleErrorsOf(page);
    await withScreenshotOnFailure(ctx, page, async () => {
      await page.goto(`${t.url}/login`);
      await page.getByRole('link', { name: 'Forgot password?', exact: true }).click();
      const note = page.getByRole('note', { name: 'No e-mail on this server', exact: true });
      await note.waitFor(WAIT);
      assert.match(await note.innerText(), /sends no e-mail/);
      await page.getByText('npm run -s admin -- reset-password --email <your e-mail>', { exact: true }).waitFor(WAIT);
      // No form that would promise an e-mail.
      assert.equal(await page.getByRole('button', { name: 'Send reset link', exact: true }).count(), 0);

      // The operator's link (what `reset-password --email` prints) sets a new password and signs in.
      const made = await t.admin<{ resetUrl: string }>('POST', '/password-resets', { email: owner.email });
      assert.equal(made.status, 201, made.text);
      await page.goto(`${t.url}${new URL(made.body.resetUrl).pathname}`);
      await page.getByRole('textbox', { name: 'New password', exact: true }).fill('a brand new password');
      await page.getByRole('button', { name: 'Set password', exact: true }).click();
      await page.getByRole('link', { name: 'Inbox', exact: true }).waitFor(WAIT);

      await page.getByRole('link', { name: 'Profile', exact: true }).click();
      const noEmail = page.getByRole('note', { name: 'E-mail not set up', exact: true });
      await noEmail.waitFor(WAIT);
      assert.match(await noEmail.innerText(), /no alert e-mails are sent/);
      const describedBy = await page.getByRole('combobox', { name: 'E-mail alerts', exact: true }).getAttribute('aria-describedby');
      assert.equal(describedBy, await noEmail.getAttribute('id'));
      owner.token = (await t.console<{ token: string }>(undefined, 'POST', '/auth/login', { body: { email: owner.email, password: 'a brand new password' } })).body.token;
      assert.deepEqual(errors, []);
    });
  });

  test('Team shows a pending invitation’s link again; first steps say invited until the teammate joins; the short code says its format', async (ctx) => {
    const { page } = await browser.newPage();
    const errors = consoleErrorsOf(page);
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, `${t.url}/team`, owner.email, 'a brand new password');
      await page.getByRole('button', { name: 'Invite member', exact: true }).click(WAIT);
      await page.getByRole('textbox', { name: 'Email', exact: true }).fill(teammate.email);
      await page.getByRole('button', { name: 'Send invitation', exact: true }).click();
      const sent = (await page.getByLabel('Invitation link', { exact: true }).textContent(WAIT)) ?? '';
      assert.match(sent, /\/invite\/[\w-]{43}$/);

      // Another visit: the link is shown and copied again, the same one.
      await page.reload();
      await page.getByRole('button', { name: `Show invitation link for ${teammate.email}`, exact: true }).click(WAIT);
      const again = page.getByLabel(`Invitation link for ${teammate.email}`, { exact: true });
      assert.equal(await again.textContent(WAIT), sent);
      await page.getByRole('button', { name: `Copy the link for ${teammate.email}`, exact: true }).waitFor(WAIT);
      await page.getByRole('button', { name: `Renew invitation for ${teammate.email}`, exact: true }).waitFor(WAIT);

      // First steps: invited, not done, until the teammate accepts.
      await page.getByRole('link', { name: 'Overview', exact: true }).click();
      const steps = page.getByRole('region', { name: 'First steps', exact: true });
      await steps.getByLabel('Invite a teammate: invited', { exact: true }).waitFor(WAIT);
      const token = new URL(sent).pathname.split('/').pop();
      const accepted = await t.console(undefined, 'POST', '/auth/accept-invite', { body: { token, name: 'Tess Teammate', password: teammate.password } });
      assert.equal(accepted.status, 200, accepted.text);
      await page.reload();
      await page.getByRole('region', { name: 'First steps', exact: true }).getByLabel('Invite a teammate: done', { exact: true }).waitFor(WAIT);

      // The short code's format, in words, beside the field (and as the browser's hint).
      await page.goto(`${t.url}/saved-replies`);
      const shortCode = page.getByRole('textbox', { name: 'Short code', exact: true });
      await shortCode.waitFor(WAIT);
      const rule = 'Letters, digits, _ and -, no spaces, up to 50 characters; you type it after / in a reply.';
      const describedBy = (await shortCode.getAttribute('aria-describedby')) ?? '';
      assert.equal(await page.locator(`[id="${describedBy}"]`).innerText(), rule);
      assert.equal(await shortCode.getAttribute('title'), rule);
      assert.deepEqual(errors, []);
    });
  });

  test('the agent is not offered Settings: no link, and the page says it is for admins', async (ctx) => {
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, `${t.url}/overview`, teammate.email, teammate.password);
      const nav = page.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'Inbox', exact: true }).waitFor(WAIT);
      assert.equal(await nav.getByRole('link', { name: 'Settings', exact: true }).count(), 0);
      // Named at the invitation: not asked for a name.
      assert.equal(await page.getByRole('form', { name: 'Your name', exact: true }).count(), 0);
      await page.goto(`${t.url}/settings`);
      await page.getByRole('note', { name: 'Admin only' }).waitFor(WAIT);
      assert.equal(await page.getByRole('spinbutton', { name: 'Quiet time (minutes)', exact: true }).count(), 0);
    });
  });
});
