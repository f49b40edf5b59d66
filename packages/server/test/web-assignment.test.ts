// Auto-assignment in a real browser (issue #44, item 2, "done when"): the header's `Availability` switch; a handoff
// lands assigned to the available member and shows in their Inbox (`Mine`) without a reload; while they are away it
// waits, and it is theirs once they are available again; Settings → `Assignment` (mode, capacity, team hours) and
// Team → `Capacity of <e-mail>` save what they show.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { browserTests, launchBrowser, signIn, withScreenshotOnFailure, type TestBrowser } from './support/browser.ts';
import { eventually } from './support/events.ts';
import { PASSWORD, startTestApp, type TestApp } from './support/harness.ts';

const WAIT = 20_000;

let t: TestApp;
let browser: TestBrowser;
let owner: Awaited<ReturnType<TestApp['createConsoleUser']>>;
let channelId: string;
const stamp = `${process.pid}-${Date.now()}`;

async function customerSays(externalChatId: string, text: string, senderName: string): Promise<void> {
  const res = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
    headers: { authorization: owner.key },
    body: { channel: 'custom', channelId, externalChatId, role: 'user', text, senderName },
  });
  assert.equal(res.status, 201, res.text);
}

async function chatOf(externalChatId: string) {
  const list = await t.console<{ chats: { chatId: string; needsHuman: boolean; assignee: { id: string } | null }[] }>(owner.token, 'GET', '/chat/all-chats/', {
    query: { channelId },
  });
  return list.body.chats.find((c) => c.chatId === externalChatId);
}

async function availabilityOf(token: string): Promise<unknown> {
  return (await t.console<{ availability: string }>(token, 'GET', '/me/')).body.availability;
}

async function mineList(page: Page) {
  await page.getByRole('link', { name: 'Inbox', exact: true }).click();
  await page.getByRole('list', { name: 'Chats', exact: true }).waitFor({ timeout: WAIT });
  await page.getByRole('combobox', { name: 'Assignee', exact: true }).selectOption({ label: 'Mine' });
  return page.getByRole('list', { name: 'Chats', exact: true });
}

describe('auto-assignment in the web account', browserTests, () => {
  let ann: { id: string; email: string; token: string };
  before(async () => {
    t = await startTestApp();
    browser = await launchBrowser();
    owner = await t.createConsoleUser();
    const channel = await t.console<{ id: string }>(owner.token, 'POST', '/channel/custom/connect/', { body: { name: 'Support', handoffAfterFallbacks: 0 } });
    assert.equal(channel.status, 201, channel.text);
    channelId = channel.body.id;
    const email = `ann-${stamp}@example.com`;
    const invite = await t.console<{ id: string; inviteUrl: string }>(owner.token, 'POST', '/members/invite/', { body: { email, role: 'agent' } });
    assert.equal(invite.status, 201, invite.text);
    const token = new URL(invite.body.inviteUrl).pathname.split('/').pop() ?? '';
    const accepted = await t.console<{ token: string }>(undefined, 'POST', '/auth/accept-invite', { body: { token, name: 'Ann Agent', password: PASSWORD } });
    assert.equal(accepted.status, 200, accepted.text);
    ann = { id: invite.body.id, email, token: accepted.body.token };
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('the Availability switch; a handoff lands assigned to the available member, in their Inbox, and waits while they are away', async (ctx) => {
    const ownerPage = (await browser.newPage()).page;
    const annPage = (await browser.newPage()).page;
    await withScreenshotOnFailure(ctx, annPage, async () => {
      // Settings → Assignment: round robin, saved.
      await signIn(ownerPage, `${t.url}/settings`, owner.email, PASSWORD);
      const mode = ownerPage.getByRole('combobox', { name: 'Assignment mode', exact: true });
      await eventually(async () => (await mode.inputValue()) === 'off', WAIT);
      await mode.selectOption({ label: 'Round robin' });
      await ownerPage.getByRole('spinbutton', { name: 'Open chats per member', exact: true }).fill('5');
      await ownerPage.getByRole('button', { name: 'Save assignment settings', exact: true }).click();
      await eventually(async () => {
        const settings = (await t.console<Record<string, unknown>>(owner.token, 'GET', '/account/assignment/')).body;
        return settings.mode === 'round_robin' && settings.capacity === 5;
      }, WAIT);

      // The owner steps away with the header's switch.
      const ownerSwitch = ownerPage.getByRole('combobox', { name: 'Availability', exact: true });
      await eventually(async () => (await ownerSwitch.inputValue()) === 'available', WAIT);
      await ownerSwitch.selectOption({ label: 'Away' });
      await eventually(async () => (await availabilityOf(owner.token)) === 'away', WAIT);

      // Ann is available: a handoff is hers, and shows in her Inbox under Mine without a reload.
      await signIn(annPage, `${t.url}/overview`, ann.email, PASSWORD);
      const list = await mineList(annPage);
      await customerSays('w1', 'Can I talk to a real person please?', 'Wanda Waiting');
      await list.getByRole('button').filter({ hasText: 'Wanda Waiting' }).waitFor({ timeout: WAIT });
      assert.equal((await chatOf('w1'))?.assignee?.id, ann.id);

      // Ann steps away: the next handoff waits, unassigned.
      const annSwitch = annPage.getByRole('combobox', { name: 'Availability', exact: true });
      await annSwitch.selectOption({ label: 'Away' });
      await eventually(async () => (await availabilityOf(ann.token)) === 'away', WAIT);
      await customerSays('w2', 'I want to talk to a human', 'Otto Oldest');
      await eventually(async () => (await chatOf('w2'))?.needsHuman === true, WAIT);
      assert.equal((await chatOf('w2'))?.assignee, null);

      // Back: the waiting chat is hers at once, in her list.
      await annSwitch.selectOption({ label: 'Available' });
      await list.getByRole('button').filter({ hasText: 'Otto Oldest' }).waitFor({ timeout: WAIT });
      assert.equal((await chatOf('w2'))?.assignee?.id, ann.id);
    });
  });

  test('Settings → Assignment: team hours with a time zone (an unknown one refused); Team → a member’s capacity', async (ctx) => {
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await signIn(page, `${t.url}/settings`, owner.email, PASSWORD);
      const always = page.getByRole('checkbox', { name: 'Always open', exact: true });
      await eventually(async () => (await always.isChecked()) === true, WAIT);
      await always.uncheck();
      await page.getByRole('textbox', { name: 'Team time zone', exact: true }).fill('Mars/Olympus');
      await page.getByRole('textbox', { name: 'Monday hours', exact: true }).fill('09:00-12:00, 13:00-18:00');
      await page.getByRole('textbox', { name: 'Friday hours', exact: true }).fill('10:00-16:00');
      await page.getByRole('button', { name: 'Save team hours', exact: true }).click();
      await page.getByText('timezone: unknown time zone "Mars/Olympus"').waitFor({ timeout: WAIT });
      await page.getByRole('textbox', { name: 'Team time zone', exact: true }).fill('Europe/Berlin');
      await page.getByRole('button', { name: 'Save team hours', exact: true }).click();
      await eventually(async () => {
        const hours = (await t.console<{ timezone: string; weekly: Record<string, string[][]> | null }>(owner.token, 'GET', '/account/hours/')).body;
        return hours.timezone === 'Europe/Berlin' && hours.weekly !== null ? hours : undefined;
      }, WAIT).then((hours) =>
        assert.deepEqual(hours.weekly, {
          mon: [
            ['09:00', '12:00'],
            ['13:00', '18:00'],
          ],
          tue: [],
          wed: [],
          thu: [],
          fri: [['10:00', '16:00']],
          sat: [],
          sun: [],
        }),
      );

      // Team: Ann's own capacity.
      await page.getByRole('link', { name: 'Team', exact: true }).click();
      const capacity = page.getByRole('spinbutton', { name: `Capacity of ${ann.email}`, exact: true });
      await capacity.fill('3');
      await capacity.press('Tab');
      await eventually(async () => {
        const members = (await t.console<{ members: { id: string; capacity: number | null }[] }>(owner.token, 'GET', '/members/')).body.members;
        return members.find((m) => m.id === ann.id)?.capacity === 3;
      }, WAIT);
    });
  });
});
