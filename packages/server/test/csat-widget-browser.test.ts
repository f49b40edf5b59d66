// `How did we do?` in a real browser: the widget on a host page of another site (127.0.0.2, Parley at 127.0.0.1).
// The agent answers, a member replies at length and marks the task done: the frame asks only once the team's last
// message has been on screen the delay (the script tag's data-csat-delay; 30 s by default, 8 s here), never in the
// instant of done, with the team's answer still in view above the question; the buttons say what they mean
// (`1 — very bad` … `5 — very good`); the visitor's 5 with a comment is stored on the conversation, and a reload does
// not ask again. A visitor who closed the chat is asked at their next open, at once (a 60 s delay would not be up).
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
/** The team's last answer: long enough that it and the question below it do not both fit in the log. */
const TEAM_ANSWER = ['Here is everything about your parcel:', ...Array.from({ length: 14 }, (_, i) => `Step ${i + 1}: we check it and send it on.`)].join('\n');
const WAIT = { timeout: 15_000 };
const MEANINGS = ['1 — very bad', '2 — bad', '3 — okay', '4 — good', '5 — very good'];

const frameOf = (page: Page) => page.frameLocator('iframe[title="Chat"]');
/** The snippet with the delay before the question, in seconds (the script tag's data-csat-delay). */
const withDelay = (snippet: string, seconds: number) => snippet.replace('<script ', `<script data-csat-delay="${seconds}" `);

describe('CSAT in the widget, in a browser', browserTests, () => {
  let t: TestApp;
  let browser: TestBrowser;
  let site: HostSite;
  let user: Awaited<ReturnType<TestApp['createConsoleUser']>>;
  let snippet = '';
  /** The chats of the tests before: each test's visitor is a new one. */
  const asked = new Set<string>();
  before(async () => {
    t = await startTestApp({ realPublicUrl: true });
    site = await startHostSite();
    browser = await launchBrowser();
    user = await t.createConsoleUser();
    const base = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ' } });
    await t.console(user.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, { body: { question: QUESTION, answer: ANSWER } });
    const created = await t.console<{ id: string; widget: { snippet: string } }>(user.token, 'POST', '/channel/widget/connect/', {
      body: { name: 'Shop chat', knowledgeBaseId: base.body.id, widget: { allowedOrigins: [site.origin] } },
    });
    assert.equal(created.status, 201, created.text);
    snippet = created.body.widget.snippet;
  });
  after(async () => {
    await browser?.close();
    await site?.close();
    await t?.close();
  });

  /** The visitor opens the chat and asks; resolves once the agent's answer is in the log, with the chat's id. */
  async function ask(page: Page): Promise<string> {
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
    return eventually(async () => {
      const chats = await t.console<{ chats: { id: string }[] }>(user.token, 'GET', '/chat/all-chats/');
      for (const id of chats.body.chats.map((chat) => chat.id)) {
        const history = await t.console<{ messages: { text?: string }[] }>(user.token, 'GET', `/chat/messages/${id}/`);
        if (history.body.messages.some((m) => m.text === QUESTION) && !asked.has(id)) return id;
      }
      return undefined;
    }, 15_000);
  }

  test('asked once the team’s last message has been on screen the delay, never at done, the answer in view; named 1–5; stored once', async (tc) => {
    site.page(shopPage(withDelay(snippet, 8)));
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(tc, page, async () => {
      const chatId = await ask(page);
      asked.add(chatId);
      const frame = frameOf(page);
      const log = frame.getByRole('log');
      // The team's last answer, then done in the same breath.
      const replyStarted = Date.now();
      assert.equal((await t.console(user.token, 'POST', `/chat/messages/${chatId}/`, { body: { text: TEAM_ANSWER } })).status, 201);
      const teamAnswer = log.getByText('Here is everything about your parcel:');
      await teamAnswer.waitFor(WAIT);
      assert.equal((await t.console(user.token, 'POST', `/chat/status/${chatId}/`, { body: { status: 'done' } })).status, 200);
      const question = frame.getByText('How did we do?', { exact: true });
      // The frame has heard that the conversation ended (it marks the question due), and does not ask in that instant.
      await frame.locator('.chat[data-csat="due"]').waitFor({ state: 'attached', ...WAIT });
      if (Date.now() - replyStarted < 6_000) assert.equal(await question.count(), 0, 'asked in the instant of done');

      await question.waitFor({ timeout: 30_000 });
      // No sooner than the delay after the team's answer could first be on screen.
      assert.ok(Date.now() - replyStarted >= 8_000, `asked after ${Date.now() - replyStarted} ms`);
      // The team's answer is still in view: its first line inside the log's visible box, above the question.
      const logBox = await log.boundingBox();
      const answerBox = await teamAnswer.boundingBox();
      const questionBox = await question.boundingBox();
      assert.ok(logBox && answerBox && questionBox);
      assert.ok(answerBox.y >= logBox.y - 1 && answerBox.y + answerBox.height <= logBox.y + logBox.height + 1, `answer at ${answerBox.y}, log ${logBox.y}+${logBox.height}`);
      assert.ok(answerBox.y < questionBox.y);

      // Each button says its number and what it means, seen and heard.
      for (const name of MEANINGS) {
        const button = frame.getByRole('button', { name, exact: true });
        await button.waitFor(WAIT);
        assert.equal((await button.innerText()).replace(/\s+/g, ' ').trim(), name.replace(' — ', ' '));
      }
      await frame.getByRole('textbox', { name: 'Comment' }).fill('Fast and right, "thanks"');
      await frame.getByRole('button', { name: '5 — very good', exact: true }).click();
      await frame.getByRole('status').getByText('Thank you for your rating!').waitFor(WAIT);

      const today = new Date().toISOString().slice(0, 10);
      const ledger = await t.console<{ conversations: LedgerConversation[] }>(user.token, 'GET', '/reports/conversations', { query: { from: today, to: today } });
      const conversation = ledger.body.conversations.find((c) => c.chatId === chatId);
      assert.equal(conversation?.csat, 5);
      assert.equal(conversation?.outcome, 'resolved_by_team');

      // A reload: the history is back, the rated conversation is not offered again.
      await page.reload();
      await page.getByRole('button', { name: 'Open chat' }).click(WAIT);
      await frameOf(page).getByRole('log').getByText(ANSWER).waitFor(WAIT);
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(await frameOf(page).getByText('How did we do?', { exact: true }).count(), 0);
    });
  });

  test('a visitor who closed the chat is asked at their next open, at once; the agent’s answer stays above', async (tc) => {
    site.page(shopPage(withDelay(snippet, 60)));
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(tc, page, async () => {
      const chatId = await ask(page);
      asked.add(chatId);
      await frameOf(page).getByRole('button', { name: 'Close chat' }).click();
      await page.getByRole('button', { name: 'Open chat' }).waitFor({ state: 'visible', ...WAIT });
      assert.equal((await t.console(user.token, 'POST', `/chat/status/${chatId}/`, { body: { status: 'done' } })).status, 200);
      // The frame has heard of the end while closed (its live stream; the frame marks the question due): the visitor
      // opens the chat and is asked at once, long before the 60 s delay.
      await frameOf(page).locator('.chat[data-csat="due"]').waitFor({ state: 'attached', ...WAIT });
      const opened = Date.now();
      await page.getByRole('button', { name: 'Open chat' }).click(WAIT);
      const frame = frameOf(page);
      await frame.getByText('How did we do?', { exact: true }).waitFor({ timeout: 30_000 });
      assert.ok(Date.now() - opened < 60_000);
      await frame.getByRole('log').getByText(ANSWER).waitFor(WAIT);
      for (const name of MEANINGS) await frame.getByRole('button', { name, exact: true }).waitFor(WAIT);
      await frame.getByRole('button', { name: '2 — bad', exact: true }).click();
      await frame.getByRole('status').getByText('Thank you for your rating!').waitFor(WAIT);
      const today = new Date().toISOString().slice(0, 10);
      const ledger = await t.console<{ conversations: LedgerConversation[] }>(user.token, 'GET', '/reports/conversations', { query: { from: today, to: today } });
      assert.equal(ledger.body.conversations.find((c) => c.chatId === chatId)?.csat, 2);
    });
  });
});
