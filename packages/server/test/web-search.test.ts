// The Inbox's search in a real browser (issue #44, 1): `/` focuses the search box unless typing in a field; the
// hits replace the list, matches marked and markup shown as text; a hit opens its chat scrolled to the matching
// message, which is marked; clearing the box brings the list back.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { browserTests } from './support/browser.ts';
import { eventually } from './support/events.ts';
import type { TestApp } from './support/harness.ts';
import { sendCustomerMessage, webSuite } from './support/web-suite.ts';

const WAIT = 20_000;

let user: Awaited<ReturnType<TestApp['createConsoleUser']>>;
let channelId: string;

describe('Inbox search', browserTests, () => {
  const web = webSuite();
  const customerSays = (externalChatId: string, text: string, senderName: string) =>
    sendCustomerMessage(web.t, user.key, { channelId, externalChatId, text, senderName });
  before(async () => {
    const { t } = web;
    user = await t.createConsoleUser();
    const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
      body: { name: 'Support', settings: { isActive: false, aiLang: 'en' } },
    });
    assert.equal(channel.status, 201, channel.text);
    channelId = channel.body.id;
  });

  test('`/` focuses the box; a hit opens its chat at the matching message, marked', async (ctx) => {
    const { t } = web;
    // The matching message is the first of a long chat: the log opens scrolled to it, not to the newest.
    await customerSays('long-1', 'My <b>invoice</b> shows two refunds', 'Dora Search');
    for (let i = 0; i < 40; i += 1) await customerSays('long-1', `Filler message number ${i}`, 'Dora Search');
    await customerSays('other-1', 'Nothing relevant here', 'Eli Other');
    await web.signedIn(ctx, `${t.url}/inbox`, user.email, async (page) => {
      const chats = page.getByRole('list', { name: 'Chats', exact: true });
      await chats.getByText('Eli Other').waitFor({ timeout: WAIT });
      const box = page.getByRole('searchbox', { name: 'Search conversations', exact: true });

      // `/` while typing in a field is a character; elsewhere it focuses the box.
      const tags = page.getByRole('textbox', { name: 'Tags filter', exact: true });
      await tags.click();
      await page.keyboard.type('a/b');
      assert.equal(await tags.inputValue(), 'a/b');
      await tags.fill('');
      await page.locator('body').click({ position: { x: 5, y: 5 } });
      await page.keyboard.press('/');
      await page.waitForFunction(`document.activeElement?.getAttribute('aria-label') === 'Search conversations'`, undefined, { timeout: WAIT });
      assert.equal(await box.inputValue(), '');

      await page.keyboard.type('refund');
      const results = page.getByRole('list', { name: 'Search results', exact: true });
      const hit = results.getByRole('button').filter({ hasText: 'Dora Search' });
      await hit.waitFor({ timeout: WAIT });
      assert.equal(await results.getByRole('button').count(), 1);
      assert.equal(await chats.count(), 0);
      // The match is marked; the customer's markup is text.
      assert.equal(await hit.locator('mark').innerText(), 'refunds');
      assert.match(await hit.innerText(), /My <b>invoice<\/b> shows two refunds/);
      assert.equal(await hit.locator('b').count(), 0);

      await hit.click();
      const log = page.getByRole('log');
      const found = log.locator('li[aria-current="true"]');
      await found.waitFor({ timeout: WAIT });
      assert.match(await found.innerText(), /My <b>invoice<\/b> shows two refunds/);
      assert.match(page.url(), /\/inbox\/[0-9a-f-]{36}$/);
      // Scrolled to it: the found message is in the log's view, the newest is not.
      // Polled from here: the page's CSP (no eval) refuses Playwright's in-page polling of a string predicate.
      await eventually(async () => (await page.evaluate<boolean>(
        `(() => {
          const list = document.querySelector('[role="log"]');
          const item = list && list.querySelector('li[aria-current="true"]');
          if (!list || !item) return false;
          const box = list.getBoundingClientRect();
          const rect = item.getBoundingClientRect();
          return rect.top >= box.top - 1 && rect.bottom <= box.bottom + 1;
        })()`,
      )) || undefined, WAIT);
      const newestVisible = await page.evaluate(
        `(() => {
          const list = document.querySelector('[role="log"]');
          const last = list && list.lastElementChild;
          if (!list || !last) return true;
          return last.getBoundingClientRect().top < list.getBoundingClientRect().bottom;
        })()`,
      );
      assert.equal(newestVisible, false);

      // Escape clears the search: the list is back.
      await box.click();
      await page.keyboard.press('Escape');
      await chats.getByText('Eli Other').waitFor({ timeout: WAIT });
      assert.equal(await results.count(), 0);

      // A word found nowhere says so.
      await box.fill('zyxwvut');
      await page.getByText('Nothing found').waitFor({ timeout: WAIT });
    });
  });
});
