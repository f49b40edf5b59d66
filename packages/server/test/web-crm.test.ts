// The CRM page of the web account in a real browser, against the fake HubSpot and Pipedrive APIs: a refused token
// shows the CRM's reason, a good one lists the connection; a chat marked done shows as its last sync; Pipedrive
// asks for the company domain; channels are chosen; disconnect. Accessible names: docs/decisions.md (CRM).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { browserTests, launchBrowser, signIn, withScreenshotOnFailure, type TestBrowser } from './support/browser.ts';
import { startFakeHubspot, type FakeHubspot } from './support/fake-hubspot.ts';
import { startFakePipedrive, type FakePipedrive } from './support/fake-pipedrive.ts';
import { PASSWORD, startTestApp, type TestApp } from './support/harness.ts';

const WAIT = 20_000;
const HUBSPOT_TOKEN = 'pat-eu1-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee';
const PIPEDRIVE_TOKEN = '0123456789abcdef0123456789abcdef01234567';

let t: TestApp;
let browser: TestBrowser;
let hubspot: FakeHubspot;
let pipedrive: FakePipedrive;

describe('CRM page in Chromium', browserTests, () => {
  before(async () => {
    [hubspot, pipedrive] = await Promise.all([startFakeHubspot(), startFakePipedrive()]);
    hubspot.addToken(HUBSPOT_TOKEN, 9001);
    pipedrive.addToken(PIPEDRIVE_TOKEN, { name: 'Globex', domain: 'globex' });
    t = await startTestApp({ crmApis: { hubspot: hubspot.url, pipedrive: pipedrive.url } });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await Promise.all([hubspot?.close(), pipedrive?.close()]);
  });

  test('connect HubSpot (a bad token first), see a sync after a chat is done, connect Pipedrive for one channel, disconnect', async (ctx) => {
    const user = await t.createConsoleUser();
    const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
      body: { name: 'Website API', settings: { isActive: false } },
    });
    assert.equal(channel.status, 201, channel.text);
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, `${t.url}/`, user.email, PASSWORD);
      await page.getByRole('link', { name: 'CRM', exact: true }).click();
      await page.getByRole('heading', { name: 'CRM', exact: true }).waitFor({ timeout: WAIT });

      // A token HubSpot does not know: its reason, nothing connected.
      await page.getByRole('combobox', { name: 'CRM', exact: true }).selectOption('hubspot');
      await page.getByRole('textbox', { name: 'Token', exact: true }).fill('pat-eu1-wrong');
      await page.getByRole('button', { name: 'Connect CRM', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'The CRM refused: Authentication credentials not found' }).waitFor({ timeout: WAIT });
      assert.equal(await page.getByRole('button', { name: 'Disconnect', exact: true }).count(), 0);

      await page.getByRole('textbox', { name: 'Token', exact: true }).fill(HUBSPOT_TOKEN);
      await page.getByRole('button', { name: 'Connect CRM', exact: true }).click();
      const card = page.getByRole('article', { name: 'HubSpot: HubSpot portal 9001', exact: true });
      await card.waitFor({ timeout: WAIT });
      await card.getByText('No syncs yet').waitFor({ timeout: WAIT });
      assert.ok(!(await page.content()).includes(HUBSPOT_TOKEN), 'the token is not in the page');

      // A chat marked done through the public API: the page shows it as the last sync once refreshed.
      for (const [role, text] of [
        ['user', 'I would like a demo'],
        ['assistant', 'Booked for Monday'],
      ]) {
        const sent = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
          headers: { authorization: user.key },
          body: { channel: 'custom', channelId: channel.body.id, externalChatId: 'web-crm-1', role, text, senderName: 'Grace Hopper' },
        });
        assert.equal(sent.status, 201, sent.text);
      }
      const chats = await t.api<{ chats: { id: string }[] }>(user.key, '/chats/chat');
      const chatId = chats.body.chats[0]?.id ?? '';
      assert.equal((await t.api(user.key, '/chats/chat/done', { id: chatId })).status, 202);
      const lastSync = card.getByLabel('Last sync', { exact: true });
      const deadline = Date.now() + WAIT;
      while (!/synced/.test((await lastSync.textContent()) ?? '')) {
        if (Date.now() > deadline) throw new Error(`no sync shown: ${await lastSync.textContent()}`);
        await page.getByRole('button', { name: 'Refresh', exact: true }).click();
        await page.waitForTimeout(250);
      }
      assert.match((await lastSync.textContent()) ?? '', /Grace Hopper/);
      assert.equal(hubspot.notes.size, 1);

      // Pipedrive asks for the company domain; limited to the one channel.
      await page.getByRole('combobox', { name: 'CRM', exact: true }).selectOption('pipedrive');
      await page.getByRole('textbox', { name: 'Token', exact: true }).fill(PIPEDRIVE_TOKEN);
      await page.getByRole('textbox', { name: 'Company domain', exact: true }).fill('globex');
      const form = page.getByRole('form', { name: 'Connect CRM', exact: true });
      await form.getByRole('checkbox', { name: 'All channels', exact: true }).uncheck();
      await form.getByRole('checkbox', { name: 'Website API', exact: true }).check();
      await page.getByRole('button', { name: 'Connect CRM', exact: true }).click();
      const pipedriveCard = page.getByRole('article', { name: 'Pipedrive: Globex', exact: true });
      await pipedriveCard.waitFor({ timeout: WAIT });
      assert.equal(await pipedriveCard.getByRole('checkbox', { name: 'Website API', exact: true }).isChecked(), true);
      const listed = await t.console<{ connections: { kind: string; channelIds: string[] | null }[] }>(user.token, 'GET', '/crm/all/');
      assert.deepEqual(
        listed.body.connections.map((c) => [c.kind, c.channelIds]),
        [
          ['hubspot', null],
          ['pipedrive', [channel.body.id]],
        ],
      );

      // /crm is one of the app's paths: a reload there shows the page again.
      assert.equal(new URL(page.url()).pathname, '/crm');
      await page.reload();
      await pipedriveCard.waitFor({ timeout: WAIT });

      // Disconnect HubSpot (after a confirmation).
      await card.getByRole('button', { name: 'Disconnect', exact: true }).click();
      await card.getByRole('button', { name: 'Confirm disconnect', exact: true }).click();
      await card.waitFor({ state: 'detached', timeout: WAIT });
      const after = await t.console<{ connections: { kind: string }[] }>(user.token, 'GET', '/crm/all/');
      assert.deepEqual(after.body.connections.map((c) => c.kind), ['pipedrive']);
    });
  });
});
