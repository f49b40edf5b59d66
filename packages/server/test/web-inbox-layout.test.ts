// The Inbox's layout (issue #42 item 9), in a real browser at 1280×800 and on a phone (390×844): a chat with 60
// messages opens at its newest message, the history keeps most of the height (the customer card, assignment and
// tags fold into one line, `Details` unfolds them), the log follows what arrives while the member reads the end and
// leaves alone a member who scrolled up.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { browserTests, launchBrowser, signIn, withScreenshotOnFailure, type TestBrowser } from './support/browser.ts';
import { eventually } from './support/events.ts';
import { PASSWORD, startTestApp, type TestApp } from './support/harness.ts';

const WAIT = 20_000;
const CUSTOMER = 'Sixty Messages';

let t: TestApp;
let browser: TestBrowser;
let user: Awaited<ReturnType<TestApp['createConsoleUser']>>;
let channelId: string;

async function say(role: 'user' | 'assistant', text: string): Promise<void> {
  const res = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
    headers: { authorization: user.key },
    body: { channel: 'custom', channelId, externalChatId: 'sixty', role, text, ...(role === 'user' ? { senderName: CUSTOMER } : {}) },
  });
  assert.equal(res.status, 201, res.text);
}

async function openTheChat(page: Page, viewport: { width: number; height: number }): Promise<Locator> {
  await page.setViewportSize(viewport);
  await signIn(page, `${t.url}/inbox`, user.email, PASSWORD);
  const item = page.getByRole('list', { name: 'Chats', exact: true }).getByRole('button').filter({ hasText: CUSTOMER });
  await item.first().click({ timeout: WAIT });
  const log = page.getByRole('log', { name: 'Messages', exact: true });
  await log.waitFor({ timeout: WAIT });
  return log;
}

/** Whether the element is wholly inside the log's box and inside the window. */
async function inView(log: Locator, item: Locator, viewport: { height: number }): Promise<boolean> {
  const [box, it] = await Promise.all([log.boundingBox(), item.boundingBox()]);
  return box !== null && it !== null && it.y >= box.y - 1 && it.y + it.height <= box.y + box.height + 1 && it.y >= 0 && it.y + it.height <= viewport.height;
}

describe('Inbox layout', browserTests, () => {
  before(async () => {
    t = await startTestApp();
    browser = await launchBrowser();
    user = await t.createConsoleUser();
    // A member with a name, as every member is after their first visit (no prompt for one above the page).
    const named = await t.console(user.token, 'PUT', '/me/', { body: { name: 'Mia Member' } });
    assert.equal(named.status, 200, named.text);
    // The agent is off: the history is exactly what the test says.
    const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', { body: { name: 'Layout', settings: { isActive: false } } });
    assert.equal(channel.status, 201, channel.text);
    channelId = channel.body.id;
    for (let n = 1; n <= 60; n += 1) await say(n % 2 === 1 ? 'user' : 'assistant', `Line ${n} of sixty`);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('1280×800: the chat opens at its newest message, the history has at least 60 % of the height, Details unfolds the card', async (ctx) => {
    const viewport = { width: 1280, height: 800 };
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      const log = await openTheChat(page, viewport);
      const newest = log.getByText('Line 60 of sixty', { exact: true });
      await newest.waitFor({ timeout: WAIT });
      await eventually(async () => inView(log, newest, viewport), WAIT);
      const first = await log.getByText('Line 1 of sixty', { exact: true }).boundingBox();
      const box = await log.boundingBox();
      assert.ok(first && box && first.y + first.height < box.y, 'the oldest message is scrolled out of view above');
      const ratio = box.height / viewport.height;
      ctx.diagnostic(`history ${Math.round(box.height)} px of ${viewport.height} (${(ratio * 100).toFixed(1)} %)`);
      assert.ok(ratio >= 0.6, `the history takes ${(ratio * 100).toFixed(1)} % of the height`);
      // The page itself does not scroll: the panes do.
      assert.equal(await page.evaluate('document.documentElement.scrollHeight <= window.innerHeight'), true);

      // Folded: the card, the assignment and the tags are out of the way, and one button unfolds them.
      const details = page.getByRole('button', { name: 'Details', exact: true });
      assert.equal(await details.getAttribute('aria-expanded'), 'false');
      assert.equal(await page.getByRole('complementary', { name: 'Customer', exact: true }).count(), 0);
      assert.equal(await page.getByRole('combobox', { name: 'Assign to', exact: true }).count(), 0);
      await details.click();
      assert.equal(await details.getAttribute('aria-expanded'), 'true');
      const card = page.getByRole('complementary', { name: 'Customer', exact: true });
      assert.equal(await card.getByLabel('Customer name', { exact: true }).textContent({ timeout: WAIT }), CUSTOMER);
      await page.getByRole('combobox', { name: 'Assign to', exact: true }).waitFor({ timeout: WAIT });
      await page.getByRole('textbox', { name: 'Tag', exact: true }).waitFor({ timeout: WAIT });
      // Unfolded, the history still has the larger part.
      const unfolded = await log.boundingBox();
      assert.ok(unfolded && unfolded.height >= viewport.height * 0.3, `unfolded, the history has ${unfolded?.height} px`);
      await details.click();
      assert.equal(await details.getAttribute('aria-expanded'), 'false');
      assert.equal(await card.count(), 0);

      // Reading the end: a new message shows at once.
      await eventually(async () => inView(log, newest, viewport), WAIT);
      await say('user', 'Line 61 arrives while reading the end');
      const arrived = log.getByText('Line 61 arrives while reading the end', { exact: true });
      await arrived.waitFor({ timeout: WAIT });
      await eventually(async () => inView(log, arrived, viewport), WAIT);

      // Scrolled up to the start: a new message does not move the history.
      await log.evaluate((element) => {
        element.scrollTop = 0;
      });
      const oldest = log.getByText('Line 1 of sixty', { exact: true });
      await eventually(async () => inView(log, oldest, viewport), WAIT);
      await say('user', 'Line 62 arrives while reading the start');
      await log.getByText('Line 62 arrives while reading the start', { exact: true }).waitFor({ timeout: WAIT, state: 'attached' });
      assert.equal(await inView(log, oldest, viewport), true, 'the member reading the start is left there');
      assert.equal(await log.evaluate((element) => element.scrollTop), 0);
    });
  });

  test('390×844: the open chat takes the screen, its newest message and the composer in view; All chats goes back', async (ctx) => {
    const viewport = { width: 390, height: 844 };
    const { page } = await browser.newPage({ viewport });
    await withScreenshotOnFailure(ctx, page, async () => {
      const log = await openTheChat(page, viewport);
      await log.getByText('Line 60 of sixty', { exact: true }).waitFor({ timeout: WAIT, state: 'attached' });
      const newest = log.getByRole('listitem').last();
      await eventually(async () => inView(log, newest, viewport), WAIT);
      const box = await log.boundingBox();
      assert.ok(box);
      const ratio = box.height / viewport.height;
      ctx.diagnostic(`history ${Math.round(box.height)} px of ${viewport.height} (${(ratio * 100).toFixed(1)} %)`);
      assert.ok(ratio >= 0.5, `the history takes ${(ratio * 100).toFixed(1)} % of the height`);
      for (const name of ['Reply', 'Note']) {
        const field = await page.getByRole('textbox', { name, exact: true }).boundingBox();
        assert.ok(field && field.y >= 0 && field.y + field.height <= viewport.height, `${name} is on screen`);
      }
      const send = await page.getByRole('button', { name: 'Send', exact: true }).boundingBox();
      assert.ok(send && send.x >= 0 && send.x + send.width <= viewport.width && send.y + send.height <= viewport.height, 'Send is on screen');
      // The list gives way to the chat; one link brings it back.
      assert.equal(await page.getByRole('list', { name: 'Chats', exact: true }).isVisible(), false);
      await page.getByRole('button', { name: 'Details', exact: true }).click();
      await page.getByRole('complementary', { name: 'Customer', exact: true }).waitFor({ timeout: WAIT });
      await page.getByRole('link', { name: 'All chats', exact: true }).click();
      await page.getByRole('list', { name: 'Chats', exact: true }).waitFor({ timeout: WAIT });
      await page.waitForURL(`${t.url}/inbox`, { timeout: WAIT });
    });
  });
});
