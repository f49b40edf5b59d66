// The phrasings customers chose (clarifying choices) in the web account: under the entry, `Keep` moves one into the
// entry's synonyms and `Discard` drops it; the knowledge page shows both at once; the Overview counts the answers
// given after a pick apart from direct answers. Each phrasing says how many different customers chose it (plurals in
// English and Russian) and warns, naming the other entries, when it is as close to them.
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

  /** A base with the entries, a knowledge-base channel that always asks (answerThreshold 1), and a customer. */
  async function shop(entries: { question: string; answer: string }[]) {
    const user = await t.createConsoleUser();
    const base = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ', language: 'en' } });
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
    /** The options of the chat's `nth` clarification, once it is stored. */
    const offered = (chat: string, nth: number) =>
      eventually(async () => {
        const rows = await queryRows<{ choices: { options: { label: string }[] } | null }>(
          t.database.db,
          sql`select m.choices from messages m join chats c on c.id = m.chat_id where c.channel_id = ${channel.body.id} and c.external_chat_id = ${chat} and m.choices is not null order by m.created_at, m.id`,
        );
        return rows[nth - 1]?.choices?.options.map((option) => option.label);
      }, WAIT);
    /** The agent's answers to picks in the chat so far. */
    const answersToPicks = async (chat: string) => {
      const [row] = await queryRows<{ count: number }>(
        t.database.db,
        sql`select count(*)::int as count from messages m join chats c on c.id = m.chat_id where c.channel_id = ${channel.body.id} and c.external_chat_id = ${chat} and m.after_choice`,
      );
      return row?.count ?? 0;
    };
    const asked = new Map<string, number>();
    /**
     * In the chat, the customer asks `phrasing`, picks the option that is `question` and waits for its answer (a
     * question sent before it would be read with the pick as one burst).
     */
    const pick = async (chat: string, phrasing: string, question: string) => {
      await send(chat, phrasing);
      const nth = (asked.get(chat) ?? 0) + 1;
      asked.set(chat, nth);
      const labels = await offered(chat, nth);
      assert.ok(labels.includes(question), `${question} offered for ${phrasing}: ${labels.join(' / ')}`);
      await send(chat, String(labels.indexOf(question) + 1));
      await eventually(async () => (await answersToPicks(chat)) === nth, WAIT);
    };
    /** Waits until the base's entries have this many learned phrasings in all. */
    const learned = (count: number) =>
      eventually(async () => {
        const res = await t.console<{ entries: { learnedQuestions: unknown[] }[] }>(user.token, 'GET', `/knowledge-bases/${base.body.id}/entries`);
        return res.body.entries.reduce((sum, entry) => sum + entry.learnedQuestions.length, 0) === count;
      }, WAIT);
    return { user, baseId: base.body.id, pick, learned };
  }

  test('Keep and Discard under the entry', async (ctx) => {
    const entries = [
      { question: 'How long does shipping take?', answer: 'Shipping takes 3 to 5 business days.' },
      { question: 'How much does shipping cost?', answer: 'Shipping is free above 50 euros.' },
    ];
    const { user, baseId, pick, learned } = await shop(entries);
    const base = { body: { id: baseId } };
    for (const [chat, phrasing, question] of [['a', 'shipping', entries[0]?.question], ['b', 'shipping?!', entries[1]?.question], ['c', 'ship', entries[1]?.question]] as const) {
      await pick(chat, phrasing, question ?? '');
    }
    await learned(3);

    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, `${t.url}/knowledge-bases/${base.body.id}`, user.email, PASSWORD);
      const card = (question: string) => page.getByRole('listitem').filter({ has: page.getByText(question, { exact: true }) }).first();
      const cost = card(entries[1]?.question ?? '');
      await cost.getByText('chosen by 1 customer', { exact: true }).first().waitFor({ timeout: WAIT });
      const ship = cost.getByRole('listitem').filter({ has: page.getByText('ship', { exact: true }) });
      await ship.getByRole('button', { name: 'Keep', exact: true }).click();
      await cost.getByText('ship', { exact: true }).waitFor({ timeout: WAIT });
      await eventually(async () => (await ship.count()) === 0, WAIT);
      const time = card(entries[0]?.question ?? '');
      await time.getByRole('button', { name: 'Discard', exact: true }).click();
      await eventually(async () => (await time.getByRole('button', { name: 'Discard', exact: true }).count()) === 0, WAIT);

      // The Overview counts the three answers given after a pick apart from direct answers (issue #35, item 5), and
      // the three clarifying questions that offered the picks beside them (issue #42, item 7).
      await page.getByRole('link', { name: 'Overview', exact: true }).click();
      await page.getByText('0 direct answers · 3 answers after a choice · 3 clarifying questions', { exact: false }).waitFor({ timeout: WAIT });
      const perDay = page.getByRole('table', { name: 'Agent replies per day' });
      await perDay.getByRole('columnheader', { name: 'After a choice', exact: true }).waitFor({ timeout: WAIT });
      assert.deepEqual(await perDay.getByRole('row').nth(1).getByRole('cell').allInnerTexts(), ['0', '3', '3', '0', '0']);
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

  test('how many different customers chose a phrasing, and a warning naming the other entry it is as close to (English, Russian)', async (ctx) => {
    const entries = [
      { question: 'How long does shipping take?', answer: 'Shipping takes 3 to 5 business days.' },
      { question: 'How much does shipping cost?', answer: 'Shipping is free above 50 euros.' },
      { question: 'Do you sell gift cards?', answer: 'Yes, from 10 to 200 euros.' },
    ];
    const [time, cost, gift] = entries.map((entry) => entry.question) as [string, string, string];
    const { user, baseId, pick } = await shop(entries);
    // Two customers choose the delivery time for "shipping"; one of them asked it twice. A third chose the cost for
    // the same phrasing: it is as close to both entries.
    await pick('a', 'shipping', time);
    await pick('b', 'shipping', time);
    await pick('b', 'shipping', time);
    await pick('c', 'shipping', cost);
    // Gift cards: one customer, no other entry chose it or is near.
    await pick('d', 'gift cards', gift);
    type Phrasing = { text: string; picks: number; customers: number; competing: { question: string }[] };
    // Every pick recorded: three phrasings, the last one's second pick in chat b counted too.
    const res = await eventually(async () => {
      const found = await t.console<{ entries: { question: string; learnedQuestions: Phrasing[] }[] }>(user.token, 'GET', `/knowledge-bases/${baseId}/entries`);
      const phrasings = found.body.entries.flatMap((entry) => entry.learnedQuestions);
      return phrasings.length === 3 && phrasings.reduce((sum, phrasing) => sum + phrasing.picks, 0) === 5 ? found : undefined;
    }, WAIT);
    const api = new Map(res.body.entries.map((entry) => [entry.question, entry.learnedQuestions]));
    assert.deepEqual(api.get(time)?.map(({ text, picks, customers }) => ({ text, picks, customers })), [{ text: 'shipping', picks: 3, customers: 2 }]);
    assert.deepEqual(api.get(time)?.[0]?.competing.map((other) => other.question), [cost]);
    assert.deepEqual(api.get(cost)?.[0]?.competing.map((other) => other.question), [time]);

    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, `${t.url}/knowledge-bases/${baseId}`, user.email, PASSWORD);
      const card = (question: string) => page.getByRole('listitem').filter({ has: page.getByText(question, { exact: true }) }).first();
      const phrasing = (question: string, text: string) => card(question).getByRole('listitem').filter({ has: page.getByText(text, { exact: true }) });
      const timeItem = phrasing(time, 'shipping');
      await timeItem.getByText('chosen by 2 customers (3 times)', { exact: true }).waitFor({ timeout: WAIT });
      const warning = `Also close to: “${cost}”; kept, it will still be asked as a choice while it stays ambiguous.`;
      await timeItem.getByText(warning, { exact: true }).waitFor({ timeout: WAIT });
      // The warning describes the Keep button it is about.
      const keep = timeItem.getByRole('button', { name: 'Keep', exact: true });
      const described = await keep.getAttribute('aria-describedby');
      assert.ok(described);
      assert.equal(await page.locator(`[id="${described}"]`).textContent(), warning);
      const costItem = phrasing(cost, 'shipping');
      await costItem.getByText('chosen by 1 customer', { exact: true }).waitFor({ timeout: WAIT });
      await costItem.getByText(`Also close to: “${time}”; kept, it will still be asked as a choice while it stays ambiguous.`, { exact: true }).waitFor({ timeout: WAIT });
      const giftItem = phrasing(gift, 'gift cards');
      await giftItem.getByText('chosen by 1 customer', { exact: true }).waitFor({ timeout: WAIT });
      assert.equal(await giftItem.getByText('Also close to:', { exact: false }).count(), 0);

      // In Russian: the count with its noun's form.
      await page.evaluate(`localStorage.setItem('parley.lang', 'ru')`);
      await page.reload();
      await timeItem.getByText('выбрали: 2 клиента (3 раза)', { exact: true }).waitFor({ timeout: WAIT });
      await costItem.getByText('выбрали: 1 клиент', { exact: true }).waitFor({ timeout: WAIT });
      await timeItem.getByText(`Также близко к: “${cost}”;`, { exact: false }).waitFor({ timeout: WAIT });
    });
  });
});
