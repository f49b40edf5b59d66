// Agent actions in the web account (issue #43, 7) in a real browser, against a fake shop API on a local port: an admin
// creates an action by hand with a secret header and a parameter (a refused URL shown at its field first), tests it
// (the request with the secret masked, the response, the answer), imports two operations of a pasted OpenAPI document
// and enables one, chooses actions on a channel and sets an entry to answer with one; a customer's "where's my order
// 10482?" through the public API gets the order's status and the Inbox shows the run as a line for the team, linked
// from the action's recent runs; an agent reads actions and changes nothing. Accessible names: docs/decisions.md.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { browserTests, launchBrowser, signIn, withScreenshotOnFailure, type TestBrowser } from './support/browser.ts';
import { eventually } from './support/events.ts';
import { startFakeShop, type FakeShop } from './support/fake-shop.ts';
import { PASSWORD, startTestApp, type TestApp } from './support/harness.ts';

const WAIT = { timeout: 20_000 };
const SECRET = 'shop-key-0123456789-web-actions';
const MASK = '••••';
const ANSWER = 'Order 10482 is shipped, arriving 2026-12-01.';

interface Action {
  id: string;
  name: string;
  enabled: boolean;
  headers: Record<string, string>;
  parameters: { name: string; pattern?: string; prompt?: string; required: boolean; source: string }[];
}

let t: TestApp;
let browser: TestBrowser;
let shop: FakeShop;
let owner: Awaited<ReturnType<TestApp['createConsoleUser']>>;
const agent = { email: `agent-${process.pid}-${Date.now()}@example.com`, password: 'agent own password' };
const ids = { channel: '', base: '', entry: '', action: '', chat: '' };

const openApi = () => `openapi: 3.0.3
info: { title: Shop, version: '1' }
servers:
  - url: ${shop.url}/api
paths:
  /orders/{number}:
    get:
      operationId: getOrder
      summary: Look up an order
      parameters:
        - { name: number, in: path, required: true, schema: { type: string, pattern: '^[0-9]{5}$' } }
  /customers/{customer}/orders/{number}/cancel:
    post:
      operationId: cancelOrder
      summary: Cancel an order
      parameters:
        - { name: customer, in: path, required: true, schema: { type: string } }
        - { name: number, in: path, required: true, schema: { type: string } }
  /health:
    get:
      operationId: health
`;

async function actionsOf(): Promise<Action[]> {
  const res = await t.console<{ actions: Action[] }>(owner.token, 'GET', '/actions/');
  assert.equal(res.status, 200, res.text);
  return res.body.actions;
}

/** The sentence the page shows under `field` (its `aria-describedby`), once the field is marked invalid. */
async function errorAt(page: Page, field: Locator): Promise<string> {
  await eventually(async () => (await field.getAttribute('aria-invalid')) === 'true', 15_000);
  const id = (await field.getAttribute('aria-describedby')) ?? '';
  return (await page.locator(`[id="${id}"]`).textContent()) ?? '';
}

describe('agent actions in the web account', browserTests, () => {
  before(async () => {
    browser = await launchBrowser();
    shop = await startFakeShop();
    t = await startTestApp({ webhookAllowPrivateNetworks: true });
    owner = await t.createConsoleUser();
    const base = await t.console<{ id: string }>(owner.token, 'POST', '/knowledge-bases', { body: { name: 'Shop', language: 'en' } });
    ids.base = base.body.id;
    const entry = await t.console<{ id: string }>(owner.token, 'POST', `/knowledge-bases/${ids.base}/entries`, {
      body: { question: 'Where is my order?', synonyms: ["Where's my order?", 'Track my order'], answer: 'Let me look that up for you.' },
    });
    ids.entry = entry.body.id;
    const channel = await t.console<{ id: string }>(owner.token, 'POST', '/channel/custom/connect/', { body: { name: 'Shop API', knowledgeBaseId: ids.base } });
    assert.equal(channel.status, 201, channel.text);
    ids.channel = channel.body.id;
    const invite = await t.console<{ inviteUrl: string }>(owner.token, 'POST', '/members/invite/', { body: { email: agent.email, role: 'agent' } });
    const accepted = await t.console(undefined, 'POST', '/auth/accept-invite', {
      body: { token: new URL(invite.body.inviteUrl).pathname.split('/').pop(), name: 'Ann Agent', password: agent.password },
    });
    assert.equal(accepted.status, 200, accepted.text);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await shop?.close();
  });

  test('an admin creates an action with a secret header and a parameter, and tests it', async (ctx) => {
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, `${t.url}/overview`, owner.email, PASSWORD);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Actions', exact: true }).click(WAIT);
      await page.getByRole('heading', { name: 'Actions', exact: true }).waitFor(WAIT);
      await page.getByRole('link', { name: 'New action', exact: true }).click();
      const form = page.getByRole('form', { name: 'New action', exact: true });
      await form.getByRole('textbox', { name: 'Name', exact: true }).fill('order_status');
      await form.getByRole('textbox', { name: 'Description', exact: true }).fill('Look up where an order is');
      await form.getByRole('combobox', { name: 'Kind', exact: true }).selectOption('read');
      await form.getByRole('combobox', { name: 'Method', exact: true }).selectOption('GET');
      const url = form.getByRole('textbox', { name: 'URL', exact: true });
      // A placeholder naming no parameter yet: the server's sentence at the URL field.
      await url.fill(`${shop.url}/api/orders/{{order_number}}`);
      await form.getByRole('button', { name: 'Add header', exact: true }).click();
      await form.getByRole('textbox', { name: 'Header 1 name', exact: true }).fill('X-Api-Key');
      await form.getByRole('checkbox', { name: 'Header 1 secret', exact: true }).check();
      await form.getByLabel('Header 1 value', { exact: true }).fill(SECRET);
      await form.getByRole('textbox', { name: 'Answer', exact: true }).fill('Order {{id}} is {{status}}, arriving {{eta}}.');
      await form.getByRole('textbox', { name: 'Error answer', exact: true }).fill("I couldn't find that order.");
      await form.getByRole('button', { name: 'Create action', exact: true }).click();
      assert.equal(await errorAt(page, url), 'url: unknown placeholder {{order_number}}: it names no parameter');
      assert.deepEqual(await actionsOf(), [], 'nothing was created');

      await form.getByRole('button', { name: 'Add parameter', exact: true }).click();
      const parameter = form.getByRole('group', { name: 'Parameter 1', exact: true });
      await parameter.getByRole('textbox', { name: 'Parameter 1 name', exact: true }).fill('order_number');
      await parameter.getByRole('textbox', { name: 'Parameter 1 description', exact: true }).fill('the order number');
      await parameter.getByRole('textbox', { name: 'Parameter 1 pattern', exact: true }).fill('\\d{5}');
      await parameter.getByRole('textbox', { name: 'Parameter 1 prompt', exact: true }).fill('What is your order number?');
      await form.getByRole('button', { name: 'Create action', exact: true }).click();
      const settings = page.getByRole('form', { name: 'Action settings', exact: true });
      await settings.waitFor(WAIT);
      const [created] = await actionsOf();
      assert.ok(created);
      ids.action = created.id;
      assert.equal(new URL(page.url()).pathname, `/actions/${created.id}`);
      assert.deepEqual(created.headers, { 'X-Api-Key': MASK });
      assert.deepEqual(created.parameters, [
        { name: 'order_number', description: 'the order number', type: 'string', pattern: '\\d{5}', required: true, prompt: 'What is your order number?', source: 'customer' },
      ]);
      // The stored secret reads "••••", never its value; saving again keeps it.
      const secret = settings.getByLabel('Header 1 value', { exact: true });
      assert.equal(await secret.inputValue(), '');
      assert.match((await secret.getAttribute('placeholder')) ?? '', /^••••/);
      assert.ok(!(await page.content()).includes(SECRET), 'the secret is not in the page');
      await settings.getByRole('button', { name: 'Save', exact: true }).click();
      await settings.getByRole('status').filter({ hasText: 'Saved' }).waitFor(WAIT);

      // Test: the request as it went (secret masked), the shop's response and the answer rendered from it.
      const panel = page.getByRole('form', { name: 'Test', exact: true });
      await panel.getByRole('textbox', { name: 'order_number', exact: true }).fill('10482');
      await panel.getByRole('button', { name: 'Run test', exact: true }).click();
      const request = (await panel.getByRole('region', { name: 'Test request', exact: true }).textContent(WAIT)) ?? '';
      assert.match(request, new RegExp(`GET ${shop.url}/api/orders/10482`));
      assert.match(request, /X-Api-Key: ••••/);
      assert.ok(!request.includes(SECRET));
      const response = (await panel.getByRole('region', { name: 'Test response', exact: true }).textContent()) ?? '';
      assert.match(response, /HTTP 200/);
      assert.match(response, /"status": "shipped"/);
      assert.equal(await panel.getByRole('region', { name: 'Test answer', exact: true }).getByText(ANSWER, { exact: true }).count(), 1);
      assert.equal(shop.to('/api/orders/').at(-1)?.headers['x-api-key'], SECRET, 'the shop got the kept secret');
      assert.ok(!(await page.content()).includes(SECRET), 'the secret is not in the page');

      // The run is listed at once, as a test call (no chat).
      const runs = page.getByRole('table', { name: 'Runs', exact: true });
      await runs.getByRole('row').filter({ hasText: 'Succeeded' }).filter({ hasText: 'test or replay' }).waitFor(WAIT);
      assert.match((await runs.getByRole('row').nth(1).textContent()) ?? '', /order_number=10482.*Succeeded200/);
    });
  });

  test('import two operations of a pasted OpenAPI document; the one saved is enabled, the other stays disabled', async (ctx) => {
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, `${t.url}/actions`, owner.email, PASSWORD);
      const card = page.getByRole('region', { name: 'Import from OpenAPI', exact: true });
      await card.getByRole('textbox', { name: 'OpenAPI document', exact: true }).fill(openApi(), WAIT);
      await card.getByRole('button', { name: 'List operations', exact: true }).click();
      const operations = card.getByRole('group', { name: 'Operations', exact: true });
      await operations.waitFor(WAIT);
      assert.equal(await operations.getByRole('checkbox').count(), 3);
      await operations.getByRole('checkbox', { name: 'getOrder', exact: true }).check();
      await operations.getByRole('checkbox', { name: 'cancelOrder', exact: true }).check();
      await card.getByRole('button', { name: 'Import', exact: true }).click();

      const review = page.getByRole('note', { name: 'Imported actions to review', exact: true });
      await review.waitFor(WAIT);
      assert.deepEqual(await review.getByRole('link').allTextContents(), ['get_order', 'cancel_order']);
      const imported = await actionsOf();
      const getOrder = imported.find((a) => a.name === 'get_order');
      assert.deepEqual(
        imported.filter((a) => a.name !== 'order_status').map((a) => [a.name, a.enabled]),
        [
          ['cancel_order', false],
          ['get_order', false],
        ],
      );
      // The first opens for review: its fields as imported, Enabled checked so that Save enables it.
      await page.waitForURL(`${t.url}/actions/${getOrder?.id}`, WAIT);
      const settings = page.getByRole('form', { name: 'Action settings', exact: true });
      assert.equal(await settings.getByRole('textbox', { name: 'URL', exact: true }).inputValue(WAIT), `${shop.url}/api/orders/{{number}}`);
      assert.equal(await settings.getByRole('textbox', { name: 'Parameter 1 pattern', exact: true }).inputValue(), '^[0-9]{5}$');
      assert.equal(await settings.getByRole('checkbox', { name: 'Enabled', exact: true }).isChecked(), true);
      await settings.getByRole('textbox', { name: 'Answer', exact: true }).fill('Order {{id}}: {{status}}');
      await settings.getByRole('button', { name: 'Save', exact: true }).click();
      await settings.getByRole('status').filter({ hasText: 'Saved' }).waitFor(WAIT);
      await eventually(async () => (await review.getByRole('link').allTextContents()).join() === 'cancel_order', 15_000);
      assert.deepEqual(
        (await actionsOf()).map((a) => [a.name, a.enabled]),
        [
          ['cancel_order', false],
          ['get_order', true],
          ['order_status', true],
        ],
      );
    });
  });

  test('a channel chooses its actions and an entry answers with one; the customer gets the order status and the Inbox shows the run', async (ctx) => {
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, `${t.url}/channels/custom/${ids.channel}`, owner.email, PASSWORD);
      const section = page.getByRole('region', { name: 'Actions', exact: true });
      await section.getByRole('checkbox', { name: 'order_status', exact: true }).check(WAIT);
      assert.equal(await section.getByRole('checkbox', { name: 'cancel_order', exact: true }).isChecked(), false);
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor(WAIT);
      const channel = await t.console<{ actionIds: string[] }>(owner.token, 'GET', `/channel/custom/${ids.channel}/`);
      assert.deepEqual(channel.body.actionIds, [ids.action]);

      await page.goto(`${t.url}/knowledge-bases/${ids.base}`);
      await page.getByRole('button', { name: 'Edit Where is my order?', exact: true }).click(WAIT);
      const form = page.getByRole('form', { name: 'Edit entry', exact: true });
      await form.getByRole('combobox', { name: 'Answer with an action', exact: true }).selectOption({ label: 'order_status' });
      await form.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByRole('list', { name: 'Entries', exact: true }).getByText('Answers with order_status').waitFor(WAIT);
      const entries = await t.console<{ entries: { id: string; actionId: string | null; answer: string }[] }>(owner.token, 'GET', `/knowledge-bases/${ids.base}/entries`);
      assert.deepEqual(entries.body.entries.map((e) => [e.id, e.actionId, e.answer]), [[ids.entry, ids.action, 'Let me look that up for you.']]);

      // A customer asks through the public API; no model: the entry's action answers.
      const sent = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
        headers: { authorization: owner.key },
        body: { channel: 'custom', channelId: ids.channel, externalChatId: 'order-10482', role: 'user', text: "Where's my order 10482?", senderName: 'Ada Customer' },
      });
      assert.equal(sent.status, 201, sent.text);
      const list = await t.api<{ chats: { id: string }[] }>(owner.key, '/chats/chat', { channelId: ids.channel });
      ids.chat = list.body.chats[0]?.id ?? '';
      const history = await eventually(async () => {
        const res = await t.console<{ messages: { kind: string; role?: string; text?: string }[] }>(owner.token, 'GET', `/chat/messages/${ids.chat}/`);
        return res.body.messages.some((m) => m.role === 'assistant') && res.body.messages;
      }, 20_000);
      assert.deepEqual(history.map((m) => [m.kind, m.role ?? null, m.text ?? null]), [
        ['message', 'user', "Where's my order 10482?"],
        ['action', null, null],
        ['message', 'assistant', ANSWER],
      ]);
      assert.equal(shop.to('/api/orders/').at(-1)?.headers['x-api-key'], SECRET);

      // The Inbox: the run is a line for the team between the question and the answer.
      await page.goto(`${t.url}/inbox/${ids.chat}`);
      const log = page.getByRole('log');
      const line = log.getByRole('listitem', { name: 'Action order_status', exact: true });
      assert.match((await line.textContent(WAIT)) ?? '', /Action · order_status · .*Succeeded · HTTP 200 · \d+ ms/);
      assert.deepEqual(
        (await log.getByRole('listitem').allTextContents()).map((text) => (text.includes(ANSWER) ? 'answer' : text.includes('order_status') ? 'action' : 'question')),
        ['question', 'action', 'answer'],
      );

      // The action's recent runs link the chat.
      await line.getByRole('link', { name: 'order_status', exact: true }).click();
      const chatLink = page.getByRole('table', { name: 'Runs', exact: true }).getByRole('link', { name: 'Open chat', exact: true });
      assert.equal(await chatLink.getAttribute('href', WAIT), `/inbox/${ids.chat}`);
    });
  });

  test('an agent reads actions and their runs, and changes nothing', async (ctx) => {
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, `${t.url}/actions`, agent.email, agent.password);
      await page.getByRole('note', { name: 'Admin only' }).waitFor(WAIT);
      assert.equal(await page.getByRole('link', { name: 'New action', exact: true }).count(), 0);
      assert.equal(await page.getByRole('region', { name: 'Import from OpenAPI', exact: true }).count(), 0);
      await page.getByRole('navigation', { name: 'Actions list', exact: true }).getByRole('link', { name: 'order_status', exact: true }).click();
      const settings = page.getByRole('form', { name: 'Action settings', exact: true });
      await settings.waitFor(WAIT);
      assert.equal(await settings.getByRole('textbox', { name: 'Name', exact: true }).isDisabled(), true);
      assert.equal(await settings.getByRole('textbox', { name: 'URL', exact: true }).isDisabled(), true);
      for (const name of ['Save', 'Delete action', 'Add header', 'Add parameter', 'Run test']) {
        assert.equal(await page.getByRole('button', { name, exact: true }).count(), 0, name);
      }
      assert.equal(await page.getByRole('form', { name: 'Test', exact: true }).count(), 0);
      await page.getByRole('table', { name: 'Runs', exact: true }).getByRole('link', { name: 'Open chat', exact: true }).waitFor(WAIT);
      // The channel's section reads, disabled.
      await page.goto(`${t.url}/channels/custom/${ids.channel}`);
      const choice = page.getByRole('region', { name: 'Actions', exact: true }).getByRole('checkbox', { name: 'order_status', exact: true });
      assert.equal(await choice.isChecked(WAIT), true);
      assert.equal(await choice.isDisabled(), true);
    });
  });
});
