// Chromium for browser tests: Debian's package (or CHROMIUM_PATH) driven by playwright-core; no browser download.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestContext, TestOptions } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { browserSkipReason, chromiumFound, chromiumPath, isCi } from './chromium.mjs';

export const CHROMIUM_PATH = chromiumPath();

/**
 * Options for the suite (or test) that holds a file's browser tests and their hooks: skipped with a line saying
 * how to enable them when there is no Chromium, except under CI, where they run and fail.
 */
export const browserTests: TestOptions = { skip: browserSkipReason() ?? false };

/** Failed tests leave a screenshot here (CI prints the folder). */
export const SCREENSHOT_DIR = path.resolve(process.env.PARLEY_SCREENSHOT_DIR ?? path.join(os.tmpdir(), 'parley-screenshots'));

export interface NewPageOptions {
  locale?: string;
  viewport?: { width: number; height: number };
  /**
   * Chrome's content setting for cookies and site data, set explicitly in a profile of its own (a Chromium of its
   * own): `first-party` blocks third-party cookies and storage (what Safari, Firefox strict, Brave and Chrome with
   * third-party cookies blocked do to a cross-site frame), `none` blocks them all (every page's storage throws).
   * Unset: a fresh context with Chromium's defaults.
   */
  cookies?: 'all' | 'first-party' | 'none';
}

export interface TestBrowser {
  browser: Browser;
  /** A fresh context (own cookies and storage) and its first page. */
  newPage(options?: NewPageOptions): Promise<{ context: BrowserContext; page: Page }>;
  close(): Promise<void>;
}

/** Opens `startUrl` (a page of the web account) and signs in on its sign-in form. */
export async function signIn(page: Page, startUrl: string, email: string, password: string): Promise<void> {
  await page.goto(startUrl);
  await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export async function launchBrowser(): Promise<TestBrowser> {
  if (!chromiumFound()) {
    const why = isCi() ? 'CI is set, so the browser tests must run' : 'the browser tests should have been skipped (browserTests)';
    throw new Error(`no Chromium at ${CHROMIUM_PATH} (${why}): install Debian's chromium or set CHROMIUM_PATH`);
  }
  // playwright-core gives every launch a fresh profile folder of its own (a --user-data-dir flag is refused).
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  const contexts: BrowserContext[] = [];
  const profiles: string[] = [];
  return {
    browser,
    async newPage(options = {}) {
      const settings = { locale: options.locale ?? 'en-US', ...(options.viewport ? { viewport: options.viewport } : {}) };
      let context: BrowserContext;
      if (options.cookies) {
        // Content settings live in a profile's Preferences: a persistent context on a fresh profile folder.
        const profile = await mkdtemp(path.join(os.tmpdir(), 'parley-chromium-'));
        profiles.push(profile);
        await mkdir(path.join(profile, 'Default'));
        const preferences = {
          profile: {
            cookie_controls_mode: options.cookies === 'all' ? 0 : 1, // CookieControlsMode: kOff, kBlockThirdParty
            ...(options.cookies === 'none' ? { default_content_setting_values: { cookies: 2 } } : {}), // CONTENT_SETTING_BLOCK
          },
        };
        await writeFile(path.join(profile, 'Default', 'Preferences'), JSON.stringify(preferences));
        context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS, ...settings });
      } else {
        context = await browser.newContext(settings);
      }
      contexts.push(context);
      const page = context.pages()[0] ?? (await context.newPage());
      return { context, page };
    },
    async close() {
      await Promise.all(contexts.map((context) => context.close().catch(() => undefined)));
      await browser.close();
      await Promise.all(profiles.map((profile) => rm(profile, { recursive: true, force: true })));
    },
  };
}

/**
 * Runs `body` with `page`; when it throws, a full-page screenshot named after the test is saved first, and the
 * error is rethrown with the screenshot's path.
 */
export async function withScreenshotOnFailure(t: TestContext, page: Page, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    const file = path.join(SCREENSHOT_DIR, `${t.name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 120)}-${Date.now()}.png`);
    await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
    if (error instanceof Error) error.message += `\n(screenshot: ${file})`;
    throw error;
  }
}
