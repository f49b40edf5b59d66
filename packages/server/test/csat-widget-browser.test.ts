// `How did we do?` in a real browser: the widget on a host page of another site (127.0.0.2, Parley at 127.0.0.1),
// the agent answers, a member marks the task done, the frame asks with buttons 1–5 and the textbox `Comment`; the
// visitor's 5 with a comment is stored on the conversation (confirmed: resolved by the agent and rated 4 or more),
// and a reload does not ask again.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LedgerConversation } from '@parley/contracts';
import type { Page } from 'playwright-core';
import { browserTests, launchBrowser, withScreenshotOnFailure, type TestBrowser } from './support/browser.ts';
import { eventually } from './support/events.ts';
import { startTestApp, type TestApp } from './support/harness.ts';
import { shopPage, startHostSite, type HostSite } from './support/host-site.ts';

const QUESTION = 'How long does shipping take?';
const ANSWER = 'Shipping takes 3 to 5 business days.';
const WAIT = { timeout: 15_000 };

const frameOf = (page: Page) => page.frameLocator('iframe[title="Chat"]');

describe('CSAT in the widget, in a browser', browserTests, () => {
  let t: TestApp;
  let browser: TestBrowser;
  let site: HostSite;
  before(async () => {
    t = await startTestApp({ realPublicUrl: true });
    site = await startHostSite();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await site?.close();
    await t?.close();
  });

  test('the task done: How did we do?, a 5 with a comment, thanked; stored and confirmed; not asked again', async (tc) => {
    const user = await t.createConsoleUser();
    const base = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ' } });
    await t.console(user.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, { body: { question: QUESTION, answer: ANSWER } });
    const created = await t.console<{ id: string; widget: { snippet: string } }>(user.token, 'POST', '/channel/widget/connect/', {
      body: { name: 'Shop chat', knowledgeBaseId: base.body.id, widget: { allowedOrigins: [site.origin] } },
    });
    assert.equal(created.status, 201, created.text);
    site.page(shopPage(created.body.widget.snippet));
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(tc, page, async () => {
      await page.goto(site.origin);
      await page.getByRole('button', { name: 'Open chat' }).click(WAIT);
      const frame = frameOf(page);
      const box = frame.getByRole('textbox', { name: 'Message' });
      await box.waitFor(WAIT);
      await eventually(async () => {
        if ((await box.inputValue()) !== QUESTION) await box.fill(QUESTION);
        return (await box.inputValue()) === QUESTION;
      }, 15_000);
      await frame.getByRole('button', { name: 'Send' }).click();
      await frame.getByRole('log').getByText(ANSWER).waitFor(WAIT);

      const chats = await t.console<{ chats: { id: string }[] }>(user.token, 'GET', '/chat/all-chats/');
      const chatId = chats.body.chats[0]?.id;
      assert.equal((await t.console(user.token, 'POST', `/chat/status/${chatId}/`, { body: { status: 'done' } })).status, 200);

      await frame.getByText('How did we do?', { exact: true }).waitFor(WAIT);
      await frame.getByRole('textbox', { name: 'Comment' }).fill('Fast and right, "thanks"');
      for (const n of ['1', '2', '3', '4']) await frame.getByRole('button', { name: n, exact: true }).waitFor(WAIT);
      await frame.getByRole('button', { name: '5', exact: true }).click();
      await frame.getByRole('status').getByText('Thank you for your rating!').waitFor(WAIT);

      const today = new Date().toISOString().slice(0, 10);
      const ledger = await t.console<{ conversations: LedgerConversation[] }>(user.token, 'GET', '/reports/conversations', { query: { from: today, to: today } });
      const [conversation] = ledger.body.conversations;
      assert.equal(conversation?.csat, 5);
      assert.equal(conversation?.confirmed, true);
      assert.equal(conversation?.outcome, 'resolved_by_agent');

      // A reload: the history is back, the rated conversation is not offered again.
      await page.reload();
      await page.getByRole('button', { name: 'Open chat' }).click(WAIT);
      await frameOf(page).getByRole('log').getByText(ANSWER).waitFor(WAIT);
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(await frameOf(page).getByText('How did we do?', { exact: true }).count(), 0);
    });
  });
});
