// Profile's Sessions in a real browser (issue #45): the member sees where they are signed in, this browser marked,
// signs one other session out, then every other; this page stays signed in throughout.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { browserTests, launchBrowser, signIn, withScreenshotOnFailure, type TestBrowser } from './support/browser.ts';
import { PASSWORD, startTestApp, type TestApp } from './support/harness.ts';

const WAIT = 20_000;

let t: TestApp;
let browser: TestBrowser;

describe('sessions in the web account', browserTests, () => {
  before(async () => {
    t = await startTestApp();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('Profile lists the sessions; Sign out ends one, Sign out everywhere else the rest', async (ctx) => {
    const owner = await t.createConsoleUser();
    const other = await t.request<{ token: string }>('POST', '/console/v1/auth/login', {
      headers: { 'user-agent': 'Other device' },
      body: { email: owner.email, password: PASSWORD },
    });
    assert.equal(other.status, 200, other.text);
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, `${t.url}/overview`, owner.email, PASSWORD);
      await page.getByRole('link', { name: 'Profile', exact: true }).click({ timeout: WAIT });
      const section = page.getByRole('region', { name: 'Sessions', exact: true });
      const rows = section.getByRole('listitem');
      await section.getByRole('listitem', { name: 'This session', exact: true }).waitFor({ timeout: WAIT });
      assert.match((await section.getByRole('listitem', { name: 'This session', exact: true }).textContent()) ?? '', /Chrom/);
      await rows.nth(2).waitFor({ timeout: WAIT });
      assert.equal(await rows.count(), 3);

      const otherRow = rows.filter({ hasText: 'Other device' });
      await otherRow.getByRole('button', { name: 'Sign out', exact: true }).click();
      await otherRow.waitFor({ state: 'detached', timeout: WAIT });
      assert.equal((await t.console(other.body.token, 'GET', '/me/')).status, 401);
      assert.equal((await t.console(owner.token, 'GET', '/me/')).status, 200);

      await section.getByRole('button', { name: 'Sign out everywhere else', exact: true }).click();
      await rows.nth(1).waitFor({ state: 'detached', timeout: WAIT });
      assert.equal(await rows.count(), 1);
      assert.equal((await t.console(owner.token, 'GET', '/me/')).status, 401);
      assert.ok(await section.getByRole('button', { name: 'Sign out everywhere else', exact: true }).isDisabled());
      // This page is still signed in.
      await page.getByRole('link', { name: 'Inbox', exact: true }).click();
      await page.getByRole('list', { name: 'Chats', exact: true }).waitFor({ timeout: WAIT });
    });
  });
});
