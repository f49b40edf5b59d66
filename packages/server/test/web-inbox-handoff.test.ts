// The Inbox's `Needs a human` view in a real browser (issue #26): a chat the agent hands to the team shows up in
// the view and its count live, without a reload; a member's reply from the Inbox takes it out again, live. And the
// channel page's handoff fields.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { browserTests, launchBrowser, signIn, withScreenshotOnFailure, type TestBrowser } from './support/browser.ts';
import { PASSWORD, startTestApp, type TestApp } from './support/harness.ts';

const WAIT = 20_000;

let t: TestApp;
let browser: TestBrowser;
let user: Awaited<ReturnType<TestApp['createConsoleUser']>>;
let channelId: string;

async function customerSays(externalChatId: string, text: string, senderName: string): Promise<void> {
  const res = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
    headers: { authorization: user.key },
    body: { channel: 'custom', channelId, externalChatId, role: 'user', text, senderName },
  });
  assert.equal(res.status, 201, res.text);
}

async function countIs(page: Page, count: number): Promise<void> {
  await page.getByRole('status', { name: 'Needs a human count', exact: true }).filter({ hasText: new RegExp(`^${count}$`) }).waitFor({ timeout: WAIT });
}

describe('Inbox: Needs a human', browserTests, () => {
  before(async () => {
    t = await startTestApp();
    browser = await launchBrowser();
    user = await t.createConsoleUser();
    const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
      body: { name: 'Support', handoffMessage: 'A person from our team will reply here.' },
    });
    assert.equal(channel.status, 201, channel.text);
    channelId = channel.body.id;
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('a handed-off chat appears in the view and its count live; a reply from the Inbox takes it out', async (ctx) => {
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await customerSays('calm', 'Hello there', 'Carol Calm');
      await signIn(page, `${t.url}/inbox`, user.email, PASSWORD);
      const chats = page.getByRole('list', { name: 'Chats', exact: true });
      await chats.getByText('Carol Calm').waitFor({ timeout: WAIT });
      await countIs(page, 0);
      const view = page.getByRole('button', { name: 'Needs a human', exact: true });
      assert.equal(await view.getAttribute('aria-pressed'), 'false');

      // No reload: the handoff reaches the open Inbox through the live stream.
      await customerSays('upset', 'I want to talk to a human', 'Hugo Human');
      await countIs(page, 1);
      await chats.getByText('Hugo Human').waitFor({ timeout: WAIT });

      await view.click();
      assert.equal(await view.getAttribute('aria-pressed'), 'true');
      await chats.getByText('Carol Calm').waitFor({ state: 'detached', timeout: WAIT });
      const item = chats.getByRole('button').filter({ hasText: 'Hugo Human' });
      await item.waitFor({ timeout: WAIT });
      await item.click();
      const log = page.getByRole('log');
      await log.getByText('A person from our team will reply here.').waitFor({ timeout: WAIT });
      await page.getByRole('button', { name: 'Resume agent', exact: true }).waitFor({ timeout: WAIT });
      // The handoff message is no answer: nothing to mark correct or correct under it (issue #34).
      assert.equal(await log.getByRole('button', { name: 'Mark correct', exact: true }).count(), 0);
      assert.equal(await log.getByRole('button', { name: 'Correct the answer', exact: true }).count(), 0);

      await page.getByRole('textbox', { name: 'Reply', exact: true }).fill('Hi Hugo, Dana here. How can I help?');
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await log.getByText('Hi Hugo, Dana here. How can I help?').waitFor({ timeout: WAIT });
      await countIs(page, 0);
      await chats.getByText('Hugo Human').waitFor({ state: 'detached', timeout: WAIT });
      // Still paused: the agent waits for a member to resume it.
      await page.getByRole('button', { name: 'Resume agent', exact: true }).waitFor({ timeout: WAIT });

      // Another handoff while the view is open comes in live too.
      await customerSays('second', 'Connect me with an operator please', 'Olga Operator');
      await countIs(page, 1);
      await chats.getByText('Olga Operator').waitFor({ timeout: WAIT });
    });
  });

  test("the channel page sets the handoff message and the fallbacks before a handoff", async (ctx) => {
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, `${t.url}/channels/custom/${encodeURIComponent(channelId)}`, user.email, PASSWORD);
      const message = page.getByRole('textbox', { name: 'Handoff message', exact: true });
      await message.waitFor({ timeout: WAIT });
      assert.equal(await message.inputValue(), 'A person from our team will reply here.');
      const after = page.getByRole('spinbutton', { name: 'Handoff after fallbacks', exact: true });
      assert.equal(await after.inputValue(), '2');
      await message.fill('');
      await after.fill('4');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor({ timeout: WAIT });
      const saved = await t.console<{ handoffMessage: string | null; handoffAfterFallbacks: number }>(user.token, 'GET', `/channel/custom/${encodeURIComponent(channelId)}/`);
      assert.deepEqual([saved.body.handoffMessage, saved.body.handoffAfterFallbacks], [null, 4]);
    });
  });
});
