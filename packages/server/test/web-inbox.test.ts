// The Inbox in a real browser (issue #13 journeys): customer messages appear live; a reply reaches the webhook
// as new_messages with role assistant; pause, done and ban change what the public API reports; a correction
// lands in the knowledge base and the next customer asking gets it; markup in messages is shown as text.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { mp3WithId3, pdf, png } from './fixtures/files/samples.ts';
import { browserTests, launchBrowser, signIn, withScreenshotOnFailure, type TestBrowser } from './support/browser.ts';
import { eventually } from './support/events.ts';
import { PASSWORD, startTestApp, type TestApp } from './support/harness.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

const WAIT = 20_000;

type WebhookPayload = {
  event: string;
  chat?: { id: string; externalChatId?: string };
  messages?: { id: string; role: string; text: string }[];
};
type PublicChat = { id: string; chatId: string; paused: boolean; isTriggered: boolean; uniqueId: string; dialogName: string };

let t: TestApp;
let browser: TestBrowser;
let receiver: Receiver;
let user: Awaited<ReturnType<TestApp['createConsoleUser']>>;
let channelId: string;
let knowledgeBaseId: string;

async function customerSays(externalChatId: string, text: string, senderName = 'Alice Customer'): Promise<void> {
  const res = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
    headers: { authorization: user.key },
    body: { channel: 'custom', channelId, externalChatId, role: 'user', text, senderName },
  });
  assert.equal(res.status, 201, res.text);
}

async function publicChat(externalChatId: string): Promise<PublicChat | undefined> {
  const list = await t.api<{ chats: PublicChat[] }>(user.key, '/chats/chat', { channelId });
  return list.body.chats.find((chat) => chat.chatId === externalChatId);
}

/** The agent's replies the receiver got in a chat. */
function agentReplies(externalChatId: string): string[] {
  return receiver.requests
    .map((request) => JSON.parse(request.body) as WebhookPayload)
    .filter((p) => p.event === 'new_messages' && p.chat?.externalChatId === externalChatId)
    .flatMap((p) => p.messages ?? [])
    .filter((m) => m.role === 'assistant')
    .map((m) => m.text);
}

async function openInbox(page: Page): Promise<void> {
  await signIn(page, `${t.url}/inbox`, user.email, PASSWORD);
  await page.getByRole('list', { name: 'Chats', exact: true }).waitFor({ timeout: WAIT });
}

async function openChat(page: Page, dialogName: string): Promise<void> {
  const item = page.getByRole('list', { name: 'Chats', exact: true }).getByRole('button').filter({ hasText: dialogName });
  await item.first().click({ timeout: WAIT });
  await page.getByRole('log').waitFor({ timeout: WAIT });
}

describe('Inbox', browserTests, () => {
  before(async () => {
    t = await startTestApp({ webhookAllowPrivateNetworks: true });
    browser = await launchBrowser();
    receiver = await startReceiver();
    user = await t.createConsoleUser();
    const base = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ', language: 'en' } });
    knowledgeBaseId = base.body.id;
    await t.console(user.token, 'POST', `/knowledge-bases/${knowledgeBaseId}/entries`, {
      body: { question: 'What are your opening hours?', answer: 'We are open 9 to 5, Monday to Friday.' },
    });
    const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
      body: { name: 'Support', webhookUrl: `${receiver.url}/hook`, knowledgeBaseId },
    });
    assert.equal(channel.status, 201, channel.text);
    channelId = channel.body.id;
  });
  after(async () => {
    await browser?.close();
    await receiver?.close();
    await t?.close();
  });

  test('a customer message appears live; a reply reaches the webhook as new_messages with role assistant', async (ctx) => {
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await openInbox(page);
      const chats = page.getByRole('list', { name: 'Chats', exact: true });

      // No reload: the message arrives through the live stream.
      await customerSays('live-1', 'Hello, is anyone there?', 'Bob Live');
      await chats.getByText('Bob Live').waitFor({ timeout: WAIT });
      await openChat(page, 'Bob Live');
      const log = page.getByRole('log');
      await log.getByText('Hello, is anyone there?').waitFor({ timeout: WAIT });

      await customerSays('live-1', 'Second question, still live', 'Bob Live');
      await log.getByText('Second question, still live').waitFor({ timeout: WAIT });

      const before = receiver.requests.length;
      await page.getByRole('textbox', { name: 'Reply', exact: true }).fill('Hi Bob, a human here.');
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await log.getByText('Hi Bob, a human here.').waitFor({ timeout: WAIT });
      const payload = await eventually(async () => {
        return receiver.requests
          .slice(before)
          .map((r) => JSON.parse(r.body) as WebhookPayload)
          .find((p) => p.event === 'new_messages' && p.messages?.some((m) => m.text === 'Hi Bob, a human here.'));
      }, WAIT);
      assert.equal(payload.messages?.find((m) => m.text === 'Hi Bob, a human here.')?.role, 'assistant');
    });
  });

  test('pause, done and ban from the Inbox change what the public API reports', async (ctx) => {
    await customerSays('actions-1', 'I need help with an order', 'Carol Actions');
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await openInbox(page);
      await openChat(page, 'Carol Actions');

      await page.getByRole('button', { name: 'Pause agent', exact: true }).click();
      await page.getByRole('button', { name: 'Resume agent', exact: true }).waitFor({ timeout: WAIT });
      assert.equal((await publicChat('actions-1'))?.paused, true);

      await page.getByRole('button', { name: 'Mark done', exact: true }).click();
      await page.getByRole('button', { name: 'Mark not done', exact: true }).waitFor({ timeout: WAIT });
      assert.equal((await publicChat('actions-1'))?.isTriggered, true);

      await page.getByRole('button', { name: 'Ban', exact: true }).click();
      await page.getByRole('button', { name: 'Unban', exact: true }).waitFor({ timeout: WAIT });
      const chat = await publicChat('actions-1');
      assert.ok(chat);
      // Banned: the public ban says so.
      const ban = await t.api<{ message: string }>(user.key, '/chats/chat/ban', { uniqueId: chat.uniqueId });
      assert.equal(ban.status, 400);
      assert.equal(ban.body.message, 'Chat already banned');

      await page.getByRole('button', { name: 'Unban', exact: true }).click();
      await page.getByRole('button', { name: 'Ban', exact: true }).waitFor({ timeout: WAIT });
      const unbanned = await t.api<{ message: string }>(user.key, '/chats/chat/unban', { uniqueId: chat.uniqueId });
      assert.equal(unbanned.body.message, 'Chat not banned');

      await page.getByRole('button', { name: 'Resume agent', exact: true }).click();
      await page.getByRole('button', { name: 'Pause agent', exact: true }).waitFor({ timeout: WAIT });
      assert.equal((await publicChat('actions-1'))?.paused, false);

      await page.getByRole('button', { name: 'Mark not done', exact: true }).click();
      await page.getByRole('button', { name: 'Mark done', exact: true }).waitFor({ timeout: WAIT });
      assert.equal((await publicChat('actions-1'))?.isTriggered, false);
    });
  });

  test('a correction from the Inbox lands in the knowledge base and the next customer asking gets it', async (ctx) => {
    const question = 'Do you deliver to the Moon?';
    const corrected = 'Yes: lunar delivery takes three weeks.';
    await customerSays('correct-1', question, 'Dave Question');
    // The agent has no answer yet: its fallback reply arrives.
    await eventually(async () => agentReplies('correct-1').length > 0, WAIT);
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await openInbox(page);
      await openChat(page, 'Dave Question');
      await page.getByRole('button', { name: 'Correct the answer', exact: true }).click({ timeout: WAIT });
      await page.getByRole('textbox', { name: 'Correct answer', exact: true }).fill(corrected);
      await page.getByRole('button', { name: 'Save to knowledge base', exact: true }).click();
      await page.getByText('Corrected', { exact: true }).waitFor({ timeout: WAIT });

      const entries = await t.console<{ entries: { question: string; answer: string; source: string }[] }>(
        user.token,
        'GET',
        `/knowledge-bases/${knowledgeBaseId}/entries`,
      );
      assert.deepEqual(
        entries.body.entries.filter((e) => e.source === 'correction').map((e) => [e.question, e.answer]),
        [[question, corrected]],
      );

      await customerSays('correct-2', question, 'Erin Next');
      const replies = await eventually(async () => {
        const texts = agentReplies('correct-2');
        return texts.length > 0 ? texts : undefined;
      }, WAIT);
      assert.equal(replies[0], corrected);

      // The knowledge base page marks the entry as a correction.
      await page.getByRole('link', { name: 'Knowledge bases', exact: true }).click();
      await page.getByRole('link', { name: 'FAQ', exact: true }).click();
      await page.getByText(corrected).waitFor({ timeout: WAIT });
      await page.getByText('From a correction').waitFor({ timeout: WAIT });

      // Mark correct on another agent reply.
      await page.getByRole('link', { name: 'Inbox', exact: true }).click();
      await openChat(page, 'Erin Next');
      await page.getByRole('button', { name: 'Mark correct', exact: true }).click({ timeout: WAIT });
      await page.getByText('Marked correct', { exact: true }).waitFor({ timeout: WAIT });
    });
  });

  test('attachments: images inline, audio playable, other files as links', async (ctx) => {
    const data = new FormData();
    for (const [name, value] of Object.entries({ channel: 'custom', channelId, externalChatId: 'files-1', role: 'user', text: 'See attached', senderName: 'Fay Files' })) {
      data.append(name, value);
    }
    data.append('files', new Blob([png()], { type: 'image/png' }), 'photo.png');
    data.append('files', new Blob([mp3WithId3()], { type: 'audio/mpeg' }), 'voice.mp3');
    data.append('files', new Blob([pdf()], { type: 'application/pdf' }), 'invoice.pdf');
    const res = await fetch(`${t.url}/api/v1/chats/chat/send-message-universal`, { method: 'POST', headers: { authorization: user.key }, body: data });
    assert.equal(res.status, 201, await res.text());
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await openInbox(page);
      await openChat(page, 'Fay Files');
      const log = page.getByRole('log');
      await log.getByRole('img', { name: 'photo.png', exact: true }).waitFor({ timeout: WAIT });
      assert.equal(await log.locator('audio[controls]').count(), 1);
      const link = log.getByRole('link', { name: 'invoice.pdf', exact: true });
      await link.waitFor({ timeout: WAIT });
      assert.match((await link.getAttribute('href')) ?? '', /^https:\/\/parley\.test\/files\//);
    });
  });

  test('opening an unread chat with a long history shows its newest message', async (ctx) => {
    // The customer's first and last messages (the chat is unread), the team's 38 between them.
    await customerSays('long-1', 'Message number 1 of a long history', 'Larry Longchat');
    for (let i = 2; i < 40; i += 1) {
      const res = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
        headers: { authorization: user.key },
        body: { channel: 'custom', channelId, externalChatId: 'long-1', role: 'assistant', text: `Message number ${i} of a long history` },
      });
      assert.equal(res.status, 201, res.text);
    }
    await customerSays('long-1', 'Message number 40 of a long history', 'Larry Longchat');
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await openInbox(page);
      await openChat(page, 'Larry Longchat');
      const log = page.getByRole('log');
      const newest = log.getByText('Message number 40 of a long history', { exact: true });
      await newest.waitFor({ timeout: WAIT });
      // The log scrolls itself to its end once the chat is shown (after it was marked read).
      await eventually(async () => {
        const [box, item] = await Promise.all([log.boundingBox(), newest.boundingBox()]);
        return box !== null && item !== null && item.y >= box.y - 1 && item.y + item.height <= box.y + box.height + 1;
      }, WAIT);
      const first = await log.getByText('Message number 1 of a long history', { exact: true }).boundingBox();
      const box = await log.boundingBox();
      assert.ok(first && box && first.y + first.height < box.y, 'the oldest message is scrolled out of view above');
    });
  });

  test('a message with markup is shown as text and runs nothing', async (ctx) => {
    const markup = '<img src=x onerror="window.__parleyXss=1"><script>window.__parleyXss=2</script>';
    await customerSays('xss-1', markup, '<b onmouseover="window.__parleyXss=3">Mallory</b>');
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await openInbox(page);
      await openChat(page, 'Mallory');
      const log = page.getByRole('log');
      await log.getByText(markup, { exact: true }).waitFor({ timeout: WAIT });
      assert.equal(await log.locator('img[src="x"]').count(), 0);
      assert.equal(await page.locator('b[onmouseover]').count(), 0);
      await page.getByRole('heading', { name: '<b onmouseover="window.__parleyXss=3">Mallory</b>', exact: true }).waitFor({ timeout: WAIT });
      assert.equal(await page.evaluate('window.__parleyXss'), undefined);
    });
  });
  test('messages 100 ms apart for seconds: the list shows each as it comes, not only once the flow stops', async (ctx) => {
    const quiet = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
      body: { name: 'Flow', settings: { isActive: false } },
    });
    assert.equal(quiet.status, 201, quiet.text);
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await openInbox(page);
      // Every text the list's previews show, with when it first showed (the page's clock is this machine's).
      await page.evaluate(`(() => {
        const seen = (window.__parleySeen = {});
        const list = document.querySelector('ul[aria-label="Chats"]');
        const record = () => {
          for (const preview of list.querySelectorAll('.preview')) seen[preview.textContent] ??= Date.now();
        };
        new MutationObserver(record).observe(list, { childList: true, subtree: true, characterData: true });
      })()`);
      // Ten customers, one message each 100 ms in turn, for 6 seconds.
      const texts: string[] = [];
      for (let n = 0; n < 60; n += 1) {
        const text = `Flowing message ${n}`;
        texts.push(text);
        const sent = t.request('POST', '/api/v1/chats/chat/send-message-universal', {
          headers: { authorization: user.key },
          body: { channel: 'custom', channelId: quiet.body.id, externalChatId: `flow-${n % 10}`, role: 'user', text, senderName: `Flow ${n % 10}` },
        });
        await new Promise((resolve) => setTimeout(resolve, 100));
        assert.equal((await sent).status, 201);
      }
      const flowEnded = Date.now();
      const seenOf = () => page.evaluate('window.__parleySeen') as Promise<Record<string, number>>;
      const seen = await eventually(async () => {
        const now = await seenOf();
        return texts.every((text) => now[text] !== undefined) ? now : undefined;
      }, WAIT);
      const duringFlow = texts.filter((text) => (seen[text] ?? Infinity) < flowEnded);
      assert.ok(duringFlow.length >= texts.length / 2, `${duringFlow.length} of ${texts.length} shown while the flow went on`);
    });
  });
});
