// Day one for a team (issue #34) in a real browser: every page of the web account opened as the owner and as a
// teammate with the agent role leaves no error in the console (a failed request, a bad `pattern`, a script error);
// the agent is not offered what their role cannot change and reads why; forms show the server's own words; a new
// widget channel says it shows nowhere until an origin is allowed, and a visitor's refused page (the shop on
// 127.0.0.2, Parley on 127.0.0.1) appears on the open channel page with `Allow <origin>`, which says it is done, after
// which the shop shows it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { browserTests, launchBrowser, signIn, withScreenshotOnFailure, type TestBrowser } from './support/browser.ts';
import { eventually } from './support/events.ts';
import { PASSWORD, startTestApp, type TestApp } from './support/harness.ts';
import { shopPage, startHostSite, type HostSite } from './support/host-site.ts';

const WAIT = { timeout: 20_000 };

let t: TestApp;
let browser: TestBrowser;
let shop: HostSite;
let owner: Awaited<ReturnType<TestApp['createConsoleUser']>>;
const agent = { email: `agent-${process.pid}-${Date.now()}@example.com`, password: 'agent own password' };
const ids = { widget: '', api: '', base: '', chat: '', action: '' };

/** What a test reads of an input (this file is compiled without the DOM's types). */
interface Validated {
  validity: { patternMismatch: boolean; valid: boolean };
}

/** Collects what a page writes to its console as errors, and the scripts' uncaught exceptions. */
function consoleErrorsOf(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`${page.url()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`${page.url()}: ${error.message}`));
  return errors;
}

/** Every page of the web account, with something each shows once loaded. */
function everyPage(): { path: string; ready: (page: Page) => Promise<void> }[] {
  const heading = (name: string) => async (page: Page) => void (await page.getByRole('heading', { name, exact: true }).first().waitFor(WAIT));
  return [
    { path: '/overview', ready: async (page) => void (await page.getByRole('main').getByRole('heading').first().waitFor(WAIT)) },
    { path: '/inbox', ready: async (page) => void (await page.getByRole('list', { name: 'Chats', exact: true }).waitFor(WAIT)) },
    { path: `/inbox/${ids.chat}`, ready: async (page) => void (await page.getByRole('log').waitFor(WAIT)) },
    { path: '/reports', ready: async (page) => void (await page.getByRole('link', { name: /^Conversations: \d+$/ }).waitFor(WAIT)) },
    { path: '/channels', ready: heading('Channels') },
    { path: `/channels/widget/${ids.widget}`, ready: async (page) => void (await page.getByLabel('Widget snippet', { exact: true }).waitFor(WAIT)) },
    { path: `/channels/custom/${ids.api}`, ready: async (page) => void (await page.getByRole('textbox', { name: 'Webhook URL', exact: true }).waitFor(WAIT)) },
    { path: '/knowledge-bases', ready: heading('Knowledge bases') },
    { path: `/knowledge-bases/${ids.base}`, ready: async (page) => void (await page.getByRole('region', { name: 'Used by', exact: true }).waitFor(WAIT)) },
    { path: '/actions', ready: heading('Actions') },
    { path: `/actions/${ids.action}`, ready: async (page) => void (await page.getByRole('region', { name: 'Recent runs', exact: true }).waitFor(WAIT)) },
    { path: '/deliveries', ready: async (page) => void (await page.getByRole('main').locator('*').first().waitFor(WAIT)) },
    { path: '/crm', ready: async (page) => void (await page.getByRole('main').locator('*').first().waitFor(WAIT)) },
    { path: '/team', ready: async (page) => void (await page.getByRole('table', { name: 'Members', exact: true }).waitFor(WAIT)) },
    { path: '/saved-replies', ready: async (page) => void (await page.getByRole('button', { name: 'Save reply', exact: true }).waitFor(WAIT)) },
    { path: '/settings', ready: async (page) => void (await page.getByRole('main').locator('*').first().waitFor(WAIT)) },
  ];
}

async function walk(page: Page, errors: string[]): Promise<void> {
  for (const { path, ready } of everyPage()) {
    await page.goto(`${t.url}${path}`);
    await ready(page);
    await page.waitForLoadState('networkidle');
  }
  assert.deepEqual(errors, []);
}

describe('day one for a team in the web account', browserTests, () => {
  before(async () => {
    t = await startTestApp({ webhookAllowPrivateNetworks: true, realPublicUrl: true });
    shop = await startHostSite();
    browser = await launchBrowser();
    owner = await t.createConsoleUser();
    const widget = await t.console<{ id: string }>(owner.token, 'POST', '/channel/widget/connect/', { body: { name: 'Site chat' } });
    const api = await t.console<{ id: string }>(owner.token, 'POST', '/channel/custom/connect/', { body: { name: 'Support', settings: { isActive: false } } });
    const base = await t.console<{ id: string }>(owner.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ' } });
    assert.deepEqual([widget.status, api.status, base.status], [201, 201, 201]);
    Object.assign(ids, { widget: widget.body.id, api: api.body.id, base: base.body.id });
    await t.console(owner.token, 'PUT', `/channel/custom/${ids.api}/`, { body: { knowledgeBaseId: ids.base } });
    await t.console(owner.token, 'POST', `/knowledge-bases/${ids.base}/entries`, { body: { question: 'Do you ship abroad?', answer: 'Yes, to the EU.' } });
    const action = await t.console<{ id: string }>(owner.token, 'POST', '/actions/', {
      body: {
        name: 'order_status',
        description: 'Look up an order',
        kind: 'read',
        method: 'GET',
        url: 'https://shop.example/api/orders/{{order_number}}',
        headers: { Authorization: { secret: 'Bearer shop-key' } },
        parameters: [{ name: 'order_number', description: 'the order number', type: 'string', pattern: '\\d{5}', required: true, source: 'customer' }],
        answer: 'Order {{id}} is {{status}}.',
      },
    });
    assert.equal(action.status, 201, action.text);
    ids.action = action.body.id;
    const sent = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
      headers: { authorization: owner.key },
      body: { channel: 'custom', channelId: ids.api, externalChatId: 'day-one-1', role: 'user', text: 'Hello?', senderName: 'Carla Customer' },
    });
    assert.equal(sent.status, 201, sent.text);
    const list = await t.api<{ chats: { id: string }[] }>(owner.key, '/chats/chat', { channelId: ids.api });
    ids.chat = list.body.chats[0]?.id ?? '';
    const invite = await t.console<{ inviteUrl: string }>(owner.token, 'POST', '/members/invite/', { body: { email: agent.email, role: 'agent' } });
    const accepted = await t.console(undefined, 'POST', '/auth/accept-invite', {
      body: { token: new URL(invite.body.inviteUrl).pathname.split('/').pop(), name: 'Ann Agent', password: agent.password },
    });
    assert.equal(accepted.status, 200, accepted.text);
  });
  after(async () => {
    await browser?.close();
    await shop?.close();
    await t?.close();
  });

  test('the owner opens every page with no error in the console', async (ctx) => {
    const { page } = await browser.newPage();
    const errors = consoleErrorsOf(page);
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, `${t.url}/overview`, owner.email, PASSWORD);
      await page.getByRole('link', { name: 'Inbox', exact: true }).waitFor(WAIT);
      // A new account's first steps, each with its state (knowledge, a channel and a teammate are there; the
      // widget is on no site yet).
      const steps = page.getByRole('region', { name: 'First steps', exact: true });
      await steps.waitFor(WAIT);
      for (const [step, state] of [
        ['Add knowledge', 'done'],
        ['Connect a channel', 'done'],
        ['Put the widget on your site', 'to do'],
        ['Invite a teammate', 'done'],
      ]) {
        await steps.getByLabel(`${step}: ${state}`, { exact: true }).waitFor(WAIT);
      }
      await walk(page, errors);
    });
  });

  test('an agent opens every page with no error in the console, and is offered no control their role cannot use', async (ctx) => {
    const { page } = await browser.newPage();
    const errors = consoleErrorsOf(page);
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, `${t.url}/overview`, agent.email, agent.password);
      await page.getByRole('link', { name: 'Inbox', exact: true }).waitFor(WAIT);
      // Deliveries and CRM are admins' pages: not in the navigation.
      const nav = page.getByRole('navigation', { name: 'Main' });
      assert.equal(await nav.getByRole('link', { name: 'Deliveries', exact: true }).count(), 0);
      assert.equal(await nav.getByRole('link', { name: 'CRM', exact: true }).count(), 0);
      await walk(page, errors);

      const adminOnly = (name: string) => page.getByRole('button', { name, exact: true });
      await page.goto(`${t.url}/channels`);
      await page.getByRole('note', { name: 'Admin only' }).waitFor(WAIT);
      assert.equal(await adminOnly('Connect channel').count(), 0);

      await page.goto(`${t.url}/channels/widget/${ids.widget}`);
      await page.getByRole('note', { name: 'Admin only' }).waitFor(WAIT);
      for (const name of ['Save', 'Send test event', 'Delete channel', 'Ask']) assert.equal(await adminOnly(name).count(), 0, name);
      assert.equal(await page.getByRole('textbox', { name: 'Allowed origins', exact: true }).isDisabled(), true);
      assert.equal(await page.getByRole('checkbox', { name: 'Disable agent responses', exact: true }).isDisabled(), true);

      await page.goto(`${t.url}/knowledge-bases`);
      await page.getByRole('note', { name: 'Admin only' }).waitFor(WAIT);
      assert.equal(await adminOnly('Create').count(), 0);
      await page.goto(`${t.url}/knowledge-bases/${ids.base}`);
      await page.getByRole('note', { name: 'Admin only' }).waitFor(WAIT);
      await page.getByText('Yes, to the EU.').waitFor(WAIT);
      for (const name of ['Rename', 'Delete knowledge base', 'Add entry', 'Save embeddings provider', 'Edit Do you ship abroad?', 'Delete Do you ship abroad?']) {
        assert.equal(await adminOnly(name).count(), 0, name);
      }
      assert.equal(await page.getByLabel('Upload document', { exact: true }).count(), 0);

      // The customer in view: the chat's card.
      await page.goto(`${t.url}/inbox/${ids.chat}`);
      // The card is folded under the chat's head; `Details` unfolds it.
      await page.getByRole('button', { name: 'Details', exact: true }).click(WAIT);
      const card = page.getByRole('complementary', { name: 'Customer', exact: true });
      assert.equal(await card.getByLabel('Customer name', { exact: true }).textContent(WAIT), 'Carla Customer');
      assert.equal(await card.getByLabel('Customer email', { exact: true }).textContent(), 'not given');
      await card.getByText('Support (API)').waitFor(WAIT);

      // Actions: read (an agent may read them and their runs), nothing to change or call.
      await page.goto(`${t.url}/actions/${ids.action}`);
      await page.getByRole('note', { name: 'Admin only' }).waitFor(WAIT);
      await page.getByRole('form', { name: 'Action settings', exact: true }).waitFor(WAIT);
      for (const name of ['Save', 'Delete action', 'Run test', 'Add header', 'Add parameter']) assert.equal(await adminOnly(name).count(), 0, name);
      assert.equal(await page.getByRole('link', { name: 'New action', exact: true }).count(), 0);

      await page.goto(`${t.url}/deliveries`);
      await page.getByRole('note', { name: 'Admin only' }).waitFor(WAIT);
      await page.goto(`${t.url}/team`);
      await page.getByRole('table', { name: 'Members', exact: true }).waitFor(WAIT);
      assert.equal(await adminOnly('Invite member').count(), 0);
      assert.deepEqual(errors, []);
    });
  });

  test('saved replies: the short-code pattern is checked by the browser, and a refusal shows the server sentence', async (ctx) => {
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, `${t.url}/saved-replies`, owner.email, PASSWORD);
      const shortCode = page.getByRole('textbox', { name: 'Short code', exact: true });
      await shortCode.fill('has space', WAIT);
      assert.equal(await shortCode.evaluate((input) => (input as unknown as Validated).validity.patternMismatch), true);
      await shortCode.fill('hi');
      assert.equal(await shortCode.evaluate((input) => (input as unknown as Validated).validity.valid), true);
      await page.getByRole('textbox', { name: 'Text', exact: true }).fill('Hello!');
      await page.getByRole('button', { name: 'Save reply', exact: true }).click();
      await page.getByRole('list', { name: 'Saved replies', exact: true }).getByText('/hi').waitFor(WAIT);
      await shortCode.fill('hi');
      await page.getByRole('textbox', { name: 'Text', exact: true }).fill('Again');
      await page.getByRole('button', { name: 'Save reply', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'shortCode: a saved reply with this short code exists already' }).waitFor(WAIT);
    });
  });

  test('a new widget channel says it shows nowhere; the refused shop is listed with Allow <origin>, after which the shop shows it', async (ctx) => {
    const { page } = await browser.newPage();
    const { page: visitor } = await browser.newPage();
    const warnings: string[] = [];
    visitor.on('console', (message) => {
      if (message.type() === 'warning') warnings.push(message.text());
    });
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, `${t.url}/channels/widget/${ids.widget}`, owner.email, PASSWORD);
      await page.getByLabel('Widget not shown', { exact: true }).waitFor(WAIT);
      const snippet = (await page.getByLabel('Widget snippet', { exact: true }).textContent()) ?? '';
      shop.page(shopPage(snippet));
      await visitor.goto(shop.origin);
      await eventually(async () => warnings.some((line) => line.includes(`origin ${shop.origin} is not allowed`)), 15_000);

      // The refused site shows up on the open page, no reload (issue #42, item 11); Allow says it is done.
      const allow = page.getByRole('button', { name: `Allow ${shop.origin}`, exact: true });
      await allow.click(WAIT);
      await page.getByRole('status').filter({ hasText: `Allowed: ${shop.origin} can show the widget now; reload that page to see it.` }).waitFor(WAIT);
      await eventually(async () => (await page.getByLabel('Widget not shown', { exact: true }).count()) === 0, 15_000);
      // The refused origins' list is read again after the save: the button goes with it, maybe a render later.
      await eventually(async () => (await allow.count()) === 0, 15_000);
      assert.equal(await page.getByRole('textbox', { name: 'Allowed origins', exact: true }).inputValue(), shop.origin);

      await visitor.reload();
      await visitor.getByRole('button', { name: 'Open chat' }).waitFor({ state: 'visible', timeout: 15_000 });
    });
  });

  test("the customer card of a widget chat shows the shop's page the widget was opened on and links the visitor's earlier conversation", async (ctx) => {
    const { page } = await browser.newPage();
    const { page: visitor } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      // The shop is allowed (the test above). Its page's query and fragment never reach Parley.
      await visitor.goto(`${shop.origin}/pricing?coupon=secret#plans`);
      await visitor.getByRole('button', { name: 'Open chat' }).click(WAIT);
      const frame = visitor.frameLocator('iframe[title="Chat"]');
      for (const [n, text] of ['About my first order', 'About my second order'].entries()) {
        if (n > 0) {
          await frame.getByRole('button', { name: 'New conversation' }).click();
          await frame.getByRole('combobox', { name: 'Conversation' }).waitFor(WAIT);
        }
        const box = frame.getByRole('textbox', { name: 'Message' });
        // A fill under load has been seen not to reach the frame (widget-browser.test.ts): repeated until it took.
        await eventually(async () => {
          if ((await box.inputValue()) !== text) await box.fill(text);
          return (await box.inputValue()) === text;
        }, 15_000);
        await frame.getByRole('button', { name: 'Send' }).click();
        await frame.getByRole('log').getByText(text).waitFor(WAIT);
      }
      // Each conversation is a chat of the channel: found by what the visitor said in it.
      const chatWith = async (text: string) => {
        const list = await t.api<{ chats: { id: string }[] }>(owner.key, '/chats/chat', { channelId: ids.widget });
        for (const chat of list.body.chats) {
          const history = await t.console<{ messages: { text?: string }[] }>(owner.token, 'GET', `/chat/messages/${chat.id}/`);
          if (history.body.messages.some((message) => message.text === text)) return chat.id;
        }
        return undefined;
      };
      let first: string | undefined;
      let second: string | undefined;
      await eventually(async () => {
        first = await chatWith('About my first order');
        second = await chatWith('About my second order');
        return first !== undefined && second !== undefined;
      }, 15_000);

      await signIn(page, `${t.url}/inbox/${second}`, owner.email, PASSWORD);
      await page.getByRole('button', { name: 'Details', exact: true }).click(WAIT);
      const card = page.getByRole('complementary', { name: 'Customer', exact: true });
      const shown = card.getByLabel('Customer page', { exact: true });
      assert.equal(await shown.textContent(WAIT), `${shop.origin}/pricing`);
      assert.equal(await shown.getByRole('link').getAttribute('href'), `${shop.origin}/pricing`);
      const others = card.getByRole('list', { name: 'Other chats', exact: true }).getByRole('link');
      assert.equal(await others.count(), 1);
      await others.click();
      await page.waitForURL(`${t.url}/inbox/${first}`, WAIT);
      await page.getByRole('log').getByText('About my first order').waitFor(WAIT);
      // The first chat's card links the second.
      await card.getByRole('list', { name: 'Other chats', exact: true }).getByRole('link').waitFor(WAIT);
      assert.equal(await card.getByRole('list', { name: 'Other chats', exact: true }).getByRole('link').getAttribute('href'), `/inbox/${second}`);
    });
  });
});
