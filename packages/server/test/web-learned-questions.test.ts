// The phrasings customers chose (clarifying choices) in the web account: under the entry, `Keep` moves one into the
// entry's synonyms and `Discard` drops it; the knowledge page shows both at once; the Overview counts the answers
// given after a pick apart from direct answers.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { browserTests, launchBrowser, signIn, withScreenshotOnFailure, type TestBrowser } from './support/browser.ts';
import { eventually } from './support/events.ts';
import { PASSWORD, startTestApp, type TestApp } from './support/harness.ts';

const WAIT = 15_000;
let t: TestApp;
let browser: TestBrowser;

describe('learned phrasings in the web account', browserTests, () => {
  before(async () => {
    browser = await launchBrowser();
    t = await startTestApp();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('Keep and Discard under the entry', async (ctx) => {
    const user = await t.createConsoleUser();
    const base = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ', language: 'en' } });
    const entries = [
      { question: 'How long does shipping take?', answer: 'Shipping takes 3 to 5 business days.' },
      { question: 'How much does shipping cost?', answer: 'Shipping is free above 50 euros.' },
    ];
    for (const body of entries) assert.equal((await t.console(user.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, { body })).status, 201);
    const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
      body: { name: 'Shop', knowledgeBaseId: base.body.id, agentEngine: { kind: 'knowledge-base', answerThreshold: 1 } },
    });
    assert.equal(channel.status, 201, channel.text);
    const send = async (chat: string, text: string) => {
      const res = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
        headers: { authorization: user.key },
        body: { channel: 'custom', channelId: channel.body.id, externalChatId: chat, role: 'user', text },
      });
      assert.equal(res.status, 201, res.text);
    };
    /** The options offered in the chat, once the clarification is stored. */
    const offered = (chat: string) =>
      eventually(async () => {
        const [row] = await queryRows<{ choices: { options: { label: string }[] } | null }>(
          t.database.db,
          sql`select m.choices from messages m join chats c on c.id = m.chat_id where c.channel_id = ${channel.body.id} and c.external_chat_id = ${chat} and m.choices is not null`,
        );
        return row?.choices?.options.map((option) => option.label);
      }, WAIT);
    for (const [chat, phrasing, question] of [['a', 'shipping', entries[0]?.question], ['b', 'shipping?!', entries[1]?.question], ['c', 'ship', entries[1]?.question]] as const) {
      await send(chat, phrasing);
      const labels = await offered(chat);
      await send(chat, String(labels.indexOf(question ?? '') + 1));
    }
    await eventually(async () => {
      const res = await t.console<{ entries: { learnedQuestions: unknown[] }[] }>(user.token, 'GET', `/knowledge-bases/${base.body.id}/entries`);
      return res.body.entries.reduce((sum, entry) => sum + entry.learnedQuestions.length, 0) === 3;
    }, WAIT);

    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, `${t.url}/knowledge-bases/${base.body.id}`, user.email, PASSWORD);
      const card = (question: string) => page.getByRole('listitem').filter({ has: page.getByText(question, { exact: true }) }).first();
      const cost = card(entries[1]?.question ?? '');
      await cost.getByText('×1').first().waitFor({ timeout: WAIT });
      const ship = cost.getByRole('listitem').filter({ hasText: 'ship' }).filter({ hasNotText: 'shipping' });
      await ship.getByRole('button', { name: 'Keep', exact: true }).click();
      await cost.getByText('ship', { exact: true }).waitFor({ timeout: WAIT });
      await eventually(async () => (await ship.count()) === 0, WAIT);
      const time = card(entries[0]?.question ?? '');
      await time.getByRole('button', { name: 'Discard', exact: true }).click();
      await eventually(async () => (await time.getByRole('button', { name: 'Discard', exact: true }).count()) === 0, WAIT);

      // The Overview counts the three answers given after a pick apart from direct answers (issue #35, item 5).
      await page.getByRole('link', { name: 'Overview', exact: true }).click();
      await page.getByText('0 answered · 3 answered after a choice', { exact: false }).waitFor({ timeout: WAIT });
      const perDay = page.getByRole('table', { name: 'Agent replies per day' });
      await perDay.getByRole('columnheader', { name: 'After a choice', exact: true }).waitFor({ timeout: WAIT });
      assert.deepEqual(await perDay.getByRole('row').nth(1).getByRole('cell').allInnerTexts(), ['0', '3', '0', '0']);
    });
    const res = await t.console<{ entries: { question: string; synonyms: string[]; learnedQuestions: { text: string }[] }[] }>(
      user.token,
      'GET',
      `/knowledge-bases/${base.body.id}/entries`,
    );
    const byQuestion = new Map(res.body.entries.map((entry) => [entry.question, entry]));
    assert.deepEqual(byQuestion.get(entries[1]?.question ?? '')?.synonyms, ['ship']);
    assert.deepEqual(byQuestion.get(entries[1]?.question ?? '')?.learnedQuestions.map((q) => q.text), ['shipping?!']);
    assert.deepEqual(byQuestion.get(entries[0]?.question ?? '')?.learnedQuestions, []);
    assert.deepEqual(byQuestion.get(entries[0]?.question ?? '')?.synonyms, []);
  });
});
