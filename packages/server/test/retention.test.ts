// Retention (issue #45, item 6; DESIGN "Security and privacy") over HTTP against a real database: with the account
// setting `retentionDays` 7, the background sweep deletes chats whose conversations ended 10 days ago with their
// messages and files, and in a chat that goes on the old conversation's messages only; recent chats and other
// accounts' old chats stay; the reports' counts stay the same.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { eventually } from './support/events.ts';
import { PUBLIC_URL, startTestApp, type TestApp } from './support/harness.ts';

let t: TestApp;
type User = Awaited<ReturnType<TestApp['createConsoleUser']>>;

before(async () => {
  t = await startTestApp({ conversationSweepMs: 100 });
});
after(() => t.close());

async function channelOf(user: User): Promise<string> {
  const res = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', { body: { name: 'Support', settings: { isActive: false } } });
  assert.equal(res.status, 201, res.text);
  return res.body.id;
}

/** A customer message (with a text file when given): the chat's console id. */
async function says(user: User, channelId: string, externalChatId: string, text: string, file?: string): Promise<string> {
  const form = new FormData();
  for (const [name, value] of Object.entries({ channel: 'custom', channelId, externalChatId, role: 'user', text })) form.set(name, value);
  if (file !== undefined) form.set('files', new Blob([file], { type: 'text/plain' }), 'receipt.txt');
  const res = await fetch(`${t.url}/api/v1/chats/chat/send-message-universal`, { method: 'POST', headers: { authorization: user.key }, body: form });
  assert.equal(res.status, 201, await res.text());
  const list = await t.console<{ chats: { id: string; chatId: string }[] }>(user.token, 'GET', '/chat/all-chats/', { query: { channelId } });
  const chat = list.body.chats.find((c) => c.chatId === externalChatId);
  assert.ok(chat);
  return chat.id;
}

async function done(user: User, chatId: string): Promise<void> {
  assert.equal((await t.console(user.token, 'POST', `/chat/status/${chatId}/`, { body: { status: 'done' } })).status, 200);
  await eventually(async () => (await queryRows(t.database.db, sql`select 1 from conversations where chat_id = ${chatId} and ended_at is null`)).length === 0);
}

/** Everything of the chat so far happened 10 days ago (its conversations settled, so no sweep changes their counts). */
async function tenDaysAgo(chatId: string): Promise<void> {
  const back = sql`interval '10 days'`;
  await t.database.db.execute(sql`update messages set created_at = created_at - ${back} where chat_id = ${chatId}`);
  await t.database.db.execute(sql`update chat_notes set created_at = created_at - ${back} where chat_id = ${chatId}`);
  await t.database.db.execute(
    sql`update conversations set started_at = started_at - ${back}, ended_at = ended_at - ${back}, last_message_at = last_message_at - ${back},
          last_customer_message_at = last_customer_message_at - ${back}, durable = coalesce(durable, true) where chat_id = ${chatId}`,
  );
  await t.database.db.execute(sql`update chats set last_message_at = last_message_at - ${back}, created_at = created_at - ${back} where id = ${chatId}`);
}

const fileUrlOf = async (chatId: string) => {
  const [row] = await queryRows<{ url: string }>(t.database.db, sql`select a->>'url' as url from messages, jsonb_array_elements(attachments) a where chat_id = ${chatId}`);
  assert.ok(row);
  return row.url.replace(PUBLIC_URL, t.url);
};

const counts = async (accountId: string) =>
  (
    await queryRows<{ ended: number; team: number }>(
      t.database.db,
      sql`select coalesce(sum(ended), 0)::int as ended, coalesce(sum(resolved_by_team), 0)::int as team from conversation_days where account_id = ${accountId}`,
    )
  )[0];

const messagesOf = async (chatId: string) =>
  (await queryRows<{ text: string }>(t.database.db, sql`select text from messages where chat_id = ${chatId} order by created_at`)).map((m) => m.text);

describe('retention', () => {
  test('retentionDays: null by default, 7–3650 or null', async () => {
    const user = await t.createConsoleUser();
    assert.equal((await t.console<{ retentionDays: null }>(user.token, 'GET', '/account/settings/')).body.retentionDays, null);
    for (const retentionDays of [6, 3651, 7.5, '30']) {
      const res = await t.console(user.token, 'PUT', '/account/settings/', { body: { retentionDays } });
      assert.equal(res.status, 400, `${String(retentionDays)}: ${res.text}`);
    }
    const set = await t.console(user.token, 'PUT', '/account/settings/', { body: { retentionDays: 3650 } });
    assert.deepEqual([set.status, set.body], [200, { resolutionQuietMinutes: 1440, retentionDays: 3650, requireTwoFactor: false }]);
    const cleared = await t.console(user.token, 'PUT', '/account/settings/', { body: { retentionDays: null } });
    assert.deepEqual(cleared.body, { resolutionQuietMinutes: 1440, retentionDays: null, requireTwoFactor: false });
  });

  test('conversations ended 10 days ago go with their messages and files at 7 days; recent ones and the reports stay', async () => {
    const user = await t.createConsoleUser();
    const channelId = await channelOf(user);
    const old = await says(user, channelId, 'old', 'An old question', 'old receipt');
    assert.equal((await t.console(user.token, 'POST', `/chat/notes/${old}/`, { body: { text: 'old note' } })).status, 201);
    await done(user, old);
    await tenDaysAgo(old);
    // A chat that goes on: an old ended conversation, then a new one today.
    const going = await says(user, channelId, 'going', 'Asked long ago');
    await done(user, going);
    await tenDaysAgo(going);
    await says(user, channelId, 'going', 'Asked today');
    const recent = await says(user, channelId, 'recent', 'A recent question', 'new receipt');
    await done(user, recent);
    // Another account keeps everything (no retention).
    const other = await t.createConsoleUser();
    const otherOld = await says(other, await channelOf(other), 'other-old', 'Kept forever');
    await done(other, otherOld);
    await tenDaysAgo(otherOld);

    const oldFile = await fileUrlOf(old);
    const recentFile = await fileUrlOf(recent);
    assert.equal((await fetch(oldFile)).status, 200);
    const before = await counts(user.accountId);
    assert.equal(before?.ended, 3);
    // The sweep runs every 100 ms: with retention off nothing goes.
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.equal((await t.console(user.token, 'GET', `/chat/info/${old}/`)).status, 200);

    assert.equal((await t.console(user.token, 'PUT', '/account/settings/', { body: { retentionDays: 7 } })).status, 200);
    await eventually(async () => (await t.console(user.token, 'GET', `/chat/info/${old}/`)).status === 404);
    assert.deepEqual(await messagesOf(old), []);
    assert.deepEqual(await queryRows(t.database.db, sql`select 1 from chat_notes where chat_id = ${old}`), []);
    assert.deepEqual(await queryRows(t.database.db, sql`select 1 from conversations where chat_id = ${old}`), []);
    assert.equal((await fetch(oldFile)).status, 404);
    await eventually(async () => (await messagesOf(going)).length === 1);
    assert.deepEqual(await messagesOf(going), ['Asked today']);
    assert.equal((await t.console(user.token, 'GET', `/chat/info/${going}/`)).status, 200);
    // Recent and the other account's: all there.
    assert.deepEqual(await messagesOf(recent), ['A recent question']);
    assert.equal((await fetch(recentFile)).status, 200);
    assert.deepEqual(await messagesOf(otherOld), ['Kept forever']);
    // The reports' rollup counts the same.
    assert.deepEqual(await counts(user.accountId), before);
  });
});
