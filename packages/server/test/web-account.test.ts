// The web account in a real browser (issue #13 journeys): sign in (and a wrong password), the Russian UI,
// connecting an API channel and its webhook test against a local receiver. Accessible names from DESIGN.md.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { launchBrowser, withScreenshotOnFailure, type TestBrowser } from './support/browser.ts';
import { eventually } from './support/events.ts';
import { PASSWORD, startTestApp, type TestApp } from './support/harness.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

const WAIT = 20_000;

let t: TestApp;
let browser: TestBrowser;
let receiver: Receiver;
before(async () => {
  t = await startTestApp({ webhookAllowPrivateNetworks: true });
  browser = await launchBrowser();
  receiver = await startReceiver();
});
after(async () => {
  await browser?.close();
  await receiver?.close();
  await t?.close();
});

async function signIn(page: Page, email: string, password = PASSWORD): Promise<void> {
  await page.goto(`${t.url}/`);
  await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

describe('sign in', () => {
  test('a wrong password shows an error; the right one opens the account, which survives a reload; sign out', async (ctx) => {
    const user = await t.createConsoleUser();
    const { page, context } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, user.email, 'not the password');
      await page.getByRole('alert').filter({ hasText: 'Invalid e-mail or password' }).waitFor({ timeout: WAIT });

      await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      const inbox = page.getByRole('link', { name: 'Inbox', exact: true });
      await inbox.waitFor({ timeout: WAIT });
      for (const name of ['Channels', 'Knowledge bases', 'Deliveries']) {
        assert.equal(await page.getByRole('link', { name, exact: true }).count(), 1, name);
      }

      // The session is an HttpOnly cookie: scripts cannot read it, and nothing is kept in storage.
      const cookies = await context.cookies();
      const session = cookies.find((cookie) => cookie.name === 'parley_session');
      assert.ok(session, 'session cookie set');
      assert.equal(session.httpOnly, true);
      assert.equal(session.sameSite, 'Strict');
      assert.equal(session.path, '/console/v1');
      assert.equal(await page.evaluate('document.cookie'), '');
      const stored = String(await page.evaluate('JSON.stringify({ ...localStorage, ...sessionStorage })'));
      assert.ok(!stored.includes(session.value), 'no token in web storage');

      await page.reload();
      await inbox.waitFor({ timeout: WAIT });

      await page.getByRole('button', { name: 'Sign out', exact: true }).click();
      await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor({ timeout: WAIT });
      await page.reload();
      await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor({ timeout: WAIT });
    });
  });

  test('Russian: picked from the browser and switchable; the accessible names stay English', async (ctx) => {
    const user = await t.createConsoleUser();
    const { page } = await browser.newPage({ locale: 'ru-RU' });
    await withScreenshotOnFailure(ctx, page, async () => {
      await page.goto(`${t.url}/`);
      const signInButton = page.getByRole('button', { name: 'Sign in', exact: true });
      await signInButton.waitFor({ timeout: WAIT });
      assert.equal((await signInButton.textContent())?.trim(), 'Войти');

      await page.getByRole('textbox', { name: 'Email', exact: true }).fill(user.email);
      await page.getByRole('textbox', { name: 'Password', exact: true }).fill('wrong password');
      await signInButton.click();
      // The server's message comes in the member's language (UserLang).
      await page.getByRole('alert').filter({ hasText: 'Неверный e-mail или пароль' }).waitFor({ timeout: WAIT });

      await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
      await signInButton.click();
      const channels = page.getByRole('link', { name: 'Channels', exact: true });
      await channels.waitFor({ timeout: WAIT });
      assert.equal((await channels.textContent())?.trim(), 'Каналы');
      assert.equal(await page.evaluate('document.documentElement.lang'), 'ru');

      await page.getByRole('combobox', { name: 'Language', exact: true }).selectOption('en');
      await page.getByRole('link', { name: 'Channels', exact: true }).filter({ hasText: 'Channels' }).waitFor({ timeout: WAIT });
      await page.reload();
      await page.getByRole('link', { name: 'Channels', exact: true }).filter({ hasText: 'Channels' }).waitFor({ timeout: WAIT });

      await page.getByRole('combobox', { name: 'Language', exact: true }).selectOption('ru');
      await page.getByRole('link', { name: 'Inbox', exact: true }).filter({ hasText: 'Входящие' }).waitFor({ timeout: WAIT });
    });
  });
});

describe('channels', () => {
  test('connect an API channel, set its webhook URL, Send test event shows 200 and the receiver got the sample', async (ctx) => {
    const user = await t.createConsoleUser();
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, user.email);
      await page.getByRole('link', { name: 'Channels', exact: true }).click();
      await page.getByRole('button', { name: 'Connect channel', exact: true }).click();
      await page.getByRole('combobox', { name: 'Kind', exact: true }).selectOption('custom');
      await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Shop API');
      await page.getByRole('button', { name: 'Connect', exact: true }).click();

      const webhookUrl = page.getByRole('textbox', { name: 'Webhook URL', exact: true });
      await webhookUrl.waitFor({ timeout: WAIT });
      // The API channel's page shows its cc: id and a ready curl example.
      const { body } = await t.console<{ channels: { id: string; name: string; webhookUrl: string | null }[] }>(user.token, 'GET', '/channels/all/');
      const channel = body.channels.find((c) => c.name === 'Shop API');
      assert.ok(channel);
      assert.ok(channel.id.startsWith('cc:'));
      await page.getByText(channel.id, { exact: true }).waitFor({ timeout: WAIT });
      const curl = (await page.getByLabel('curl example').textContent()) ?? '';
      assert.match(curl, /send-message-universal/);
      assert.ok(curl.includes(`"channelId":"${channel.id}"`));

      await webhookUrl.fill(`${receiver.url}/hook`);
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor({ timeout: WAIT });
      const saved = await t.console<{ webhookUrl: string }>(user.token, 'GET', `/channel/custom/${channel.id}/`);
      assert.equal(saved.body.webhookUrl, `${receiver.url}/hook`);

      const before = receiver.requests.length;
      await page.getByRole('button', { name: 'Send test event', exact: true }).click();
      await page.getByText(/HTTP 200/).waitFor({ timeout: WAIT });
      const request = await eventually(async () => receiver.requests.slice(before).find((r) => r.url === '/hook'), WAIT);
      const event = JSON.parse(request.body) as { event: string };
      assert.equal(event.event, 'new_messages');

      // Disable agent responses is saved at once.
      await page.getByRole('checkbox', { name: 'Disable agent responses', exact: true }).check();
      await eventually(async () => {
        const res = await t.console<{ disableAgentResponses: boolean }>(user.token, 'GET', `/channel/custom/${channel.id}/`);
        return res.body.disableAgentResponses;
      }, WAIT);
    });
  });
});
