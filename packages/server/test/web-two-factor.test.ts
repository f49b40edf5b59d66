// Two-factor sign-in in a real browser (issue #45, item 1): Profile's `Two-factor sign-in` turns it on (the key as
// text and its link as a QR code that decodes to it, confirmed by a code, 10 recovery codes shown); the sign-in page then asks for the code after the password;
// a member of an account that requires it is sent to set it up before anything else.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import jsqr from 'jsqr';
import { Secret, TOTP } from 'otpauth';
import { browserTests, launchBrowser, signIn, withScreenshotOnFailure, type TestBrowser } from './support/browser.ts';
import type { Page } from 'playwright-core';
import { PASSWORD, PUBLIC_URL, startTestApp, type TestApp } from './support/harness.ts';

const WAIT = 20_000;
/** The app's clock, moved to a later TOTP step between two codes (a code is accepted once). */
const clock = { offset: 0, now: () => new Date(Date.now() + clock.offset) };
const codeOf = (secret: string) =>
  new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({ timestamp: clock.now().getTime() });
/**
 * The text of the QR code the page drew: its SVG path (a `M x y h1v1h-1z` square per dark module, in a viewBox of
 * `size` modules) painted 4 pixels a module on white, read by a QR decoder.
 */
function decodeQr(viewBox: string, d: string): string | undefined {
  const size = Number(viewBox.split(' ')[2]);
  const scale = 4;
  const width = size * scale;
  const pixels = new Uint8ClampedArray(width * width * 4).fill(255);
  for (const [, x, y] of d.matchAll(/M(\d+) (\d+)h1v1h-1z/g)) {
    for (let dy = 0; dy < scale; dy += 1) {
      for (let dx = 0; dx < scale; dx += 1) {
        const at = ((Number(y) * scale + dy) * width + Number(x) * scale + dx) * 4;
        pixels.fill(0, at, at + 3);
      }
    }
  }
  // jsqr is CommonJS with an `exports.default`: the decoder is that.
  return jsqr.default(pixels, width, width)?.data;
}

function nextStep(): void {
  const now = clock.now().getTime();
  clock.offset += 30_000 - (now % 30_000) + 1_000;
}

let t: TestApp;
let browser: TestBrowser;

describe('two-factor sign-in in the web account', browserTests, () => {
  before(async () => {
    t = await startTestApp({ clock });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('Profile turns it on with a code and shows 10 recovery codes; the next sign-in asks for a code', async (ctx) => {
    const owner = await t.createConsoleUser();
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, `${t.url}/overview`, owner.email, PASSWORD);
      await page.getByRole('link', { name: 'Profile', exact: true }).click({ timeout: WAIT });
      const section = page.getByRole('region', { name: 'Two-factor sign-in', exact: true });
      await section.getByRole('button', { name: 'Turn on two-factor sign-in', exact: true }).click({ timeout: WAIT });
      const secret = ((await section.getByLabel('Secret key', { exact: true }).textContent({ timeout: WAIT })) ?? '').trim();
      assert.match(secret, /^[A-Z2-7]{32}$/);
      const otpauthUrl = (await section.getByRole('link', { name: 'Open in an authenticator app', exact: true }).getAttribute('href')) ?? '';
      assert.match(otpauthUrl, /^otpauth:\/\/totp\//);
      // The same link as a QR code to scan with a phone: it decodes to the link.
      const qr = section.getByRole('img', { name: 'QR code for your authenticator app', exact: true });
      const path = (await qr.locator('path').getAttribute('d', { timeout: WAIT })) ?? '';
      assert.equal(decodeQr((await qr.getAttribute('viewBox')) ?? '', path), otpauthUrl);
      await section.getByRole('textbox', { name: 'Code', exact: true }).fill(codeOf(secret));
      await section.getByRole('button', { name: 'Confirm', exact: true }).click();
      const codes = section.getByLabel('Recovery codes', { exact: true }).getByRole('listitem');
      await codes.nth(9).waitFor({ timeout: WAIT });
      assert.equal(await codes.count(), 10);
      assert.match((await codes.first().textContent()) ?? '', /^[a-z2-9]{5}-[a-z2-9]{5}$/);
      assert.equal((await section.getByRole('status').textContent()) ?? '', 'Two-factor sign-in is on. Your other sessions were signed out.');
      await section.getByRole('button', { name: 'Turn off two-factor sign-in', exact: true }).waitFor({ timeout: WAIT });
      // The console token made before is another session: it ended.
      assert.equal((await t.console(owner.token, 'GET', '/me/')).status, 401);

      nextStep();
      const second = await browser.newPage();
      await signIn(second.page, `${t.url}/overview`, owner.email, PASSWORD);
      await second.page.getByRole('textbox', { name: 'Code', exact: true }).fill(codeOf(secret), { timeout: WAIT });
      await second.page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await second.page.getByRole('link', { name: 'Profile', exact: true }).waitFor({ timeout: WAIT });
    });
  });

  test('an account that requires it sends a member without it to set it up first', async (ctx) => {
    const owner = await t.createConsoleUser();
    const ownerPage = await browser.newPage();
    await withScreenshotOnFailure(ctx, ownerPage.page, async () => {
      await signIn(ownerPage.page, `${t.url}/settings`, owner.email, PASSWORD);
      const security = ownerPage.page.getByRole('region', { name: 'Security', exact: true });
      // The box is disabled until the settings are read (and while a change is saved): clicked once it is enabled.
      const box = security.getByRole('checkbox', { name: 'Require two-factor sign-in', exact: true });
      const deadline = Date.now() + WAIT;
      while (!(await box.isEnabled()) && Date.now() < deadline) await ownerPage.page.waitForTimeout(50);
      await box.check({ timeout: WAIT });
      await security.getByRole('status').getByText('Every member now signs in with two-factor sign-in.', { exact: true }).waitFor({ timeout: WAIT });
    });
    assert.equal((await t.console<{ requireTwoFactor: boolean }>(owner.token, 'GET', '/account/settings/')).body.requireTwoFactor, true);
    const email = `web-twofa-${process.pid}-${Date.now()}@example.com`;
    const invite = await t.console<{ inviteUrl: string }>(owner.token, 'POST', '/members/invite/', { body: { email, role: 'agent' } });
    assert.equal(invite.status, 201, invite.text);
    const accepted = await t.console(undefined, 'POST', '/auth/accept-invite', {
      body: { token: invite.body.inviteUrl.slice(`${PUBLIC_URL}/invite/`.length), name: 'Agent', password: PASSWORD },
    });
    assert.equal(accepted.status, 200, accepted.text);
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, `${t.url}/inbox`, email, PASSWORD);
      await page.getByText('Your account requires two-factor sign-in: turn it on to go on.', { exact: true }).waitFor({ timeout: WAIT });
      assert.equal(await page.getByRole('link', { name: 'Inbox', exact: true }).count(), 0);
      const section = page.getByRole('region', { name: 'Two-factor sign-in', exact: true });
      await section.getByRole('button', { name: 'Turn on two-factor sign-in', exact: true }).click({ timeout: WAIT });
      const secret = ((await section.getByLabel('Secret key', { exact: true }).textContent({ timeout: WAIT })) ?? '').trim();
      await section.getByRole('textbox', { name: 'Code', exact: true }).fill(codeOf(secret));
      await section.getByRole('button', { name: 'Confirm', exact: true }).click();
      await section.getByRole('button', { name: 'Continue', exact: true }).click({ timeout: WAIT });
      await page.getByRole('link', { name: 'Inbox', exact: true }).click({ timeout: WAIT });
      await page.getByRole('list', { name: 'Chats', exact: true }).waitFor({ timeout: WAIT });
    });
  });

  test('a recovery code signs in once from the sign-in page; typed again it is refused', async (ctx) => {
    const owner = await t.createConsoleUser();
    const setup = await t.console<{ secret: string }>(owner.token, 'POST', '/me/2fa/setup');
    assert.equal(setup.status, 200, setup.text);
    nextStep();
    const enabled = await t.console<{ recoveryCodes: string[] }>(owner.token, 'POST', '/me/2fa/enable', { body: { code: codeOf(setup.body.secret) } });
    assert.equal(enabled.status, 200, enabled.text);
    const [recoveryCode] = enabled.body.recoveryCodes;
    assert.ok(recoveryCode);
    const useRecoveryCode = async (page: Page) => {
      await signIn(page, `${t.url}/overview`, owner.email, PASSWORD);
      await page.getByRole('button', { name: 'Use a recovery code', exact: true }).click({ timeout: WAIT });
      await page.getByRole('textbox', { name: 'Recovery code', exact: true }).fill(recoveryCode, { timeout: WAIT });
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    };
    const first = await browser.newPage();
    await withScreenshotOnFailure(ctx, first.page, async () => {
      await useRecoveryCode(first.page);
      await first.page.getByRole('link', { name: 'Profile', exact: true }).waitFor({ timeout: WAIT });
    });
    const second = await browser.newPage();
    await withScreenshotOnFailure(ctx, second.page, async () => {
      await useRecoveryCode(second.page);
      await second.page.getByText('Invalid two-factor code', { exact: true }).waitFor({ timeout: WAIT });
      assert.equal(await second.page.getByRole('link', { name: 'Profile', exact: true }).count(), 0);
    });
  });

  test('a forgotten-password link sets the new password but signs in only with the code', async (ctx) => {
    const owner = await t.createConsoleUser();
    const setup = await t.console<{ secret: string }>(owner.token, 'POST', '/me/2fa/setup');
    nextStep();
    assert.equal((await t.console(owner.token, 'POST', '/me/2fa/enable', { body: { code: codeOf(setup.body.secret) } })).status, 200);
    const link = await t.admin<{ resetUrl: string }>('POST', '/password-resets', { email: owner.email });
    assert.equal(link.status, 201, link.text);
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await page.goto(`${t.url}/reset-password/${link.body.resetUrl.slice(`${PUBLIC_URL}/reset-password/`.length)}`);
      await page.getByLabel('New password', { exact: true }).fill('a brand new password', { timeout: WAIT });
      await page.getByRole('button', { name: 'Set password', exact: true }).click();
      const status = page.getByRole('status');
      await status.waitFor({ timeout: WAIT });
      assert.equal(await status.textContent(), 'Your new password is set. Sign in with it and the code of your authenticator app.');
      assert.equal(await page.getByRole('link', { name: 'Profile', exact: true }).count(), 0);
      await page.getByRole('link', { name: 'Sign in', exact: true }).click();
      await page.getByRole('textbox', { name: 'Email', exact: true }).fill(owner.email, { timeout: WAIT });
      await page.getByRole('textbox', { name: 'Password', exact: true }).fill('a brand new password');
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      nextStep();
      await page.getByRole('textbox', { name: 'Code', exact: true }).fill(codeOf(setup.body.secret), { timeout: WAIT });
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('link', { name: 'Profile', exact: true }).waitFor({ timeout: WAIT });
    });
  });
});
