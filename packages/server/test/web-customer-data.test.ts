// The customer card's Export data and Erase data in a real browser (issue #45, item 5): an admin downloads the
// customer's zip, then erases them after the confirmation: the history loses its texts, the card its name and e-mail.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, test } from 'node:test';
import { strFromU8, unzipSync } from 'fflate';
import { browserTests } from './support/browser.ts';
import { webSuite } from './support/web-suite.ts';

const WAIT = 20_000;
const SITE = 'https://shop.example';

describe('customer data in the web account', browserTests, () => {
  const web = webSuite();

  test('Export data downloads the zip; Erase data, confirmed, leaves no text, name or e-mail', async (ctx) => {
    const { t } = web;
    const user = await t.createConsoleUser();
    const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/widget/connect/', {
      body: { name: 'Site', disableAgentResponses: true, widget: { allowedOrigins: [SITE] } },
    });
    assert.equal(channel.status, 201, channel.text);
    const session = await t.request<{ token: string }>('POST', '/widget/v1/session', {
      body: { origin: SITE, channelId: channel.body.id, identity: { identifier: 'eve-1', name: 'Eve Erased', email: 'eve@example.com' } },
    });
    assert.equal(session.status, 200, session.text);
    const sent = await t.request('POST', '/widget/v1/messages', { body: { text: 'My address is 7 Oak Lane' }, headers: { authorization: `Bearer ${session.body.token}` } });
    assert.equal(sent.status, 201, sent.text);
    const inbox = await t.console<{ chats: { id: string }[] }>(user.token, 'GET', '/chat/all-chats/');
    const chatId = inbox.body.chats[0]?.id;
    assert.ok(chatId);

    await web.signedIn(ctx, `${t.url}/inbox/${chatId}`, user.email, async (page) => {
      // The card is folded under the chat's head; `Details` unfolds it.
      await page.getByRole('button', { name: 'Details', exact: true }).click({ timeout: WAIT });
      const card = page.getByRole('complementary', { name: 'Customer', exact: true });
      await card.getByLabel('Customer name', { exact: true }).getByText('Eve Erased').waitFor({ timeout: WAIT });
      await page.getByText('My address is 7 Oak Lane').first().waitFor({ timeout: WAIT });

      const [download] = await Promise.all([page.waitForEvent('download'), card.getByRole('button', { name: 'Export data', exact: true }).click()]);
      assert.equal(download.suggestedFilename(), 'customer-data.zip');
      const zip = unzipSync(new Uint8Array(await readFile(await download.path())));
      const doc = JSON.parse(strFromU8(zip['customer.json'] ?? new Uint8Array())) as { chats: { name: string; messages: { text: string }[] }[] };
      assert.deepEqual(doc.chats.map((chat) => [chat.name, chat.messages.map((m) => m.text)]), [['Eve Erased', ['My address is 7 Oak Lane']]]);

      // Dismissed first: nothing happens; then accepted.
      page.once('dialog', (dialog) => void dialog.dismiss());
      await card.getByRole('button', { name: 'Erase data', exact: true }).click();
      const still = await t.console<{ dialogName: string }>(user.token, 'GET', `/chat/info/${chatId}/`);
      assert.equal(still.body.dialogName, 'Eve Erased');
      page.once('dialog', (dialog) => {
        assert.match(dialog.message(), /cannot be undone/);
        void dialog.accept();
      });
      await card.getByRole('button', { name: 'Erase data', exact: true }).click();
      await card.getByText('Erased: 1 chats, 1 messages, 0 files.').waitFor({ timeout: WAIT });
      await card.getByLabel('Customer email', { exact: true }).getByText('not given').waitFor({ timeout: WAIT });
      await page.getByText('My address is 7 Oak Lane').waitFor({ state: 'detached', timeout: WAIT });
      const info = await t.console<{ dialogName: string; email: string | null }>(user.token, 'GET', `/chat/info/${chatId}/`);
      assert.deepEqual([info.body.dialogName, info.body.email], ['', null]);
    });
  });
});
