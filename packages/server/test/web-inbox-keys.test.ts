// The Inbox's keys in a real browser (DESIGN, Team workbench → keyboard): `j`/`k` move the selection through the
// list, `e` marks the chat done and `a` assigns it to the member (both checked over HTTP), `r` and `n` focus the
// reply and the note without typing their letter, a `j` typed in the composer is text, `?` lists the keys in a
// dialog that Escape closes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { browserTests, launchBrowser, signIn, withScreenshotOnFailure, type TestBrowser } from './support/browser.ts';
import { eventually } from './support/events.ts';
import { PASSWORD, startTestApp, type TestApp } from './support/harness.ts';

const WAIT = 20_000;
const CUSTOMERS = ['Kay One', 'Kay Two', 'Kay Three'];

type ChatInfo = { isTriggered: boolean; assignee: { id: string; name: string } | null };

let t: TestApp;
let browser: TestBrowser;
let user: Awaited<ReturnType<TestApp['createConsoleUser']>>;
let memberId: string;

/** The open chat's console id, from the address. */
function openChatId(page: Page): string | undefined {
  return /\/inbox\/([^/?#]+)$/.exec(new URL(page.url()).pathname)?.[1];
}

async function chatInfo(chatId: string): Promise<ChatInfo> {
  const res = await t.console<ChatInfo>(user.token, 'GET', `/chat/info/${chatId}/`);
  assert.equal(res.status, 200, res.text);
  return res.body;
}

/** Nothing focused: the keys go to the page. */
async function blur(page: Page): Promise<void> {
  await page.evaluate('document.activeElement?.blur()');
}

/** The accessible name of the focused element (the page's elements of the contract carry aria-label). */
async function focused(page: Page): Promise<string | null> {
  return (await page.evaluate("document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.tagName ?? null")) as string | null;
}

describe('Inbox keys', browserTests, () => {
  before(async () => {
    t = await startTestApp();
    browser = await launchBrowser();
    user = await t.createConsoleUser();
    const named = await t.console(user.token, 'PUT', '/me/', { body: { name: 'Kim Keys' } });
    assert.equal(named.status, 200, named.text);
    const session = await t.console<{ memberId: string }>(user.token, 'GET', '/auth/session');
    assert.equal(session.status, 200, session.text);
    memberId = session.body.memberId;
    const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', { body: { name: 'Keys', settings: { isActive: false } } });
    assert.equal(channel.status, 201, channel.text);
    for (const [n, name] of CUSTOMERS.entries()) {
      const res = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
        headers: { authorization: user.key },
        body: { channel: 'custom', channelId: channel.body.id, externalChatId: `keys-${n}`, role: 'user', text: `Hello from ${name}`, senderName: name },
      });
      assert.equal(res.status, 201, res.text);
    }
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('j/k move the selection, e marks done, a assigns to me, r and n focus the composers, a j typed there is text, ? lists the keys', async (ctx) => {
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, `${t.url}/inbox`, user.email, PASSWORD);
      const list = page.getByRole('list', { name: 'Chats', exact: true });
      const items = list.getByRole('button');
      await eventually(async () => (await items.count()) === CUSTOMERS.length, WAIT);
      // The list's order, newest first.
      const names = await items.locator('.name').allTextContents();
      assert.deepEqual([...names].sort(), [...CUSTOMERS].sort());
      const selected = list.locator('[aria-current="true"] .name');
      const heading = (name: string) => page.getByRole('heading', { name, exact: true });

      // No chat open: j opens the first, then the next; k goes back.
      await blur(page);
      await page.keyboard.press('j');
      await heading(names[0] ?? '').waitFor({ timeout: WAIT });
      assert.equal(await selected.textContent(), names[0]);
      await page.keyboard.press('j');
      await heading(names[1] ?? '').waitFor({ timeout: WAIT });
      assert.equal(await selected.textContent(), names[1]);
      await page.keyboard.press('k');
      await heading(names[0] ?? '').waitFor({ timeout: WAIT });
      assert.equal(await selected.textContent(), names[0]);
      const chatId = openChatId(page);
      assert.ok(chatId);

      // e: what `Mark done` does.
      assert.equal((await chatInfo(chatId)).isTriggered, false);
      await page.keyboard.press('e');
      await page.getByRole('button', { name: 'Mark not done', exact: true }).waitFor({ timeout: WAIT });
      assert.equal((await chatInfo(chatId)).isTriggered, true);

      // a: assigned to the member pressing it.
      assert.equal((await chatInfo(chatId)).assignee, null);
      await page.keyboard.press('a');
      await page.getByText('Assigned to Kim Keys').waitFor({ timeout: WAIT });
      assert.deepEqual((await chatInfo(chatId)).assignee, { id: memberId, name: 'Kim Keys' });

      // r: the reply has the focus, without an r in it; a j typed there is text and moves nothing.
      const reply = page.getByRole('textbox', { name: 'Reply', exact: true });
      await page.keyboard.press('r');
      assert.equal(await focused(page), 'Reply');
      assert.equal(await reply.inputValue(), '');
      await page.keyboard.type('jk');
      assert.equal(await reply.inputValue(), 'jk');
      assert.equal(openChatId(page), chatId);
      assert.equal(await selected.textContent(), names[0]);

      // n: the note, without an n in it.
      await blur(page);
      await page.keyboard.press('n');
      assert.equal(await focused(page), 'Note');
      assert.equal(await page.getByRole('textbox', { name: 'Note', exact: true }).inputValue(), '');
      await page.keyboard.type('e');
      assert.equal(await page.getByRole('textbox', { name: 'Note', exact: true }).inputValue(), 'e');

      // ?: the list of keys, closed by Escape.
      await blur(page);
      const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts', exact: true });
      assert.equal(await dialog.count(), 0);
      await page.keyboard.press('?');
      await dialog.waitFor({ timeout: WAIT });
      for (const line of ['Next chat', 'Previous chat', 'Reply', 'Private note', 'Mark done', 'Assign to me', 'Search']) {
        assert.equal(await dialog.getByText(line, { exact: true }).count(), 1, line);
      }
      // Keys inside the list run nothing.
      await page.keyboard.press('j');
      assert.equal(openChatId(page), chatId);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden', timeout: WAIT });

      // /: the search box has the focus when the Inbox has one; without one, nothing happens.
      await blur(page);
      await page.keyboard.press('/');
      const searchBoxes = await page.getByRole('searchbox').count();
      if (searchBoxes > 0) assert.equal(await page.evaluate("document.activeElement?.getAttribute('role') === 'searchbox' || document.activeElement?.type === 'search'"), true);
      else assert.equal(await focused(page), 'BODY');
      assert.equal(openChatId(page), chatId);
    });
  });
});
