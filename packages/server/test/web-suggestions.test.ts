// Reply suggestions and the handoff summary in the Inbox, in a real browser (issue #44): in a chat the agent handed to
// the team, the latest handoff summary is pinned above the history, and the suggestions above the composer carry
// their source's label; `Use` puts one in the reply box and nothing is sent.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { browserTests } from './support/browser.ts';
import { sendCustomerMessage, webSuite } from './support/web-suite.ts';

const WAIT = 20_000;
const HOURS = 'We are open from 10:00 to 22:00 every day.';
const SAVED = 'Our opening hours are 10:00 to 22:00, weekends included.';

describe('Inbox: reply suggestions and the handoff summary', browserTests, () => {
  const web = webSuite();

  test('Use fills the reply box with a suggestion; nothing is sent; the summary is pinned above the history', async (ctx) => {
    const { t } = web;
    const user = await t.createConsoleUser();
    const base = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name: 'Facts', language: 'en' } });
    assert.equal(base.status, 201, base.text);
    const entry = await t.console(user.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, { body: { question: 'What are your opening hours?', answer: HOURS } });
    assert.equal(entry.status, 201, entry.text);
    const saved = await t.console(user.token, 'POST', '/canned-responses/', { body: { shortCode: 'hours', text: SAVED } });
    assert.equal(saved.status, 201, saved.text);
    const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
      body: { name: 'Support', knowledgeBaseId: base.body.id, handoffMessage: 'A person from our team will reply here.' },
    });
    assert.equal(channel.status, 201, channel.text);
    const say = (text: string) => sendCustomerMessage(t, user.key, { channelId: channel.body.id, externalChatId: 'h1', text, senderName: 'Hana Hours' });
    // A request for a person hands the chat over; then the customer asks what the knowledge covers.
    await say('I want to talk to a human');
    await say('What are your opening hours on weekends?');

    await web.signedIn(ctx, `${t.url}/inbox`, user.email, async (page) => {
      const item = page.getByRole('list', { name: 'Chats', exact: true }).getByRole('button').filter({ hasText: 'Hana Hours' });
      await item.waitFor({ timeout: WAIT });
      await item.click();
      const pinned = page.getByRole('complementary', { name: 'Handoff summary', exact: true });
      await pinned.getByText(/Reason: the customer asked for a person/).waitFor({ timeout: WAIT });
      assert.match(await pinned.innerText(), /Request: I want to talk to a human/);

      const suggestions = page.getByRole('region', { name: 'Suggestions', exact: true });
      const knowledge = suggestions.getByRole('listitem', { name: 'Knowledge suggestion', exact: true });
      await knowledge.waitFor({ timeout: WAIT });
      assert.match(await knowledge.innerText(), new RegExp(`Knowledge[\\s\\S]*${HOURS.replaceAll('.', '\\.')}`));
      const savedReply = suggestions.getByRole('listitem', { name: 'Saved reply suggestion', exact: true });
      assert.match(await savedReply.innerText(), /Saved reply[\s\S]*weekends included/);

      const list = await t.console<{ chats: { id: string }[] }>(user.token, 'GET', '/chat/all-chats/', { query: { channelId: channel.body.id } });
      const chatId = list.body.chats[0]?.id;
      assert.ok(chatId);
      const before = await t.console<{ messages: { kind: string }[] }>(user.token, 'GET', `/chat/messages/${chatId}/`);

      await knowledge.getByRole('button', { name: 'Use', exact: true }).click();
      const box = page.getByRole('textbox', { name: 'Reply', exact: true });
      assert.equal(await box.inputValue(), HOURS);
      await savedReply.getByRole('button', { name: 'Use', exact: true }).click();
      assert.equal(await box.inputValue(), SAVED);

      // Nothing went to the customer: the history is what it was.
      const afterwards = await t.console<{ messages: { kind: string }[] }>(user.token, 'GET', `/chat/messages/${chatId}/`);
      assert.deepEqual(afterwards.body, before.body);
      assert.equal(await page.getByRole('log').getByText(SAVED).count(), 0);
    });
  });
});
