// The web account and the messenger connectors (issue #15, item 6): a Telegram channel's page shows its inbound
// URL and the connector's last error; a WhatsApp channel's page shows the verify token to paste into Meta's
// dashboard; a reply the messenger refused for good is listed under Deliveries. Real browser, fake Bot API.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { browserTests, launchBrowser, signIn as signInAt, withScreenshotOnFailure, type TestBrowser } from './support/browser.ts';
import { eventually } from './support/events.ts';
import { startFakeTelegram, type FakeTelegram } from './support/fake-telegram.ts';
import { PASSWORD, PUBLIC_URL, startTestApp, type TestApp } from './support/harness.ts';
import { messengerAccount, QUESTION } from './support/messenger-setup.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

const WAIT = 20_000;
const TOKEN = '987654321:AAHwebtestwebtestwebtestwebtest_tok';

let t: TestApp;
let browser: TestBrowser;
let telegram: FakeTelegram;
let receiver: Receiver;

describe('messenger channel page in Chromium', browserTests, () => {
  before(async () => {
    telegram = await startFakeTelegram();
    telegram.addBot(TOKEN, { id: 987654321, username: 'parley_web_bot' });
    receiver = await startReceiver();
    t = await startTestApp({
      webhookAllowPrivateNetworks: true,
      messengerApis: { telegram: telegram.url, meta: 'http://127.0.0.1:9', viber: 'http://127.0.0.1:9' },
    });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await telegram?.close();
    await receiver?.close();
  });

  async function signIn(page: Page, email: string): Promise<void> {
    await signInAt(page, `${t.url}/`, email, PASSWORD);
    await page.getByRole('link', { name: 'Inbox', exact: true }).waitFor({ timeout: WAIT });
  }

  test("a messenger channel's page: inbound URL, verify token, the last refusal; the failed reply under Deliveries", async (ctx) => {
    const account = await messengerAccount(t, receiver);
    const connected = await account.connect('telegram', { botToken: TOKEN });
    assert.equal(connected.status, 201, connected.text);
    const channelId = connected.body.id;
    const whatsapp = await account.connect('whatsapp', {
      phoneNumberId: '1015550001',
      accessToken: 'EAAGwebtestaccesstoken',
      appSecret: 'web-test-app-secret',
      verifyToken: 'paste-me-into-meta',
    });
    assert.equal(whatsapp.status, 201, whatsapp.text);

    // The customer blocked the bot: the agent's reply is refused for good (403) and recorded.
    const chat = 424242;
    telegram.block(String(chat));
    const secret = telegram.webhooks.get(TOKEN)?.secretToken ?? '';
    const inbound = await t.request('POST', `/channels/telegram/${channelId}/webhook`, {
      headers: { 'x-telegram-bot-api-secret-token': secret },
      body: {
        update_id: 1,
        message: { message_id: 1, date: Math.floor(Date.now() / 1000), text: QUESTION, from: { id: chat, is_bot: false, first_name: 'Ada' }, chat: { id: chat, type: 'private', first_name: 'Ada' } },
      },
    });
    assert.equal(inbound.status, 200, inbound.text);
    await eventually(async () => {
      const failures = await t.console<{ failures: unknown[] }>(account.user.token, 'GET', '/channels/failures/');
      return failures.body.failures.length > 0;
    }, WAIT);

    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, account.user.email);
      await page.goto(`${t.url}/channels/telegram/${encodeURIComponent(channelId)}`);
      const url = page.locator('code[aria-label="Inbound URL"]');
      await url.waitFor({ timeout: WAIT });
      assert.equal(await url.textContent(), `${PUBLIC_URL}/channels/telegram/${channelId}/webhook`);
      const alert = page.getByRole('alert').filter({ hasText: 'Last messenger error' });
      await alert.waitFor({ timeout: WAIT });
      assert.match((await alert.textContent()) ?? '', /blocked/i);
      assert.equal(await page.locator('code[aria-label="Verify token"]').count(), 0, 'Telegram has no verify token');

      await page.goto(`${t.url}/channels/whatsapp/${encodeURIComponent(whatsapp.body.id)}`);
      const verify = page.locator('code[aria-label="Verify token"]');
      await verify.waitFor({ timeout: WAIT });
      assert.equal(await verify.textContent(), 'paste-me-into-meta');
      assert.equal(await page.locator('code[aria-label="Inbound URL"]').textContent(), `${PUBLIC_URL}/channels/whatsapp/${whatsapp.body.id}/webhook`);
      // Secrets never reach the page.
      assert.ok(!(await page.content()).includes('web-test-app-secret'));

      await page.getByRole('link', { name: 'Deliveries', exact: true }).click();
      const failures = page.getByRole('list', { name: 'Messenger send failures' });
      await failures.waitFor({ timeout: WAIT });
      assert.match((await failures.textContent()) ?? '', /telegram.*blocked/is);
    });
  });
});
