// Settings → Audit log in a real browser (issue #45, item 4): the owner renames a channel over the console API, then
// finds the change in the section's table (who, the kind, before → after), filters it by kind, and pages.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { browserTests, launchBrowser, signIn, withScreenshotOnFailure, type TestBrowser } from './support/browser.ts';
import { eventually } from './support/events.ts';
import { PASSWORD, startTestApp, type TestApp } from './support/harness.ts';

const WAIT = { timeout: 15_000 };
let t: TestApp;
let browser: TestBrowser;

describe('Settings → Audit log', browserTests, () => {
  before(async () => {
    t = await startTestApp();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('the section lists a channel renamed, newest first; the kind filter narrows it', async (ctx) => {
    const owner = await t.createConsoleUser();
    assert.equal((await t.console(owner.token, 'PUT', '/me/', { body: { name: 'Dana Owner' } })).status, 200);
    const channel = await t.console<{ id: string }>(owner.token, 'POST', '/channel/custom/connect/', { body: { name: 'Support' } });
    assert.equal(channel.status, 201, channel.text);
    assert.equal((await t.console(owner.token, 'PUT', `/channel/custom/${channel.body.id}/`, { body: { name: 'Sales' } })).status, 200);
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, `${t.url}/settings`, owner.email, PASSWORD);
      const section = page.getByRole('region', { name: 'Audit log', exact: true });
      const table = section.getByRole('table', { name: 'Audit events', exact: true });
      await table.waitFor(WAIT);
      const renamed = table.getByRole('row').filter({ hasText: 'channel.updated' });
      await renamed.waitFor(WAIT);
      assert.match(await renamed.innerText(), /Dana Owner[\s\S]*127\.0\.0\.1[\s\S]*channel\.updated[\s\S]*Sales[\s\S]*name: Support → Sales/);
      // Newest first: the sign-in of this page is above the change.
      const kinds = await table.locator('tbody tr td:nth-child(4)').allInnerTexts();
      assert.equal(kinds[0], 'auth.login');
      assert.ok(kinds.indexOf('channel.updated') < kinds.indexOf('channel.created'), kinds.join());

      await section.getByRole('textbox', { name: 'Kind', exact: true }).fill('channel.updated');
      await section.getByRole('button', { name: 'Show events', exact: true }).click();
      await eventually(async () => (await table.locator('tbody tr td:nth-child(4)').allInnerTexts()).join() === 'channel.updated');
      assert.equal(await section.getByRole('button', { name: 'Download CSV', exact: true }).isEnabled(), true);
    });
  });
});
