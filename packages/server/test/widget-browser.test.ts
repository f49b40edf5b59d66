// The chat widget in a real browser: a host page on another site than Parley's (the shop at 127.0.0.2, Parley at
// 127.0.0.1: cross-site, so the frame's own storage is partitioned or blocked as on real sites) with exactly the
// snippet, the visitor chatting with the knowledge-base agent and the team, live; reload, another page and a later
// visit, with third-party cookies blocked too; a dropped connection, the host page's API, an origin that is not
// allowed, identity verification, a banned visitor.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { queryRows } from '../src/db/client.ts';
import { browserTests, launchBrowser, withScreenshotOnFailure, type TestBrowser } from './support/browser.ts';
import { eventsOf, eventually } from './support/events.ts';
import { reply, startFakeLlm } from './support/fake-llm.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';
import { startTestApp, type TestApp } from './support/harness.ts';
import { HOST_SITE_ADDRESS, shopPage, startHostSite, type HostSite } from './support/host-site.ts';
import { hoursTwoDaysAhead } from './support/working-hours.ts';

const SECRET = 'widget-identity-secret-0123456789';
const QUESTION = 'How long does shipping take?';
const ANSWER = 'Shipping takes 3 to 5 business days.';
const WAIT = { timeout: 15_000 };

let t: TestApp;
let receiver: Receiver;
let browser: TestBrowser;
let site: HostSite;
let elsewhere: HostSite;

async function setUpChannel(widget: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  const user = await t.createConsoleUser();
  const base = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ' } });
  await t.console(user.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, { body: { question: QUESTION, answer: ANSWER } });
  const created = await t.console<{ id: string; widget: { snippet: string } }>(user.token, 'POST', '/channel/widget/connect/', {
    body: {
      name: 'Shop chat',
      webhookUrl: `${receiver.url}/hook`,
      knowledgeBaseId: base.body.id,
      widget: { allowedOrigins: [site.origin], title: 'Shop help', ...widget },
      ...extra,
    },
  });
  assert.equal(created.status, 201, created.text);
  return { user, channelId: created.body.id, snippet: created.body.widget.snippet };
}

/** What tests read of a page's window (this file is compiled without the DOM's types). */
interface BrowserElement {
  getAttribute(name: string): string | null;
  shadowRoot: { activeElement: BrowserElement | null } | null;
}
interface BrowserGlobals {
  localStorage: { getItem(key: string): string | null; length: number };
  scrollY: number;
  document: {
    documentElement: BrowserElement;
    body: BrowserElement;
    activeElement: unknown;
    hasFocus(): boolean;
    querySelector(selector: string): BrowserElement | null;
  };
  getComputedStyle(element: BrowserElement): { overflow: string };
  postMessage(message: unknown, targetOrigin: string): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
}

/** The visitor state the loader keeps in the host page's own storage. */
const hostState = (page: Page, channelId: string) =>
  page.evaluate(
    (key) => JSON.parse((globalThis as unknown as BrowserGlobals).localStorage.getItem(key) ?? 'null') as { token: string } | null,
    `parley:visitor:${channelId}`,
  );

const frameOf = (page: Page) => page.frameLocator('iframe[title="Chat"]');
const log = (page: Page) => frameOf(page).getByRole('log');

async function openChat(page: Page) {
  await page.getByRole('button', { name: 'Open chat' }).click(WAIT);
  const box = frameOf(page).getByRole('textbox', { name: 'Message' });
  await box.waitFor(WAIT);
  // The box is enabled once the session and its conversation are there: a frame whose session start met a passing
  // failure tries again after 1, 2, 4 and 8 s, which a loaded CI machine's PostgreSQL pass has been seen to need
  // (the typing of `say` then had too little of its time left).
  await eventually(() => box.isEnabled(), 60_000);
}

async function say(page: Page, text: string) {
  const box = frameOf(page).getByRole('textbox', { name: 'Message' });
  // Under CI load a fill has been seen not to reach the frame at all (no input event: the box stayed empty and Send
  // sent nothing). What is typed must be in the box before Send is pressed; a fill that did not take is repeated.
  // In CI's PostgreSQL pass, the frames whose own storage is blocked were twice seen to keep the box empty through
  // every fill for 30 s while enabled and focused (the typed text went elsewhere); after a fill that did not take, the
  // text is put in the box as an input event would (the frame's own input handler still takes it).
  let fills = 0;
  await eventually(async () => {
    if ((await box.inputValue()) !== text) {
      fills += 1;
      if (fills <= 2) await box.fill(text);
      else {
        await box.evaluate((element, value) => {
          const area = element as unknown as { value: string; dispatchEvent(event: unknown): boolean };
          area.value = value;
          area.dispatchEvent(new (globalThis as unknown as { Event: new (type: string, init: { bubbles: boolean }) => unknown }).Event('input', { bubbles: true }));
        }, text);
      }
    }
    return (await box.inputValue()) === text;
  }, 30_000); // each fill can take seconds on a loaded 2-core machine: 15 s has been seen to allow too few tries
  await frameOf(page).getByRole('button', { name: 'Send' }).click();
}

async function widgetChats(key: string) {
  const res = await t.api<{ chats: { id: string; chatId: string; channelName: string; uniqueId: string; dialogName: string; email: string | null }[] }>(key, '/chats/chat', {
    channelName: 'widget',
  });
  assert.equal(res.status, 200, res.text);
  return res.body.chats;
}

describe('chat widget in a browser', browserTests, () => {
  before(async () => {
    t = await startTestApp({ webhookAllowPrivateNetworks: true, realPublicUrl: true });
    receiver = await startReceiver();
    site = await startHostSite();
    elsewhere = await startHostSite();
    browser = await launchBrowser();
    // Another site, not only another origin: what real shops are to Parley.
    assert.equal(new URL(t.url).hostname, '127.0.0.1');
    assert.equal(new URL(site.origin).hostname, HOST_SITE_ADDRESS);
  });
  after(async () => {
    await browser?.close();
    await site?.close();
    await elsewhere?.close();
    await receiver?.close();
    await t?.close();
  });

  test('the snippet on a site: the agent answers, the team replies live, the history survives a reload and a dropped connection', async (tc) => {
    const { user, channelId, snippet } = await setUpChannel();
    assert.equal(snippet, `<script src="${t.url}/widget.js" data-channel="${channelId}" async></script>`);
    site.page(shopPage(snippet));
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(tc, page, async () => {
      await page.goto(site.origin);
      await openChat(page);
      await say(page, QUESTION);
      await log(page).getByText(ANSWER).waitFor(WAIT);
      await log(page).getByText(QUESTION).waitFor(WAIT);

      // A chat of the spec: in the public list, and both messages at the channel's webhook.
      const [chat, ...others] = await widgetChats(user.key);
      assert.equal(others.length, 0);
      assert.ok(chat);
      assert.equal(chat.channelName, 'widget');
      assert.equal(chat.uniqueId, `${chat.chatId}_${channelId}`);
      const roles = await eventually(async () => {
        const found = receiver.requests
          .map((r) => JSON.parse(r.body) as { event: string; chat: { uniqueId: string }; messages: { role: string; text: string }[] })
          .filter((p) => p.event === 'new_messages' && p.chat.uniqueId === chat.uniqueId)
          .flatMap((p) => p.messages.map((m) => `${m.role}: ${m.text}`));
        return found.length >= 2 && found;
      }, 15_000);
      // Two deliveries, each retried on its own: the receiver may hear them in either order (as in widget-api).
      assert.deepEqual([...roles].sort(), [`assistant: ${ANSWER}`, `user: ${QUESTION}`]);

      // The team replies from the Inbox: it reaches the open frame without a reload.
      const team = await t.console(user.token, 'POST', `/chat/messages/${chat.id}/`, { body: { text: 'Your parcel left today.' } });
      assert.equal(team.status, 201, team.text);
      await log(page).getByText('Your parcel left today.').waitFor(WAIT);

      // Reload: the same conversation comes back, in the same chat.
      await page.reload();
      await openChat(page);
      for (const text of [QUESTION, ANSWER, 'Your parcel left today.']) await log(page).getByText(text).waitFor(WAIT);
      assert.deepEqual((await widgetChats(user.key)).map((c) => c.id), [chat.id]);

      // The server drops the connection; a reply sent meanwhile is not lost.
      await eventually(async () => t.app.widgetConnections.size === 1, 15_000);
      await page.context().setOffline(true);
      for (const socket of t.app.widgetConnections) socket.terminate();
      await frameOf(page).getByRole('status').getByText('Reconnecting…').waitFor(WAIT);
      const away = await t.console(user.token, 'POST', `/chat/messages/${chat.id}/`, { body: { text: 'Sent while you were away.' } });
      assert.equal(away.status, 201);
      assert.equal(t.app.widgetConnections.size, 0, 'the reply was sent while the frame was disconnected');
      await page.context().setOffline(false);
      await log(page).getByText('Sent while you were away.').waitFor(WAIT);
      assert.equal(await log(page).getByText('Sent while you were away.').count(), 1);
    });
  });

  for (const cookies of [undefined, 'first-party'] as const) {
    const how = cookies ? ' with third-party cookies blocked' : '';
    test(`the visitor stays the same on a cross-site shop${how}: reload, another page, a later visit; the ban still applies`, async (tc) => {
      const { user, channelId, snippet } = await setUpChannel();
      site.page(shopPage(snippet));
      const { context, page: first } = await browser.newPage(cookies ? { cookies } : {});
      let page = first;
      await withScreenshotOnFailure(tc, page, async () => {
        await page.goto(`${site.origin}/`);
        await openChat(page);
        if (cookies === 'first-party') {
          // The condition under test: the frame (Parley's origin inside the shop) may not use its own storage.
          const frame = page.frames().find((f) => new URL(f.url()).pathname === '/widget/frame');
          const storage = await frame?.evaluate(() => {
            try {
              void (globalThis as unknown as BrowserGlobals).localStorage.length;
              return 'usable';
            } catch {
              return 'blocked';
            }
          });
          assert.equal(storage, 'blocked');
        }
        await say(page, QUESTION);
        await log(page).getByText(ANSWER).waitFor(WAIT);
        const [chat, ...others] = await widgetChats(user.key);
        assert.ok(chat);
        assert.equal(others.length, 0);
        const team = await t.console(user.token, 'POST', `/chat/messages/${chat.id}/`, { body: { text: 'Your parcel left today.' } });
        assert.equal(team.status, 201, team.text);
        await log(page).getByText('Your parcel left today.').waitFor(WAIT);

        const sameConversation = async () => {
          await openChat(page);
          for (const text of [QUESTION, ANSWER, 'Your parcel left today.']) await log(page).getByText(text).waitFor(WAIT);
          assert.deepEqual((await widgetChats(user.key)).map((c) => c.uniqueId), [chat.uniqueId]);
        };
        await page.reload();
        await sameConversation();
        await page.goto(`${site.origin}/products/42`);
        await sameConversation();
        // Tomorrow: the tab was closed, the shop opened again in the same browser.
        await page.close();
        page = await context.newPage();
        await page.goto(`${site.origin}/`);
        await sameConversation();
        const [visitors] = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from widget_visitors where channel_id = ${channelId}`);
        assert.equal(visitors?.n, 1);

        // Banned, the visitor comes back: still the same chat, so the ban applies (no event, no new chat).
        const ban = await t.api(user.key, '/chats/chat/ban', { uniqueId: chat.uniqueId });
        assert.equal(ban.status, 200, ban.text);
        const before = (await eventsOf(t.database.db, channelId)).length;
        await page.reload();
        await openChat(page);
        const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/widget/v1/messages' && r.request().method() === 'POST', WAIT);
        await say(page, 'I am back after the ban');
        assert.equal((await answered).status(), 201);
        assert.deepEqual(await (await answered).json(), { message: null });
        assert.equal((await eventsOf(t.database.db, channelId)).length, before);
        assert.deepEqual((await widgetChats(user.key)).map((c) => c.uniqueId), [chat.uniqueId]);
      });
    });
  }

  test('clarifying choices: the options are buttons under the agent message; a tap picks one', async (tc) => {
    const { user, snippet } = await setUpChannel({}, { agentEngine: { kind: 'knowledge-base', answerThreshold: 1 } });
    const bases = await t.console<{ knowledgeBases: { id: string }[] }>(user.token, 'GET', '/knowledge-bases');
    const baseId = bases.body.knowledgeBases[0]?.id;
    const cost = { question: 'How much does shipping cost?', answer: 'Shipping is free above 50 euros.' };
    assert.equal((await t.console(user.token, 'POST', `/knowledge-bases/${baseId}/entries`, { body: cost })).status, 201);
    site.page(shopPage(snippet));
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(tc, page, async () => {
      await page.goto(site.origin);
      await openChat(page);
      await say(page, 'shipping');
      const choice = log(page).getByRole('button', { name: cost.question, exact: true });
      await choice.waitFor(WAIT);
      await log(page).getByRole('button', { name: QUESTION, exact: true }).waitFor(WAIT);
      await log(page).getByRole('button', { name: 'Something else', exact: true }).waitFor(WAIT);
      await choice.click();
      await log(page).getByText(cost.answer).waitFor(WAIT);
      // Answered, the choice is over: no buttons are left.
      await eventually(async () => (await log(page).getByRole('button').count()) === 0, 15_000);
      // The tap sent the label as the visitor's message.
      const [chat] = await widgetChats(user.key);
      const history = await t.console<{ messages: { text: string; role: string }[] }>(user.token, 'GET', `/chat/messages/${chat?.id}/`);
      assert.ok(JSON.stringify(history.body).includes(JSON.stringify(cost.question)), history.text);
    });
  });

  test("the host page's API: open, close, send, events, reset; a reply while closed shows a badge", async (tc) => {
    const { user, snippet, channelId } = await setUpChannel();
    const stub = '<script>window.parley = window.parley || function () { (window.parley.q = window.parley.q || []).push(arguments) };' +
      "window.seen = []; parley('on', 'message', function (m) { window.seen.push(m.from + ': ' + m.text) });" +
      "parley('on', 'open', function () { window.seen.push('open') }); parley('on', 'close', function () { window.seen.push('close') });</script>";
    site.page(shopPage(snippet, stub));
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(tc, page, async () => {
      await page.goto(site.origin);
      await page.getByRole('button', { name: 'Open chat' }).waitFor(WAIT);
      await page.evaluate(() => (globalThis as unknown as { parley(...args: unknown[]): void }).parley('open'));
      await frameOf(page).getByRole('textbox', { name: 'Message' }).waitFor(WAIT);
      await page.evaluate((text) => (globalThis as unknown as { parley(...args: unknown[]): void }).parley('send', text), QUESTION);
      await log(page).getByText(ANSWER).waitFor(WAIT);
      await frameOf(page).getByRole('button', { name: 'Close chat' }).click();
      await page.getByRole('button', { name: 'Open chat' }).waitFor(WAIT);
      const seen = await page.evaluate(() => (globalThis as unknown as { seen: string[] }).seen);
      assert.deepEqual(seen, ['open', `visitor: ${QUESTION}`, `agent: ${ANSWER}`, 'close']);

      // A team reply while the chat is closed: a badge on the launcher, gone once it is opened.
      const [chat] = await widgetChats(user.key);
      await t.console(user.token, 'POST', `/chat/messages/${chat?.id}/`, { body: { text: 'Still there?' } });
      const badge = page.locator('[data-parley-widget] .badge');
      await badge.getByText('1').waitFor(WAIT);
      await page.getByRole('button', { name: 'Open chat' }).click();
      await log(page).getByText('Still there?').waitFor(WAIT);
      assert.equal(await badge.isVisible(), false);

      // The customer logs out of the site: the next person at this browser starts a conversation of their own.
      // The page cannot plant a token: the loader takes `store` only from the frame's window and Parley's origin.
      const kept = await hostState(page, channelId);
      assert.ok(kept?.token);
      await page.evaluate(async () => {
        const win = globalThis as unknown as BrowserGlobals;
        // Posted messages are dispatched in order: once the marker arrives, the loader has seen the planted one.
        const handled = new Promise((resolve) => win.addEventListener('message', (event) => event.data === 'marker' && resolve(true)));
        win.postMessage({ parley: 1, type: 'store', state: { token: 'planted' } }, '*');
        win.postMessage('marker', '*');
        await handled;
      });
      assert.deepEqual(await hostState(page, channelId), kept);

      await page.evaluate(() => (globalThis as unknown as { parley(...args: unknown[]): void }).parley('reset'));
      await eventually(async () => (await log(page).getByText(QUESTION).count()) === 0, 15_000);
      const [row] = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from widget_visitors where channel_id = ${channelId}`);
      assert.equal(row?.n, 2);
      // Both storages forgot the first visitor; the host page keeps the new one's token.
      await eventually(async () => {
        const state = await hostState(page, channelId);
        return state !== null && state.token !== kept?.token;
      }, 15_000);
      await say(page, 'I am someone else');
      await log(page).getByText('I am someone else').waitFor(WAIT);
      assert.equal((await widgetChats(user.key)).length, 2);
      await page.reload();
      await openChat(page);
      await log(page).getByText('I am someone else').waitFor(WAIT);
      assert.equal(await log(page).getByText(QUESTION).count(), 0);
    });
  });

  test("unread replies: their count on the launcher, in the page title and to parley('on', 'unread'); seen once the chat is open; still unread after a reload", async (tc) => {
    const { user, snippet } = await setUpChannel();
    const stub = '<script>window.parley = window.parley || function () { (window.parley.q = window.parley.q || []).push(arguments) };' +
      "window.unread = []; parley('on', 'unread', function (n) { window.unread.push(n) });</script>";
    site.page(shopPage(snippet, stub));
    const { page } = await browser.newPage();
    const badge = page.locator('[data-parley-widget] .badge');
    const unreadCalls = () => page.evaluate(() => (globalThis as unknown as { unread: number[] }).unread);
    const teamReply = async (text: string) => {
      const [chat] = await widgetChats(user.key);
      const res = await t.console(user.token, 'POST', `/chat/messages/${chat?.id}/`, { body: { text } });
      assert.equal(res.status, 201, res.text);
    };
    await withScreenshotOnFailure(tc, page, async () => {
      await page.goto(site.origin);
      await openChat(page);
      await say(page, QUESTION);
      await log(page).getByText(ANSWER).waitFor(WAIT);
      await frameOf(page).getByRole('button', { name: 'Close chat' }).click();
      assert.equal(await badge.isVisible(), false, 'the answer was seen');

      await teamReply('Still there?');
      await badge.getByText('1').waitFor(WAIT);
      await teamReply('We can ship tomorrow.');
      await badge.getByText('2').waitFor(WAIT);
      assert.equal(await page.title(), '(2) Shop');
      assert.deepEqual(await unreadCalls(), [1, 2]);
      // For screen readers the count is the launcher's description (its name stays `Open chat`).
      const describedBy = await page.getByRole('button', { name: 'Open chat' }).getAttribute('aria-describedby');
      const described = await page.locator(`[data-parley-widget] #${describedBy}`).textContent();
      assert.equal(described, '2 unread replies');

      // Not seen yet: still unread on the next page load.
      await page.reload();
      await badge.getByText('2').waitFor(WAIT);
      assert.equal(await page.title(), '(2) Shop');
      await openChat(page);
      await log(page).getByText('We can ship tomorrow.').waitFor(WAIT);
      await eventually(async () => !(await badge.isVisible()) && (await page.title()) === 'Shop', 15_000);
      assert.deepEqual(await unreadCalls(), [2, 0]);

      // Seen: after a reload only a newer reply counts.
      await frameOf(page).getByRole('button', { name: 'Close chat' }).click();
      await page.reload();
      await page.getByRole('button', { name: 'Open chat' }).waitFor(WAIT);
      await teamReply('Anything else?');
      await badge.getByText('1').waitFor(WAIT);
      assert.equal(await page.title(), '(1) Shop');
    });
  });

  test("the pre-chat form: name and e-mail before the first message are the chat's; once answered it does not come back", async (tc) => {
    const { user, snippet } = await setUpChannel({ preChatForm: { enabled: true, name: 'required', email: 'required' } });
    site.page(shopPage(snippet));
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(tc, page, async () => {
      await page.goto(site.origin);
      await page.getByRole('button', { name: 'Open chat' }).click(WAIT);
      const name = frameOf(page).getByRole('textbox', { name: 'Name', exact: true });
      await name.waitFor(WAIT);
      assert.equal(await frameOf(page).getByRole('textbox', { name: 'Message' }).count(), 0, 'no message box before the form');
      // Required: the browser keeps the form until both are there.
      await frameOf(page).getByRole('button', { name: 'Start chat' }).click();
      assert.equal(await name.isVisible(), true);
      await name.fill('Dana');
      await frameOf(page).getByRole('textbox', { name: 'Email', exact: true }).fill('dana@example.com');
      await frameOf(page).getByRole('button', { name: 'Start chat' }).click();
      await frameOf(page).getByRole('textbox', { name: 'Message' }).waitFor(WAIT);
      await say(page, QUESTION);
      await log(page).getByText(ANSWER).waitFor(WAIT);
      const [chat] = await widgetChats(user.key);
      assert.deepEqual(chat && [chat.dialogName, chat.email], ['Dana', 'dana@example.com']);

      await page.reload();
      await openChat(page);
      await log(page).getByText(ANSWER).waitFor(WAIT);
      assert.equal(await name.count(), 0);
    });
  });

  test('away mode: outside working hours the frame says when the team is back, and still takes messages', async (tc) => {
    const { workingHours, backAt } = hoursTwoDaysAhead();
    const { user, snippet } = await setUpChannel({}, { workingHours, autoReply: 'We are closed; we answer tomorrow.' });
    site.page(shopPage(snippet));
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(tc, page, async () => {
      await page.goto(site.origin);
      await openChat(page);
      const note = frameOf(page).getByRole('note');
      await note.getByText("We're away right now").waitFor(WAIT);
      assert.equal(await note.locator('time').getAttribute('datetime'), backAt);
      await say(page, QUESTION);
      await log(page).getByText('We are closed; we answer tomorrow.').waitFor(WAIT);
      assert.equal(await log(page).getByText(ANSWER).count(), 0, 'the agent answers within working hours only');
      assert.equal((await widgetChats(user.key)).length, 1);
    });
  });

  test('a small screen: the open chat fills it with Close chat, and the page behind does not scroll', async (tc) => {
    const { snippet } = await setUpChannel();
    site.page(shopPage(`<div style="height: 4000px">Products</div>${snippet}`));
    const { page } = await browser.newPage({ viewport: { width: 375, height: 667 } });
    const overflow = () =>
      page.evaluate(() => {
        const { document: doc, getComputedStyle: style } = globalThis as unknown as BrowserGlobals;
        return [style(doc.documentElement).overflow, style(doc.body).overflow];
      });
    await withScreenshotOnFailure(tc, page, async () => {
      await page.goto(site.origin);
      await openChat(page);
      assert.deepEqual(await page.locator('iframe[title="Chat"]').boundingBox(), { x: 0, y: 0, width: 375, height: 667 });
      assert.equal(await frameOf(page).getByRole('button', { name: 'Close chat' }).isVisible(), true);
      assert.deepEqual(await overflow(), ['hidden', 'hidden']);
      await page.mouse.move(180, 400);
      await page.mouse.wheel(0, 1500);
      assert.equal(await page.evaluate(() => (globalThis as unknown as BrowserGlobals).scrollY), 0);

      await frameOf(page).getByRole('button', { name: 'Close chat' }).click();
      await page.getByRole('button', { name: 'Open chat' }).waitFor(WAIT);
      assert.deepEqual(await overflow(), ['visible', 'visible']);
      // Closed, the page scrolls again.
      await page.mouse.move(180, 300);
      await page.mouse.wheel(0, 1500);
      await eventually(async () => (await page.evaluate(() => (globalThis as unknown as BrowserGlobals).scrollY)) > 0, 15_000);
    });
  });

  test('keyboard and screen reader: focus moves into the chat on open and back to the launcher on close; Escape closes', async (tc) => {
    const { snippet } = await setUpChannel();
    site.page(shopPage(snippet));
    const { page } = await browser.newPage();
    const launcherFocused = () =>
      page.evaluate(() => {
        const { document: doc } = globalThis as unknown as BrowserGlobals;
        return doc.querySelector('[data-parley-widget]')?.shadowRoot?.activeElement?.getAttribute('aria-label') === 'Open chat';
      });
    const messageFocused = () =>
      frameOf(page)
        .getByRole('textbox', { name: 'Message' })
        .evaluate((element) => {
          const doc = (globalThis as unknown as BrowserGlobals).document;
          return doc.hasFocus() && doc.activeElement === element;
        });
    await withScreenshotOnFailure(tc, page, async () => {
      await page.goto(site.origin);
      const launcher = page.getByRole('button', { name: 'Open chat' });
      await launcher.waitFor(WAIT);
      await launcher.focus();
      await page.keyboard.press('Enter');
      await eventually(messageFocused, 15_000);
      await page.keyboard.type('typed without a click');
      assert.equal(await frameOf(page).getByRole('textbox', { name: 'Message' }).inputValue(), 'typed without a click');

      // Escape from inside the chat: closed, focus on the launcher.
      await page.keyboard.press('Escape');
      await launcher.waitFor(WAIT);
      assert.equal(await page.locator('iframe[title="Chat"]').isVisible(), false);
      await eventually(launcherFocused, 15_000);

      // Close chat: the same; and Escape with the focus on the page.
      await page.keyboard.press('Enter');
      await eventually(messageFocused, 15_000);
      await frameOf(page).getByRole('button', { name: 'Close chat' }).click();
      await eventually(launcherFocused, 15_000);
      await page.keyboard.press('Enter');
      await eventually(messageFocused, 15_000);
      await page.getByRole('heading', { name: 'Shop' }).click();
      await page.keyboard.press('Escape');
      await launcher.waitFor(WAIT);
      await eventually(launcherFocused, 15_000);
    });
  });

  test('who answers: the AI assistant, the team, a team member by name; a typing indicator while the agent prepares a reply', async (tc) => {
    const llm = await startFakeLlm();
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    llm.script('/v1/chat/completions', reply.after(gate, reply.text(ANSWER)));
    const engine = { kind: 'openai-compatible', baseUrl: `${llm.url}/v1`, model: 'test-model', timeoutSeconds: 120 };
    const { user, snippet } = await setUpChannel({}, { agentEngine: engine });
    site.page(shopPage(snippet));
    const { page } = await browser.newPage();
    const messageOf = (text: string) => log(page).locator('.message').filter({ hasText: text });
    try {
      await withScreenshotOnFailure(tc, page, async () => {
        await page.goto(site.origin);
        await openChat(page);
        await say(page, QUESTION);
        const typing = frameOf(page).getByRole('status').filter({ hasText: 'AI assistant is typing' });
        await typing.waitFor(WAIT);
        await eventually(async () => llm.to('/v1/chat/completions').length === 1, 15_000);
        release();
        await log(page).getByText(ANSWER).waitFor(WAIT);
        await typing.waitFor({ state: 'hidden', ...WAIT });
        await messageOf(ANSWER).getByText('AI assistant', { exact: true }).waitFor(WAIT);

        const [chat] = await widgetChats(user.key);
        const team = await t.console<{ id: string }>(user.token, 'POST', `/chat/messages/${chat?.id}/`, { body: { text: 'Your parcel left today.' } });
        assert.equal(team.status, 201, team.text);
        await messageOf('Your parcel left today.').getByText('Team', { exact: true }).waitFor(WAIT);
        assert.equal((await frameOf(page).locator('body').textContent())?.includes(user.email), false, "a team member's e-mail is not shown");
        // A team reply signed with the member's name shows the name.
        await queryRows(t.database.db, sql`update messages set sender_name = 'Alex' where id = ${team.body.id}`);
        await page.reload();
        await openChat(page);
        await messageOf('Your parcel left today.').getByText('Alex', { exact: true }).waitFor(WAIT);
      });
    } finally {
      release();
      await llm.close();
    }
  });

  test('a page whose browser blocks all storage still chats; the conversation lasts as long as the page', async (tc) => {
    const { user, snippet } = await setUpChannel();
    site.page(shopPage(snippet));
    const { page } = await browser.newPage({ cookies: 'none' });
    // What the frame's session starts were answered, said if the test fails.
    const starts: number[] = [];
    page.on('response', (response) => {
      if (response.url().endsWith('/widget/v1/session')) starts.push(response.status());
    });
    await withScreenshotOnFailure(tc, page, async () => {
      await page.goto(site.origin);
      const blocked = await page.evaluate(() => {
        try {
          void (globalThis as unknown as BrowserGlobals).localStorage.length;
          return false;
        } catch {
          return true;
        }
      });
      assert.equal(blocked, true, "the host page's own storage is blocked too");
      await openChat(page).catch((error: unknown) => {
        throw new Error(`the chat did not become ready; session starts answered ${JSON.stringify(starts)}`, { cause: error });
      });
      await say(page, QUESTION);
      await log(page).getByText(ANSWER).waitFor(WAIT);
      const [chat] = await widgetChats(user.key);
      const team = await t.console(user.token, 'POST', `/chat/messages/${chat?.id}/`, { body: { text: 'Your parcel left today.' } });
      assert.equal(team.status, 201, team.text);
      await log(page).getByText('Your parcel left today.').waitFor(WAIT);
    });
  });

  test('a server busy for a moment (503) when the frame starts: the frame tries again and chats', async (tc) => {
    const { snippet } = await setUpChannel();
    site.page(shopPage(snippet));
    const { page } = await browser.newPage();
    let refused = 0;
    await page.route('**/widget/v1/session', async (route) => {
      if (refused < 2) {
        refused += 1;
        await route.fulfill({ status: 503, contentType: 'application/json', headers: { 'retry-after': '1' }, body: JSON.stringify({ statusCode: 503, message: 'Service Unavailable' }) });
        return;
      }
      await route.continue();
    });
    await withScreenshotOnFailure(tc, page, async () => {
      await page.goto(site.origin);
      await openChat(page);
      await say(page, QUESTION);
      await log(page).getByText(ANSWER).waitFor(WAIT);
      assert.equal(refused, 2);
    });
  });

  test('several conversations: "New conversation" starts a chat of its own; the earlier one stays reachable', async (tc) => {
    const { user, snippet } = await setUpChannel();
    site.page(shopPage(snippet));
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(tc, page, async () => {
      await page.goto(site.origin);
      await openChat(page);
      await say(page, QUESTION);
      await log(page).getByText(ANSWER).waitFor(WAIT);
      await frameOf(page).getByRole('button', { name: 'New conversation' }).click();
      await frameOf(page).getByRole('combobox', { name: 'Conversation' }).waitFor(WAIT);
      assert.equal(await log(page).getByText(QUESTION).count(), 0);
      await say(page, 'A second topic');
      await log(page).getByText('A second topic').waitFor(WAIT);
      await eventually(async () => (await widgetChats(user.key)).length === 2, 15_000);
      // Back to the first conversation, then a reload opens the newest.
      const first = await frameOf(page).getByRole('option').first().getAttribute('value');
      await frameOf(page).getByRole('combobox', { name: 'Conversation' }).selectOption(first ?? '');
      await log(page).getByText(ANSWER).waitFor(WAIT);
      assert.equal(await log(page).getByText('A second topic').count(), 0);
      await page.reload();
      await openChat(page);
      await log(page).getByText('A second topic').waitFor(WAIT);
    });
  });

  test('a page on an origin that is not allowed gets no widget, one console line that says why, and is listed on the channel (issue #34)', async (tc) => {
    const { user, snippet, channelId } = await setUpChannel();
    elsewhere.page(shopPage(snippet));
    const { page } = await browser.newPage();
    const lines: { type: string; text: string }[] = [];
    page.on('console', (message) => lines.push({ type: message.type(), text: message.text() }));
    await withScreenshotOnFailure(tc, page, async () => {
      await page.goto(elsewhere.origin);
      await eventually(async () => lines.some((line) => line.text.startsWith('Parley chat widget:')), 15_000);
      const ours = lines.filter((line) => line.text.startsWith('Parley chat widget:'));
      assert.deepEqual(ours, [
        {
          type: 'warning',
          text:
            `Parley chat widget: this page's origin ${elsewhere.origin} is not allowed to show channel ${channelId}. ` +
            `Add ${elsewhere.origin} under Allowed origins on the channel's page in Parley (or press "Allow ${elsewhere.origin}" there), then reload.`,
        },
      ]);
      // No frame was added, so the browser has nothing to refuse (no CSP error).
      assert.equal(lines.filter((line) => line.type === 'error').length, 0, JSON.stringify(lines));
      assert.equal(await page.getByRole('button', { name: 'Open chat' }).isVisible(), false);
      assert.equal(await frameOf(page).getByRole('textbox', { name: 'Message' }).count(), 0);
      const [row] = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from widget_visitors where channel_id = ${channelId}`);
      assert.equal(row?.n, 0);
      const attempts = await t.console<{ embedAttempts: { origin: string; attempts: number }[] }>(user.token, 'GET', `/channel/widget/${channelId}/embed-attempts/`);
      assert.deepEqual(attempts.body.embedAttempts.map((a) => [a.origin, a.attempts]), [[elsewhere.origin, 1]]);
    });
  });

  test('required identity: a wrong identifierHash is refused in the frame with nothing stored; the right one chats', async (tc) => {
    const { snippet, channelId } = await setUpChannel({ identitySecret: SECRET, requireVerifiedIdentity: true });
    const identify = (hash: string) =>
      '<script>window.parley = window.parley || function () { (window.parley.q = window.parley.q || []).push(arguments) };' +
      `parley('identify', { identifier: 'cust-42', name: 'Dana', email: 'dana@example.com', identifierHash: '${hash}' });</script>`;
    const right = createHmac('sha256', SECRET).update('cust-42').digest('hex');
    const wrong = createHmac('sha256', SECRET).update('cust-43').digest('hex');
    site.page(shopPage(snippet, identify(wrong)));
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(tc, page, async () => {
      await page.goto(site.origin);
      await page.getByRole('button', { name: 'Open chat' }).click(WAIT);
      await frameOf(page).getByRole('alert').getByText('Identity verification failed').waitFor(WAIT);
      assert.equal(await frameOf(page).getByRole('textbox', { name: 'Message' }).count(), 0);
      const [row] = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from widget_visitors where channel_id = ${channelId}`);
      assert.equal(row?.n, 0);
      assert.equal((await eventsOf(t.database.db, channelId)).length, 0);

      site.page(shopPage(snippet, identify(right)));
      await page.reload();
      await openChat(page);
      await say(page, QUESTION);
      await log(page).getByText(ANSWER).waitFor(WAIT);
    });
  });

  test('abuse limits are explained in the frame', async (tc) => {
    const { snippet } = await setUpChannel({ messagesPerMinute: 1, maxMessageLength: 20 }, { disableAgentResponses: true });
    site.page(shopPage(snippet));
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(tc, page, async () => {
      await page.goto(site.origin);
      await openChat(page);
      await say(page, 'This message is far too long for this chat');
      await frameOf(page).getByRole('alert').getByText('Message too long: at most 20 characters').waitFor(WAIT);
      await say(page, 'hello');
      await log(page).getByText('hello').waitFor(WAIT);
      await say(page, 'hello again');
      await frameOf(page).getByRole('alert').getByText('Too many messages: at most 1 a minute; wait a moment and try again').waitFor(WAIT);
      // The text stays in the box for a later try.
      assert.equal(await frameOf(page).getByRole('textbox', { name: 'Message' }).inputValue(), 'hello again');
    });
  });

  test('files: an accepted one is sent and linked, a refused type is explained', async (tc) => {
    const { snippet } = await setUpChannel({}, { disableAgentResponses: true });
    site.page(shopPage(snippet));
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(tc, page, async () => {
      await page.goto(site.origin);
      await openChat(page);
      const attach = frameOf(page).getByLabel('Attach files');
      await attach.setInputFiles({ name: 'setup.exe', mimeType: 'image/png', buffer: Buffer.from('MZ\x90\x00\x03\x00\x00\x00', 'latin1') });
      await say(page, 'my file');
      await frameOf(page).getByRole('alert').getByText('File type not accepted: setup.exe').waitFor(WAIT);
      await attach.setInputFiles({ name: 'order.txt', mimeType: 'text/plain', buffer: Buffer.from('order 1234') });
      await say(page, 'my order');
      await log(page).getByRole('link', { name: /order\.txt/ }).waitFor(WAIT);
    });
  });

  test("a banned visitor's message makes no event", async (tc) => {
    const { user, channelId, snippet } = await setUpChannel({}, { disableAgentResponses: true });
    site.page(shopPage(snippet));
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(tc, page, async () => {
      await page.goto(site.origin);
      await openChat(page);
      await say(page, 'first message');
      await eventually(async () => (await eventsOf(t.database.db, channelId)).length === 1, 15_000);
      const [chat] = await widgetChats(user.key);
      const ban = await t.api(user.key, '/chats/chat/ban', { uniqueId: chat?.uniqueId ?? '' });
      assert.equal(ban.status, 200, ban.text);
      const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/widget/v1/messages' && r.request().method() === 'POST', WAIT);
      await say(page, 'message after the ban');
      assert.equal((await answered).status(), 201);
      await log(page).getByText('message after the ban').waitFor(WAIT);
      assert.equal((await eventsOf(t.database.db, channelId)).length, 1);
    });
  });
});
