// Reports in a real browser (issue #36): conversations made through the public API and the console (one the agent
// resolves, one the team resolves, one handed off, one still open) show as the summary's figures; a figure's link
// lists the conversations it counts, each linking to its chat in the Inbox; the channel and member filters change
// the figures; `Download CSV` saves the filtered conversations; a window with no data shows "—", never NaN; and the
// page writes no error to the console.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { browserTests, launchBrowser, signIn, withScreenshotOnFailure, type TestBrowser } from './support/browser.ts';
import { eventually } from './support/events.ts';
import { PASSWORD, startTestApp, type TestApp } from './support/harness.ts';

const WAIT = 20_000;
const QUESTION = 'Do you ship abroad?';
const ANSWER = 'Yes, to every country of the EU.';

let t: TestApp;
let browser: TestBrowser;
let owner: Awaited<ReturnType<TestApp['createConsoleUser']>>;
const channels = { shop: '', support: '' };
const chats = { alice: '', bob: '', carol: '', dave: '' };

interface Summary {
  conversations: number;
  outcomes: Record<string, number>;
}

/** Collects what a page writes to its console as errors, and the scripts' uncaught exceptions. */
function consoleErrorsOf(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`${page.url()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`${page.url()}: ${error.message}`));
  return errors;
}

/** A customer message through the public API; resolves to the chat's id once the agent's reply (if any) is stored. */
async function customerSays(channelId: string, externalChatId: string, senderName: string, text: string): Promise<string> {
  const res = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
    headers: { authorization: owner.key },
    body: { channel: 'custom', channelId, externalChatId, role: 'user', text, senderName },
  });
  assert.equal(res.status, 201, res.text);
  return eventually(async () => {
    const list = await t.console<{ chats: { id: string; chatId: string; channelId: string }[] }>(owner.token, 'GET', '/chat/all-chats/');
    const chat = list.body.chats.find((c) => c.chatId === externalChatId && c.channelId === channelId);
    if (!chat) return undefined;
    const messages = await t.console<{ messages: { role: string }[] }>(owner.token, 'GET', `/chat/messages/${chat.id}/`);
    return messages.body.messages.some((m) => m.role === 'assistant') ? chat.id : undefined;
  }, WAIT);
}

async function markDone(chatId: string): Promise<void> {
  const res = await t.console(owner.token, 'POST', `/chat/status/${chatId}/`, { body: { status: 'done' } });
  assert.equal(res.status, 200, res.text);
}

/** The figure's link, by its accessible name `<name>: <value>`. */
function figure(page: Page, name: string) {
  return page.getByRole('link', { name, exact: true });
}

describe('reports in the web account', browserTests, () => {
  before(async () => {
    t = await startTestApp();
    browser = await launchBrowser();
    owner = await t.createConsoleUser();
    const base = await t.console<{ id: string }>(owner.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ', language: 'en' } });
    await t.console(owner.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, { body: { question: QUESTION, answer: ANSWER } });
    for (const name of ['Shop', 'Support'] as const) {
      const channel = await t.console<{ id: string }>(owner.token, 'POST', '/channel/custom/connect/', { body: { name, knowledgeBaseId: base.body.id } });
      assert.equal(channel.status, 201, channel.text);
      channels[name === 'Shop' ? 'shop' : 'support'] = channel.body.id;
    }
    // Shop: Alice's question the agent answers (resolved by the agent); Bob's, after which a member replies (the team).
    chats.alice = await customerSays(channels.shop, 'alice', 'Alice Agent', QUESTION);
    await markDone(chats.alice);
    chats.bob = await customerSays(channels.shop, 'bob', 'Bob Team', QUESTION);
    const reply = await t.console(owner.token, 'POST', `/chat/messages/${chats.bob}/`, { body: { text: 'Also to Norway, Bob.' } });
    assert.equal(reply.status, 201, reply.text);
    await markDone(chats.bob);
    // Support: Carol asks for a person (handed off); Dave's conversation is still open.
    chats.carol = await customerSays(channels.support, 'carol', 'Carol Person', 'Can I talk to a real person please?');
    await markDone(chats.carol);
    chats.dave = await customerSays(channels.support, 'dave', 'Dave Open', QUESTION);
    await eventually(async () => {
      const day = new Date().toISOString().slice(0, 10);
      const res = await t.console<Summary>(owner.token, 'GET', '/reports/summary', { query: { from: day, to: day } });
      const { resolvedByAgent, resolvedByTeam, handedOff, open } = res.body.outcomes;
      return res.body.conversations === 4 && resolvedByAgent === 1 && resolvedByTeam === 1 && handedOff === 1 && open === 1;
    }, WAIT);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('figures, a figure’s conversations, the filters and the CSV', async (ctx) => {
    const { page } = await browser.newPage();
    const errors = consoleErrorsOf(page);
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, `${t.url}/overview`, owner.email, PASSWORD);
      await page.getByRole('link', { name: 'Reports', exact: true }).click();
      await page.getByRole('heading', { name: 'Reports', exact: true }).waitFor({ timeout: WAIT });
      await figure(page, 'Conversations: 4').waitFor({ timeout: WAIT });
      for (const name of [
        'Resolved by the agent: 1',
        'Resolved by the team: 1',
        'Handed off: 1',
        'The customer asked for a person: 1',
        'Unanswered: 0',
        'Still open: 1',
        // Of the 3 that ended: Alice's by the agent, Carol's handed off.
        'Agent resolution rate: 33.3%',
        'Handoff rate: 33.3%',
        // Nobody rated: no average, a dash.
        'Rated the agent, average of 5: —',
        'Answered after a choice: 0',
      ]) {
        assert.equal(await figure(page, name).count(), 1, name);
      }
      await page.getByRole('img', { name: /^Conversations per day, .*: 4 in all, the most 4 on / }).waitFor({ timeout: WAIT });
      const perChannel = page.getByRole('table', { name: 'Per channel', exact: true });
      assert.deepEqual(await perChannel.getByRole('row').filter({ hasText: 'Shop' }).getByRole('cell').allInnerTexts(), ['2', '1', '50%']);
      assert.deepEqual(await perChannel.getByRole('row').filter({ hasText: 'Support' }).getByRole('cell').allInnerTexts(), ['2', '0', '0%']);
      const noNaN = await page.getByRole('main').innerText();
      assert.ok(!noNaN.includes('NaN'), noNaN);

      // A figure's conversations, and from one of them its chat in the Inbox.
      await figure(page, 'Resolved by the agent: 1').click();
      const ledger = page.getByRole('table', { name: 'Conversations', exact: true });
      const alice = ledger.getByRole('link', { name: 'Alice Agent', exact: true });
      await alice.waitFor({ timeout: WAIT });
      assert.equal(await ledger.getByRole('row').count(), 2); // the header and Alice's
      await alice.click();
      await page.waitForURL(`${t.url}/inbox/${chats.alice}`, { timeout: WAIT });
      await page.getByRole('log').getByText(ANSWER).waitFor({ timeout: WAIT });

      // Back on the report, the Support channel only.
      await page.getByRole('link', { name: 'Reports', exact: true }).click();
      await figure(page, 'Conversations: 4').waitFor({ timeout: WAIT });
      await page.getByRole('combobox', { name: 'Channel', exact: true }).selectOption({ label: 'Support' });
      await figure(page, 'Conversations: 2').waitFor({ timeout: WAIT });
      for (const name of ['Resolved by the agent: 0', 'Handed off: 1', 'Still open: 1', 'Agent resolution rate: 0%', 'Handoff rate: 100%']) {
        assert.equal(await figure(page, name).count(), 1, name);
      }
      await figure(page, 'Handed off: 1').click();
      await ledger.getByRole('link', { name: 'Carol Person', exact: true }).waitFor({ timeout: WAIT });
      assert.equal(await ledger.getByRole('row').count(), 2);
      await page.goBack();
      await figure(page, 'Conversations: 2').waitFor({ timeout: WAIT });
      // A figure its outcome cannot name: the server keeps the conversations it counts (the ledger's `only`).
      await figure(page, 'The customer asked for a person: 1').click();
      await ledger.getByRole('link', { name: 'Carol Person', exact: true }).waitFor({ timeout: WAIT });
      assert.equal(await ledger.getByRole('row').count(), 2);
      await page.goBack();
      await figure(page, 'Conversations: 2').waitFor({ timeout: WAIT });

      // The CSV of what the filters select: Support's two conversations.
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV', exact: true }).click()]);
      const lines = (await readFile(await download.path(), 'utf8')).trim().split(/\r?\n/);
      assert.equal(lines.length, 3, lines.join('\n'));
      const header = lines[0]?.split(',') ?? [];
      assert.deepEqual(header.slice(0, 7), ['id', 'chatId', 'channelId', 'customerName', 'startedAt', 'endedAt', 'outcome']);
      const rows = lines.slice(1).map((line) => Object.fromEntries(line.split(',').map((cell, i) => [header[i], cell])));
      assert.deepEqual(rows.map((r) => [r.chatId, r.channelId, r.customerName, r.outcome]).sort(), [
        [chats.carol, channels.support, 'Carol Person', 'handed_off'],
        [chats.dave, channels.support, 'Dave Open', 'open'],
      ].sort());

      // The member filter: the owner replied in Bob's conversation only.
      await page.getByRole('combobox', { name: 'Channel', exact: true }).selectOption({ value: '' });
      const members = await t.console<{ members: { id: string; role: string }[] }>(owner.token, 'GET', '/members/');
      const ownerId = members.body.members.find((m) => m.role === 'owner')?.id ?? '';
      await page.getByRole('combobox', { name: 'Member', exact: true }).selectOption({ value: ownerId });
      await figure(page, 'Conversations: 1').waitFor({ timeout: WAIT });
      assert.equal(await figure(page, 'Resolved by the team: 1').count(), 1);

      // A window without conversations: counts 0, rates, times and averages a dash.
      await page.goto(`${t.url}/reports?from=2020-01-01&to=2020-01-31`);
      await figure(page, 'Conversations: 0').waitFor({ timeout: WAIT });
      for (const name of ['Agent resolution rate: —', 'Handoff rate: —', 'First response of the agent, median: —', 'Resolution time, 90th percentile: —']) {
        assert.equal(await figure(page, name).count(), 1, name);
      }
      assert.equal(await page.getByRole('combobox', { name: 'Member', exact: true }).inputValue(), '');
      await page.waitForLoadState('networkidle');
      assert.deepEqual(errors, []);
    });
  });
});
