// Single sign-on in a real browser (issue #45, item 2): the account's sign-in page `/login/<slug>` offers
// `Sign in with <name>`; the provider (a real `oidc-provider`, signing its user in at once) sends the browser back and
// the web account opens. On the plain login page an e-mail of an allowed domain finds the button; the owner's
// Settings → Security shows the form with the addresses to copy and whether a secret is set.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually } from './support/events.ts';
import { browserTests, launchBrowser, signIn, withScreenshotOnFailure, type TestBrowser } from './support/browser.ts';
import { PASSWORD, startTestApp, type TestApp } from './support/harness.ts';
import { startOidcProvider, type TestOidcProvider } from './support/oidc-provider.ts';

const WAIT = 20_000;

let t: TestApp;
let idp: TestOidcProvider;
let browser: TestBrowser;

describe('single sign-on in the web account', browserTests, () => {
  before(async () => {
    t = await startTestApp({ webhookAllowPrivateNetworks: true, realPublicUrl: true });
    idp = await startOidcProvider(`${t.url}/console/v1/auth/sso/callback`);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await idp?.close();
    await t?.close();
  });

  test('/login/<slug> → Sign in with Acme ID → the provider → the web account; the domain finds the button; the owner\'s form', async (ctx) => {
    const owner = await t.createConsoleUser();
    const domain = `corp-${process.pid}-${Date.now()}.example.com`;
    const put = await t.console<{ slug: string; redirectUri: string; loginUrl: string }>(owner.token, 'PUT', '/account/sso/', {
      body: { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, buttonName: 'Acme ID', allowedDomains: [domain] },
    });
    assert.equal(put.status, 200, put.text);
    const email = `dana@${domain}`;
    idp.nextUser = { email, emailVerified: true, name: 'Dana Domain' };

    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await page.goto(put.body.loginUrl);
      await page.getByRole('link', { name: 'Sign in with Acme ID', exact: true }).click({ timeout: WAIT });
      // Back from the provider, signed in: the web account's navigation, as Dana (an agent, by the allowed domain).
      await page.getByRole('navigation', { name: 'Main' }).waitFor({ timeout: WAIT });
      assert.equal(new URL(page.url()).pathname, '/');
      const members = await t.console<{ members: { email: string; role: string; status: string }[] }>(owner.token, 'GET', '/members/');
      assert.deepEqual(
        members.body.members.filter((m) => m.email === email).map((m) => [m.role, m.status]),
        [['agent', 'active']],
      );

      // A refused sign-in ends on the login page with a sentence.
      const { page: other } = await browser.newPage();
      idp.nextUser = { email: `eve@${domain}`, emailVerified: false, name: 'Eve' };
      await other.goto(put.body.loginUrl);
      await other.getByRole('link', { name: 'Sign in with Acme ID', exact: true }).click({ timeout: WAIT });
      await other.getByRole('alert').getByText('Your sign-in provider did not confirm your e-mail address.').waitFor({ timeout: WAIT });

      // The plain login page: the button appears once an e-mail of the allowed domain is typed.
      await other.goto(`${t.url}/login`);
      await other.getByRole('textbox', { name: 'Email', exact: true }).fill(`someone@${domain}`);
      await other.getByRole('textbox', { name: 'Password', exact: true }).focus();
      await other.getByRole('link', { name: 'Sign in with Acme ID', exact: true }).waitFor({ timeout: WAIT });

      // The owner's Settings → Security: the form, the secret set (never shown), the addresses to copy.
      const { page: ownerPage } = await browser.newPage();
      await signIn(ownerPage, `${t.url}/settings`, owner.email, PASSWORD);
      const form = ownerPage.getByRole('form', { name: 'Single sign-on' });
      await form.getByRole('textbox', { name: 'Issuer URL', exact: true }).waitFor({ timeout: WAIT });
      await eventually(async () => (await form.getByRole('textbox', { name: 'Issuer URL', exact: true }).inputValue()) === idp.issuer, WAIT);
      await form.getByText('Client secret (set)').waitFor({ timeout: WAIT });
      await form.getByText(put.body.redirectUri).waitFor({ timeout: WAIT });
      assert.equal(await form.getByLabel('Client secret', { exact: true }).inputValue(), '');
      await form.getByRole('textbox', { name: 'Button name', exact: true }).fill('Acme Login');
      await form.getByRole('button', { name: 'Save single sign-on', exact: true }).click();
      await form.getByText('Saved: members can sign in with single sign-on.').waitFor({ timeout: WAIT });
      const after = await t.console<{ buttonName: string; clientSecretSet: boolean }>(owner.token, 'GET', '/account/sso/');
      assert.deepEqual([after.body.buttonName, after.body.clientSecretSet], ['Acme Login', true]);
    });
  });
});

