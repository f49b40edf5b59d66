// Replay and knowledge gaps in the web account (issue #37): on a channel's page `Test on past conversations` replays
// the channel's history (progress, then the summary and the items with `Right` / `Wrong`, filtered by verdict); on a
// knowledge base's page the `Gaps` tab lists the unanswered questions and `Create entry` opens the entry form
// prefilled with the question and the team's most common reply. An agent-role member is offered neither control.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { browserTests, launchBrowser, signIn, withScreenshotOnFailure, type TestBrowser } from './support/browser.ts';
import { eventually } from './support/events.ts';
import { PASSWORD, PUBLIC_URL, startTestApp, type TestApp } from './support/harness.ts';

const WAIT = 30_000;
let t: TestApp;
let browser: TestBrowser;

describe('replay and gaps in the web account', browserTests, () => {
  before(async () => {
    browser = await launchBrowser();
    t = await startTestApp();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('Test on past conversations, Right / Wrong, the Gaps tab and Create entry', async (ctx) => {
    const user = await t.createConsoleUser();
    const base = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ', language: 'en' } });
    const entry = { question: 'How long does shipping take?', answer: 'Shipping takes 3 to 5 business days.' };
    assert.equal((await t.console(user.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, { body: entry })).status, 201);
    const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
      body: { name: 'Shop', knowledgeBaseId: base.body.id, handoffAfterFallbacks: 0, clarifyChoices: 0 },
    });
    assert.equal(channel.status, 201, channel.text);
    const converse = async (chat: string, question: string, reply: string) => {
      const res = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
        headers: { authorization: user.key },
        body: { channel: 'custom', channelId: channel.body.id, externalChatId: chat, role: 'user', text: question },
      });
      assert.equal(res.status, 201, res.text);
      const list = await t.api<{ chats: { id: string; chatId: string }[] }>(user.key, '/chats/chat', { channelId: channel.body.id });
      const chatId = list.body.chats.find((c) => c.chatId === chat)?.id ?? '';
      // The agent's own reply first (the answer, or its fallback), then the team's.
      await eventually(async () => {
        const messages = await t.console<{ messages: { role: string }[] }>(user.token, 'GET', `/chat/messages/${chatId}/`);
        return messages.body.messages.some((m) => m.role === 'assistant') ? true : undefined;
      }, WAIT);
      assert.equal((await t.console(user.token, 'POST', `/chat/messages/${chatId}/`, { body: { text: reply } })).status, 201);
    };
    await converse('a', entry.question, entry.answer);
    await converse('b', 'Can I pay with bitcoin?', 'No, we do not take bitcoin.');

    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, `${t.url}/channels/custom/${encodeURIComponent(channel.body.id)}`, user.email, PASSWORD);
      await page.getByRole('button', { name: 'Test on past conversations', exact: true }).click();
      await page.getByRole('button', { name: 'Start replay', exact: true }).click();
      const table = page.getByRole('table', { name: 'Replayed questions' });
      const shipping = table.getByRole('row', { name: entry.question, exact: true });
      await shipping.getByText(entry.answer, { exact: true }).first().waitFor({ timeout: WAIT });
      await shipping.getByText('Agrees with the team', { exact: true }).waitFor({ timeout: WAIT });
      const bitcoin = table.getByRole('row', { name: 'Can I pay with bitcoin?', exact: true });
      await bitcoin.getByText('Fell back', { exact: true }).waitFor({ timeout: WAIT });
      await shipping.getByRole('button', { name: 'Right', exact: true }).click();
      const summary = page.getByRole('definition').filter({ hasText: '100 %' });
      await summary.waitFor({ timeout: WAIT });
      assert.equal(await shipping.getByRole('button', { name: 'Right', exact: true }).getAttribute('aria-pressed'), 'true');
      // Filtered by verdict: only the fallback is left.
      await page.getByRole('combobox', { name: 'Verdict', exact: true }).selectOption('fell_back');
      await eventually(async () => ((await table.getByRole('row', { name: entry.question, exact: true }).count()) === 0 ? true : undefined), WAIT);
      await bitcoin.waitFor({ timeout: WAIT });

      // The Gaps tab: the unanswered question, and Create entry prefilled.
      await page.goto(`${t.url}/knowledge-bases/${base.body.id}`);
      await page.getByRole('tab', { name: 'Gaps', exact: true }).click();
      const group = page.getByRole('listitem', { name: 'Can I pay with bitcoin?', exact: true });
      await group.getByText('No, we do not take bitcoin.', { exact: true }).waitFor({ timeout: WAIT });
      await group.getByRole('button', { name: 'Create entry', exact: true }).click();
      const form = page.getByRole('form', { name: 'Add entry' });
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
    const { page: agentPage } = await browser.newPage();
    await withScreenshotOnFailure(ctx, agentPage, async () => {
      await signIn(agentPage, `${t.url}/channels/custom/${encodeURIComponent(channel.body.id)}`, email, PASSWORD);
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
