// What the web account's browser tests share: one app and one Chromium for a suite (started before its tests, closed
// after them), a fresh page signed in as a member whose failure leaves a screenshot, and a customer's message on a
// custom channel through the public API.
import assert from 'node:assert/strict';
import { after, before, type TestContext } from 'node:test';
import type { Page } from 'playwright-core';
import { launchBrowser, signIn, withScreenshotOnFailure, type TestBrowser } from './browser.ts';
import { PASSWORD, startTestApp, type TestApp } from './harness.ts';

export interface WebSuite {
  /** The app (once the suite's `before` ran). */
  readonly t: TestApp;
  /** Chromium (once the suite's `before` ran). */
  readonly browser: TestBrowser;
  /**
   * A fresh page (own cookies) that opens `startUrl` and signs in as `email` with the harness's PASSWORD, then runs
   * `body`; a failure of either leaves a screenshot (`withScreenshotOnFailure`).
   */
  signedIn(ctx: TestContext, startUrl: string, email: string, body: (page: Page) => Promise<void>): Promise<void>;
}

/** Starts the app, then Chromium, before the suite's tests and closes both after them: call it inside `describe`. */
export function webSuite(): WebSuite {
  let t: TestApp | undefined;
  let browser: TestBrowser | undefined;
  before(async () => {
    t = await startTestApp();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the web suite has not started: call webSuite() inside describe and use it in tests');
    return value;
  };
  return {
    get t() {
      return started(t);
    },
    get browser() {
      return started(browser);
    },
    async signedIn(ctx, startUrl, email, body) {
      const { page } = await started(browser).newPage();
      await withScreenshotOnFailure(ctx, page, async () => {
        await signIn(page, startUrl, email, PASSWORD);
        await body(page);
      });
    },
  };
}

/** A customer's message in a chat of a custom channel (`send-message-universal`, role `user`) with the account's key: 201. */
export async function sendCustomerMessage(
  t: TestApp,
  key: string,
  message: { channelId: string; externalChatId: string; text: string; senderName?: string },
): Promise<void> {
  const { channelId, externalChatId, text, senderName } = message;
  const res = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
    headers: { authorization: key },
    body: { channel: 'custom', channelId, externalChatId, role: 'user', text, ...(senderName === undefined ? {} : { senderName }) },
  });
  assert.equal(res.status, 201, res.text);
}
