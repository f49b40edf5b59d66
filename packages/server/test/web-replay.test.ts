// Replay and knowledge gaps in the web account (issue #37): on a channel's page `Test on past conversations` replays
// the channel's history (progress, then the summary and the items with `Right` / `Wrong`, filtered by verdict); on a
// knowledge base's page the `Gaps` tab lists the unanswered questions and `Create entry` opens the entry form
// prefilled with the question and the team's most common reply. An agent-role member is offered neither control.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { browserTests } from './support/browser.ts';
import { eventually } from './support/events.ts';
import { PASSWORD, PUBLIC_URL } from './support/harness.ts';
import { sendCustomerMessage, webSuite } from './support/web-suite.ts';

const WAIT = 30_000;

describe('replay and gaps in the web account', browserTests, () => {
  const web = webSuite();

  test('Test on past conversations, Right / Wrong, the Gaps tab and Create entry', async (ctx) => {
    const { t } = web;
    const user = await t.createConsoleUser();
    const base = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ', language: 'en' } });
    const entry = { question: 'How long does shipping take?', answer: 'Shipping takes 3 to 5 business days.' };
    assert.equal((await t.console(user.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, { body: entry })).status, 201);
    const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
      body: { name: 'Shop', knowledgeBaseId: base.body.id, handoffAfterFallbacks: 0, clarifyChoices: 0 },
    });
    assert.equal(channel.status, 201, channel.text);
    const converse = async (chat: string, question: string, reply: string | null) => {
      await sendCustomerMessage(t, user.key, { channelId: channel.body.id, externalChatId: chat, text: question });
      const list = await t.api<{ chats: { id: string; chatId: string }[] }>(user.key, '/chats/chat', { channelId: channel.body.id });
      const chatId = list.body.chats.find((c) => c.chatId === chat)?.id ?? '';
      // The agent's own reply first (the answer, or its fallback), then the team's.
      await eventually(async () => {
        const messages = await t.console<{ messages: { role: string }[] }>(user.token, 'GET', `/chat/messages/${chatId}/`);
        return messages.body.messages.some((m) => m.role === 'assistant') ? true : undefined;
      }, WAIT);
      if (reply !== null) assert.equal((await t.console(user.token, 'POST', `/chat/messages/${chatId}/`, { body: { text: reply } })).status, 201);
    };
    await converse('a', entry.question, entry.answer);
    // The member's reply greets the customer and signs: the entry made of it does neither.
    const bitcoinReply = 'Hi Dana, no, we do not take bitcoin.\n— Sam';
    await converse('b', 'Can I pay with bitcoin?', bitcoinReply);
    // No member replied to this one.
    await converse('c', 'Do you sell hats?', null);

    await web.signedIn(ctx, `${t.url}/channels/custom/${encodeURIComponent(channel.body.id)}`, user.email, async (page) => {
      await page.getByRole('button', { name: 'Test on past conversations', exact: true }).click();
      await page.getByRole('button', { name: 'Start replay', exact: true }).click();
      const table = page.getByRole('table', { name: 'Replayed questions' });
      const shipping = table.getByRole('row', { name: entry.question, exact: true });
      await shipping.getByText(entry.answer, { exact: true }).first().waitFor({ timeout: WAIT });
      await shipping.getByText('Agrees with the team', { exact: true }).waitFor({ timeout: WAIT });
      const bitcoin = table.getByRole('row', { name: 'Can I pay with bitcoin?', exact: true });
      await bitcoin.getByText('Fell back', { exact: true }).waitFor({ timeout: WAIT });
      await shipping.getByRole('button', { name: 'Right', exact: true }).click();
      // The summary is laid out as the Reports page's cards; a fallback's `Wrong` is counted apart from the precision.
      const summary = page.getByRole('group', { name: 'Replay summary', exact: true });
      const precision = summary.getByRole('region', { name: 'Estimated precision', exact: true });
      await precision.getByRole('group', { name: 'Estimated precision: 100%', exact: true }).waitFor({ timeout: WAIT });
      assert.equal(await shipping.getByRole('button', { name: 'Right', exact: true }).getAttribute('aria-pressed'), 'true');
      await bitcoin.getByRole('button', { name: 'Wrong', exact: true }).click();
      await summary.getByRole('region', { name: 'Other marks', exact: true }).getByRole('group', { name: 'Other replies marked wrong: 1', exact: true }).waitFor({ timeout: WAIT });
      await precision.getByRole('group', { name: 'Marked wrong: 0', exact: true }).waitFor({ timeout: WAIT });
      await precision.getByRole('group', { name: 'Estimated precision: 100%', exact: true }).waitFor({ timeout: WAIT });
      await summary.getByRole('region', { name: 'Replies', exact: true }).getByRole('group', { name: 'Questions: 2', exact: true }).waitFor({ timeout: WAIT });
      assert.equal(await page.locator('.replay-stats > section.card.figures').count(), 3);
      // Filtered by verdict: only the fallback is left.
      await page.getByRole('combobox', { name: 'Verdict', exact: true }).selectOption('fell_back');
      await eventually(async () => ((await table.getByRole('row', { name: entry.question, exact: true }).count()) === 0 ? true : undefined), WAIT);
      await bitcoin.waitFor({ timeout: WAIT });

      // The Gaps tab: the unanswered question, and Create entry prefilled.
      await page.goto(`${t.url}/knowledge-bases/${base.body.id}`);
      await page.getByRole('tab', { name: 'Gaps', exact: true }).click();
      // A group no member replied to says so; its Create entry leaves the answer empty.
      const hats = page.getByRole('listitem', { name: 'Do you sell hats?', exact: true });
      await hats.getByText('No team reply yet.', { exact: true }).waitFor({ timeout: WAIT });
      await hats.getByRole('button', { name: 'Create entry', exact: true }).click();
      const form = page.getByRole('form', { name: 'Add entry' });
      assert.equal(await form.getByRole('textbox', { name: 'Question', exact: true }).inputValue(), 'Do you sell hats?');
      assert.equal(await form.getByRole('textbox', { name: 'Answer', exact: true }).inputValue(), '');
      const group = page.getByRole('listitem', { name: 'Can I pay with bitcoin?', exact: true });
      await group.getByRole('list', { name: 'Team replies', exact: true }).getByText('Hi Dana, no, we do not take bitcoin.', { exact: false }).waitFor({ timeout: WAIT });
      assert.equal(await group.getByText('No team reply yet.', { exact: true }).count(), 0);
      await group.getByRole('button', { name: 'Create entry', exact: true }).click();
      assert.equal(await form.getByRole('textbox', { name: 'Question', exact: true }).inputValue(), 'Can I pay with bitcoin?');
      assert.equal(await form.getByRole('textbox', { name: 'Answer', exact: true }).inputValue(), 'No, we do not take bitcoin.');
      await form.getByRole('button', { name: 'Add entry', exact: true }).click();
      await eventually(async () => {
        const res = await t.console<{ entries: { question: string; answer: string }[] }>(user.token, 'GET', `/knowledge-bases/${base.body.id}/entries`);
        return res.body.entries.some((e) => e.question === 'Can I pay with bitcoin?' && e.answer === 'No, we do not take bitcoin.') ? true : undefined;
      }, WAIT);
    });

    // An agent-role member is offered neither control.
    const email = `replay-agent-${process.pid}@example.com`;
    const invite = await t.console<{ inviteUrl: string }>(user.token, 'POST', '/members/invite/', { body: { email, role: 'agent' } });
    assert.equal(invite.status, 201, invite.text);
    const accepted = await t.console(undefined, 'POST', '/auth/accept-invite', {
      body: { token: invite.body.inviteUrl.slice(`${PUBLIC_URL}/invite/`.length), name: 'Ann', password: PASSWORD },
    });
    assert.equal(accepted.status, 200, accepted.text);
    await web.signedIn(ctx, `${t.url}/channels/custom/${encodeURIComponent(channel.body.id)}`, email, async (agentPage) => {
      await agentPage.getByRole('checkbox', { name: 'Disable agent responses', exact: true }).waitFor({ timeout: WAIT });
      assert.equal(await agentPage.getByRole('button', { name: 'Test on past conversations', exact: true }).count(), 0);
      await agentPage.goto(`${t.url}/knowledge-bases/${base.body.id}`);
      await agentPage.getByRole('tab', { name: 'Gaps', exact: true }).click();
      await agentPage.getByRole('list', { name: 'Gap groups', exact: true }).waitFor({ timeout: WAIT });
      await agentPage.getByRole('listitem', { name: 'Can I pay with bitcoin?', exact: true }).waitFor({ timeout: WAIT });
      assert.equal(await agentPage.getByRole('button', { name: 'Create entry', exact: true }).count(), 0);
    });
  });
});
