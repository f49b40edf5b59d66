// The web account in a real browser (issue #13 journeys): sign in (and a wrong password), the Russian UI,
// connecting an API channel and its webhook test against a local receiver. Accessible names from docs/architecture.md.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { browserTests, launchBrowser, signIn as signInAt, withScreenshotOnFailure, type TestBrowser } from './support/browser.ts';
import { eventually } from './support/events.ts';
import { PASSWORD, startTestApp, type TestApp } from './support/harness.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

const WAIT = 20_000;

let t: TestApp;
let browser: TestBrowser;
let receiver: Receiver;

describe('web account in Chromium', browserTests, () => {
  before(async () => {
    browser = await launchBrowser(); // first: without Chromium under CI, fail before anything starts
    t = await startTestApp({ webhookAllowPrivateNetworks: true });
    receiver = await startReceiver();
  });
  after(async () => {
    await browser?.close();
    await receiver?.close();
    await t?.close();
  });

  const signIn = (page: Page, email: string, password = PASSWORD) => signInAt(page, `${t.url}/`, email, password);

  describe('sign in', () => {
    test('a wrong password shows an error; the right one opens the account, which survives a reload; sign out', async (ctx) => {
      const user = await t.createConsoleUser();
      const { page, context } = await browser.newPage();
      await withScreenshotOnFailure(ctx, page, async () => {
        await signIn(page, user.email, 'not the password');
        await page.getByRole('alert').filter({ hasText: 'Invalid e-mail or password' }).waitFor({ timeout: WAIT });

        await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        const inbox = page.getByRole('link', { name: 'Inbox', exact: true });
        await inbox.waitFor({ timeout: WAIT });
        // The first page is the overview, with its chart.
        await page.getByRole('heading', { name: 'Overview', exact: true }).waitFor({ timeout: WAIT });
        await page.getByRole('img', { name: 'New chats per day', exact: true }).waitFor({ timeout: WAIT });
        for (const name of ['Channels', 'Knowledge bases', 'Deliveries']) {
          assert.equal(await page.getByRole('link', { name, exact: true }).count(), 1, name);
        }

        // The session is an HttpOnly cookie: scripts cannot read it, and nothing is kept in storage.
        const cookies = await context.cookies();
        const session = cookies.find((cookie) => cookie.name === 'parley_session');
        assert.ok(session, 'session cookie set');
        assert.equal(session.httpOnly, true);
        assert.equal(session.sameSite, 'Strict');
        assert.equal(session.path, '/console/v1');
        assert.equal(await page.evaluate('document.cookie'), '');
        const stored = String(await page.evaluate('JSON.stringify({ ...localStorage, ...sessionStorage })'));
        assert.ok(!stored.includes(session.value), 'no token in web storage');

        await page.reload();
        await inbox.waitFor({ timeout: WAIT });

        await page.getByRole('button', { name: 'Sign out', exact: true }).click();
        await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor({ timeout: WAIT });
        await page.reload();
        await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor({ timeout: WAIT });
      });
    });

    test('the first load and a sign-in leave no error in the console and no failed request', async (ctx) => {
      const user = await t.createConsoleUser();
      const { page } = await browser.newPage();
      const problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console: ${message.text()} (${message.location().url})`);
      });
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('response', (response) => {
        if (response.status() >= 400) problems.push(`${response.status()} ${response.request().method()} ${response.url()}`);
      });
      page.on('requestfailed', (request) => problems.push(`failed: ${request.method()} ${request.url()} ${request.failure()?.errorText}`));
      await withScreenshotOnFailure(ctx, page, async () => {
        await signIn(page, user.email);
        await page.getByRole('heading', { name: 'Overview', exact: true }).waitFor({ timeout: WAIT });
        await page.getByRole('img', { name: 'New chats per day', exact: true }).waitFor({ timeout: WAIT });
        assert.deepEqual(problems, []);
      });
    });

    test('Russian: picked from the browser and switchable; the accessible names stay English', async (ctx) => {
      const user = await t.createConsoleUser();
      const { page } = await browser.newPage({ locale: 'ru-RU' });
      await withScreenshotOnFailure(ctx, page, async () => {
        await page.goto(`${t.url}/`);
        const signInButton = page.getByRole('button', { name: 'Sign in', exact: true });
        await signInButton.waitFor({ timeout: WAIT });
        assert.equal((await signInButton.textContent())?.trim(), 'Войти');

        await page.getByRole('textbox', { name: 'Email', exact: true }).fill(user.email);
        await page.getByRole('textbox', { name: 'Password', exact: true }).fill('wrong password');
        await signInButton.click();
        // The server's message comes in the member's language (UserLang).
        await page.getByRole('alert').filter({ hasText: 'Неверный e-mail или пароль' }).waitFor({ timeout: WAIT });

        await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
        await signInButton.click();
        const channels = page.getByRole('link', { name: 'Channels', exact: true });
        await channels.waitFor({ timeout: WAIT });
        assert.equal((await channels.textContent())?.trim(), 'Каналы');
        assert.equal(await page.evaluate('document.documentElement.lang'), 'ru');

        await page.getByRole('combobox', { name: 'Language', exact: true }).selectOption('en');
        await page.getByRole('link', { name: 'Channels', exact: true }).filter({ hasText: 'Channels' }).waitFor({ timeout: WAIT });
        await page.reload();
        await page.getByRole('link', { name: 'Channels', exact: true }).filter({ hasText: 'Channels' }).waitFor({ timeout: WAIT });

        await page.getByRole('combobox', { name: 'Language', exact: true }).selectOption('ru');
        await page.getByRole('link', { name: 'Inbox', exact: true }).filter({ hasText: 'Входящие' }).waitFor({ timeout: WAIT });
      });
    });
  });

  describe('channels', () => {
    test('connect an API channel, set its webhook URL, Send test event shows 200 and the receiver got the sample', async (ctx) => {
      const user = await t.createConsoleUser();
      const { page } = await browser.newPage();
      await withScreenshotOnFailure(ctx, page, async () => {
        await signIn(page, user.email);
        await page.getByRole('link', { name: 'Channels', exact: true }).click();
        await page.getByRole('button', { name: 'Connect channel', exact: true }).click();
        await page.getByRole('combobox', { name: 'Kind', exact: true }).selectOption('custom');
        await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Shop API');
        await page.getByRole('button', { name: 'Connect', exact: true }).click();

        const webhookUrl = page.getByRole('textbox', { name: 'Webhook URL', exact: true });
        await webhookUrl.waitFor({ timeout: WAIT });
        // The API channel's page shows its cc: id and a ready curl example.
        const { body } = await t.console<{ channels: { id: string; name: string; webhookUrl: string | null }[] }>(user.token, 'GET', '/channels/all/');
        const channel = body.channels.find((c) => c.name === 'Shop API');
        assert.ok(channel);
        assert.ok(channel.id.startsWith('cc:'));
        await page.getByText(channel.id, { exact: true }).waitFor({ timeout: WAIT });
        const curl = (await page.getByLabel('curl example').textContent()) ?? '';
        assert.match(curl, /send-message-universal/);
        assert.ok(curl.includes(`"channelId":"${channel.id}"`));

        await webhookUrl.fill(`${receiver.url}/hook`);
        await page.getByRole('button', { name: 'Save', exact: true }).click();
        await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor({ timeout: WAIT });
        const saved = await t.console<{ webhookUrl: string }>(user.token, 'GET', `/channel/custom/${channel.id}/`);
        assert.equal(saved.body.webhookUrl, `${receiver.url}/hook`);

        const before = receiver.requests.length;
        await page.getByRole('button', { name: 'Send test event', exact: true }).click();
        await page.getByText(/HTTP 200/).waitFor({ timeout: WAIT });
        const request = await eventually(async () => receiver.requests.slice(before).find((r) => r.url === '/hook'), WAIT);
        const event = JSON.parse(request.body) as { event: string };
        assert.equal(event.event, 'new_messages');

        // Disable agent responses is saved at once.
        await page.getByRole('checkbox', { name: 'Disable agent responses', exact: true }).check();
        await eventually(async () => {
          const res = await t.console<{ disableAgentResponses: boolean }>(user.token, 'GET', `/channel/custom/${channel.id}/`);
          return res.body.disableAgentResponses;
        }, WAIT);
      });
    });
  });

  describe('deliveries and the agent', () => {
    test('the delivery log shows status and response codes, and redelivers; Try the agent answers from the knowledge base', async (ctx) => {
      const user = await t.createConsoleUser();
      const base = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ', language: 'en' } });
      await t.console(user.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, { body: { question: 'Do you have parking?', answer: 'Yes, behind the shop.' } });
      const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
        body: { name: 'Logged', webhookUrl: `${receiver.url}/logged`, knowledgeBaseId: base.body.id, settings: { isActive: false } },
      });
      const sent = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
        headers: { authorization: user.key },
        body: { channel: 'custom', channelId: channel.body.id, externalChatId: 'log-1', role: 'user', text: 'Hi' },
      });
      assert.equal(sent.status, 201);
      await eventually(async () => receiver.requests.some((r) => r.url === '/logged'), WAIT);
      const { page } = await browser.newPage();
      await withScreenshotOnFailure(ctx, page, async () => {
        await signIn(page, user.email);
        await page.getByRole('link', { name: 'Deliveries', exact: true }).click();
        const table = page.getByRole('table', { name: 'Deliveries', exact: true });
        await eventually(async () => {
          if ((await table.getByText('delivered', { exact: true }).count()) > 0) return true;
          await page.getByRole('button', { name: 'Refresh', exact: true }).click();
          return false;
        }, WAIT);
        await table.getByText(/#1 200/).waitFor({ timeout: WAIT });
        const before = receiver.requests.filter((r) => r.url === '/logged').length;
        await table.getByRole('button', { name: /^Redeliver / }).first().click();
        await eventually(async () => receiver.requests.filter((r) => r.url === '/logged').length > before, WAIT);
        await eventually(async () => {
          await page.getByRole('button', { name: 'Refresh', exact: true }).click();
          return (await table.getByText('delivered', { exact: true }).count()) === 2;
        }, WAIT);

        await page.goto(`${t.url}/channels/custom/${encodeURIComponent(channel.body.id)}`);
        await page.getByRole('textbox', { name: 'Message to the agent', exact: true }).fill('Do you have parking?');
        await page.getByRole('button', { name: 'Ask', exact: true }).click();
        await page.getByLabel('Agent reply').filter({ hasText: 'Yes, behind the shop.' }).waitFor({ timeout: WAIT });
      });
    });
  });

  describe('knowledge bases', () => {
    test('create, add an entry with synonyms, search, edit, delete, rename', async (ctx) => {
      const user = await t.createConsoleUser();
      const { page } = await browser.newPage();
      await withScreenshotOnFailure(ctx, page, async () => {
        await signIn(page, user.email);
        await page.getByRole('link', { name: 'Knowledge bases', exact: true }).click();
        await page.getByRole('textbox', { name: 'Knowledge base name', exact: true }).fill('Help centre');
        await page.getByRole('button', { name: 'Create', exact: true }).click();
        await page.getByRole('heading', { name: 'Help centre', exact: true }).waitFor({ timeout: WAIT });

        const add = page.getByRole('form', { name: 'Add entry', exact: true });
        await add.getByRole('textbox', { name: 'Question', exact: true }).fill('How do I pay?');
        await add.getByRole('textbox', { name: 'Synonyms', exact: true }).fill('payment methods\ncan I pay by card');
        await add.getByRole('textbox', { name: 'Answer', exact: true }).fill('By card or bank transfer.');
        await add.getByRole('button', { name: 'Add entry', exact: true }).click();
        const entries = page.getByRole('list', { name: 'Entries', exact: true });
        await entries.getByText('By card or bank transfer.').waitFor({ timeout: WAIT });
        await add.getByRole('textbox', { name: 'Question', exact: true }).fill('Where are you?');
        await add.getByRole('textbox', { name: 'Answer', exact: true }).fill('In Berlin.');
        await add.getByRole('button', { name: 'Add entry', exact: true }).click();
        await entries.getByText('In Berlin.').waitFor({ timeout: WAIT });
        await entries.getByText('payment methods · can I pay by card').waitFor({ timeout: WAIT });

        await page.getByRole('searchbox', { name: 'Search entries', exact: true }).fill('transfer');
        await page.getByRole('searchbox', { name: 'Search entries', exact: true }).press('Enter');
        await eventually(async () => (await entries.getByText('In Berlin.').count()) === 0, WAIT);
        await entries.getByText('By card or bank transfer.').waitFor({ timeout: WAIT });
        await page.getByRole('searchbox', { name: 'Search entries', exact: true }).fill('');
        await page.getByRole('searchbox', { name: 'Search entries', exact: true }).press('Enter');
        await entries.getByText('In Berlin.').waitFor({ timeout: WAIT });

        await page.getByRole('button', { name: 'Edit Where are you?', exact: true }).click();
        const edit = page.getByRole('form', { name: 'Edit entry', exact: true });
        await edit.getByRole('textbox', { name: 'Answer', exact: true }).fill('In Berlin, Mitte.');
        await edit.getByRole('button', { name: 'Save', exact: true }).click();
        await entries.getByText('In Berlin, Mitte.').waitFor({ timeout: WAIT });

        await page.getByRole('button', { name: 'Delete How do I pay?', exact: true }).click();
        await eventually(async () => (await entries.getByText('By card or bank transfer.').count()) === 0, WAIT);

        await page.getByRole('form', { name: 'Rename', exact: true }).getByRole('textbox', { name: 'Name', exact: true }).fill('FAQ');
        await page.getByRole('button', { name: 'Rename', exact: true }).click();
        await page.getByRole('heading', { name: 'FAQ', exact: true }).waitFor({ timeout: WAIT });

        const { body } = await t.console<{ knowledgeBases: { id: string; name: string }[] }>(user.token, 'GET', '/knowledge-bases');
        assert.deepEqual(body.knowledgeBases.map((b) => b.name), ['FAQ']);
        const listed = await t.console<{ entries: { question: string; answer: string; synonyms: string[] }[] }>(
          user.token,
          'GET',
          `/knowledge-bases/${body.knowledgeBases[0]?.id}/entries`,
        );
        assert.deepEqual(listed.body.entries.map((e) => [e.question, e.answer, e.synonyms]), [['Where are you?', 'In Berlin, Mitte.', []]]);
      });
    });

    test('every channel kind offers the fields it needs', async (ctx) => {
      const user = await t.createConsoleUser();
      const { page } = await browser.newPage();
      await withScreenshotOnFailure(ctx, page, async () => {
        await signIn(page, user.email);
        await page.getByRole('link', { name: 'Channels', exact: true }).click();
        await page.getByRole('button', { name: 'Connect channel', exact: true }).click();
        const form = page.getByRole('form', { name: 'Connect channel', exact: true });
        const expected: Record<string, string[]> = {
          custom: [],
          widget: [],
          telegram: ['Bot token (from BotFather)'],
          whatsapp: ['Phone number ID', 'Access token', 'App secret', 'Verify token'],
          facebook: ['Page ID', 'Page access token', 'App secret', 'Verify token'],
          instagram: ['Account ID', 'Access token', 'App secret', 'Verify token'],
          viber: ['Auth token'],
        };
        for (const [kind, fields] of Object.entries(expected)) {
          await form.getByRole('combobox', { name: 'Kind', exact: true }).selectOption(kind);
          for (const field of fields) await form.getByLabel(field, { exact: true }).waitFor({ timeout: WAIT });
          // Name plus the kind's own fields.
          assert.equal(await form.locator('input').count(), 1 + fields.length, kind);
        }
        await form.getByRole('combobox', { name: 'Kind', exact: true }).selectOption('widget');
        await form.getByRole('textbox', { name: 'Name', exact: true }).fill('Site chat');
        await form.getByRole('button', { name: 'Connect', exact: true }).click();
        await page.getByLabel('Widget snippet').waitFor({ timeout: WAIT });
        assert.match((await page.getByLabel('Widget snippet').textContent()) ?? '', /\/widget\.js" data-channel="/);

        // The widget's own settings (issue #14, item 3): origins, look, identity rule with a write-only secret; until
        // an origin is allowed the page says the widget shows nowhere (issue #34). One Save for the whole page.
        await page.getByLabel('Widget not shown', { exact: true }).waitFor({ timeout: WAIT });
        const widget = page.getByRole('region', { name: 'Chat widget', exact: true });
        await widget.getByRole('textbox', { name: 'Allowed origins', exact: true }).fill('https://shop.example\nhttp://127.0.0.1:8080/');
        await widget.getByRole('textbox', { name: 'Widget title', exact: true }).fill('Ask us');
        await widget.getByRole('combobox', { name: 'Widget position', exact: true }).selectOption('left');
        await widget.getByRole('checkbox', { name: 'Require verified identity', exact: true }).check();
        await widget.getByLabel('Identity secret', { exact: true }).fill('a-widget-identity-secret-0123');
        await widget.getByRole('checkbox', { name: 'Pre-chat form', exact: true }).check();
        await widget.getByRole('combobox', { name: 'Name field', exact: true }).selectOption('required');
        await widget.getByRole('combobox', { name: 'Email field', exact: true }).selectOption('optional');
        const settings = page.getByRole('form', { name: 'Channel settings', exact: true });
        await settings.getByRole('button', { name: 'Save', exact: true }).click();
        await settings.getByRole('status').filter({ hasText: 'Saved' }).waitFor({ timeout: WAIT });
        assert.equal(await page.getByLabel('Widget not shown', { exact: true }).count(), 0);
        const { body } = await t.console<{ channels: Array<{ type: string; widget?: Record<string, unknown> }> }>(user.token, 'GET', '/channels/all/');
        const saved = body.channels.find((channel) => channel.type === 'widget')?.widget;
        assert.deepEqual(saved?.allowedOrigins, ['https://shop.example', 'http://127.0.0.1:8080']);
        assert.equal(saved?.title, 'Ask us');
        assert.equal(saved?.position, 'left');
        assert.equal(saved?.requireVerifiedIdentity, true);
        assert.equal(saved?.identitySecretSet, true);
        assert.deepEqual(saved?.preChatForm, { enabled: true, name: 'required', email: 'optional' });
        assert.ok(!(await page.content()).includes('a-widget-identity-secret-0123'), 'the secret is not shown back');
      });
    });
  });
});
