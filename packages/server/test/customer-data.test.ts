// Customer data (issue #45, item 5; DESIGN "Security and privacy") over HTTP against a real database: the export of
// a customer with chats on two channels (the zip unpacked: its JSON and a file), the erasure (texts gone from the
// console and the public API, the file gone from the store, no name or e-mail left, the reports' counts unchanged,
// nothing new sent to the webhook), another account's customer a 404 that erases nothing, agents 403, unknown
// parameters 400.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { unzipSync, strFromU8 } from 'fflate';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';
import { eventually } from './support/events.ts';
import { PASSWORD, PUBLIC_URL, startTestApp, type TestApp } from './support/harness.ts';

const SITE = 'https://shop.example';
const FILE_TEXT = 'Order 4411, delivered to 12 Elm Street\n';

let t: TestApp;
let receiver: Receiver;
let counter = 0;

before(async () => {
  t = await startTestApp({ webhookAllowPrivateNetworks: true });
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  await t.close();
});

type User = Awaited<ReturnType<TestApp['createConsoleUser']>>;
type Exported = {
  customer: Record<string, string>;
  chats: {
    id: string;
    channel: { id: string; kind: string; name: string };
    name: string;
    email: string | null;
    messages: { role: string; origin: string; text: string; attachments: { name: string; file: string | null }[] }[];
    notes: { authorName: string; text: string }[];
    ratings: unknown[];
  }[];
};

async function widgetChannel(user: User, name: string): Promise<string> {
  const res = await t.console<{ id: string }>(user.token, 'POST', '/channel/widget/connect/', {
    body: { name, webhookUrl: `${receiver.url}/hook`, disableAgentResponses: true, widget: { allowedOrigins: [SITE], messagesPerMinute: 60 } },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.id;
}

/** A visitor of `channelId` with `identity` says `text` (with a file when given): the console id of the chat. */
async function visitorSays(user: User, channelId: string, identity: Record<string, string>, text: string, file?: string): Promise<string> {
  const session = await t.request<{ token: string }>('POST', '/widget/v1/session', { body: { origin: SITE, channelId, identity } });
  assert.equal(session.status, 200, session.text);
  const headers = { authorization: `Bearer ${session.body.token}` };
  if (file === undefined) {
    const sent = await t.request('POST', '/widget/v1/messages', { body: { text }, headers });
    assert.equal(sent.status, 201, sent.text);
  } else {
    const form = new FormData();
    form.set('text', text);
    form.set('files', new Blob([file], { type: 'text/plain' }), 'order.txt');
    const sent = await fetch(`${t.url}/widget/v1/messages`, { method: 'POST', headers, body: form });
    assert.equal(sent.status, 201, await sent.text());
  }
  const inbox = await t.console<{ chats: { id: string; text: string }[] }>(user.token, 'GET', '/chat/all-chats/');
  const chat = inbox.body.chats.find((c) => c.text === text);
  assert.ok(chat, `no chat for ${text}`);
  return chat.id;
}

async function addAgent(owner: User): Promise<string> {
  const email = `agent-${process.pid}-${Date.now()}-${(counter += 1)}@example.com`;
  const invite = await t.console<{ inviteUrl: string }>(owner.token, 'POST', '/members/invite/', { body: { email, role: 'agent' } });
  assert.equal(invite.status, 201, invite.text);
  const accepted = await t.console<{ token: string }>(undefined, 'POST', '/auth/accept-invite', {
    body: { token: invite.body.inviteUrl.slice(`${PUBLIC_URL}/invite/`.length), name: 'Agent', password: PASSWORD },
  });
  assert.equal(accepted.status, 200, accepted.text);
  return accepted.body.token;
}

/** A customer (Ann) with a chat on each of two widget channels, a file, a team reply and a note; and Bob on one. */
async function customers(user: User) {
  const site = await widgetChannel(user, 'Site');
  const help = await widgetChannel(user, 'Help centre');
  const tag = `${process.pid}-${(counter += 1)}`;
  const email = `ann-${tag}@example.com`;
  const first = await visitorSays(user, site, { identifier: `ann-${tag}`, name: 'Ann Customer', email }, `My order ${tag} is late`, FILE_TEXT);
  const second = await visitorSays(user, help, { identifier: `ann2-${tag}`, name: 'Ann C.', email: email.toUpperCase() }, `Where is my refund ${tag}?`);
  const bob = await visitorSays(user, site, { identifier: `bob-${tag}`, name: 'Bob Other', email: `bob-${tag}@example.com` }, `Bob asks ${tag}`);
  assert.equal((await t.console(user.token, 'POST', `/chat/messages/${first}/`, { body: { text: 'We are on it, Ann.' } })).status, 201);
  assert.equal((await t.console(user.token, 'POST', `/chat/notes/${first}/`, { body: { text: 'Ann called twice' } })).status, 201);
  // The first conversation ends (done): the reports count it.
  assert.equal((await t.console(user.token, 'POST', `/chat/status/${first}/`, { body: { status: 'done' } })).status, 200);
  return { email, first, second, bob, site, help, tag };
}

const window = () => {
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  return { from: day(-1), to: day(1) };
};

describe('customer data', () => {
  test('export by e-mail: a zip of customer.json (both channels’ chats, messages, notes) and the file', async () => {
    const user = await t.createConsoleUser();
    const c = await customers(user);
    const res = await fetch(`${t.url}/console/v1/customers/export?email=${encodeURIComponent(c.email)}`, { headers: { authorization: `Bearer ${user.token}` } });
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(res.headers.get('content-type'), 'application/zip');
    assert.match(res.headers.get('content-disposition') ?? '', /attachment; filename="customer-data.zip"/);
    const zip = unzipSync(new Uint8Array(await res.arrayBuffer()));
    const doc = JSON.parse(strFromU8(zip['customer.json'] ?? new Uint8Array())) as Exported;
    assert.deepEqual(doc.customer, { email: c.email });
    assert.deepEqual(doc.chats.map((chat) => [chat.id, chat.channel.name, chat.name]).sort(), [
      [c.first, 'Site', 'Ann Customer'],
      [c.second, 'Help centre', 'Ann C.'],
    ].sort());
    const first = doc.chats.find((chat) => chat.id === c.first);
    assert.ok(first);
    assert.deepEqual(first.messages.map((m) => [m.origin, m.text]), [
      ['customer', `My order ${c.tag} is late`],
      ['team', 'We are on it, Ann.'],
    ]);
    assert.deepEqual(first.notes.map((n) => n.text), ['Ann called twice']);
    assert.deepEqual(first.ratings, []);
    const [attachment] = first.messages[0]?.attachments ?? [];
    assert.equal(attachment?.name, 'order.txt');
    assert.match(attachment?.file ?? '', /^files\/[0-9a-f-]{36}-1-order\.txt$/);
    assert.equal(strFromU8(zip[attachment?.file ?? ''] ?? new Uint8Array()), FILE_TEXT);
    // Bob is not in it.
    assert.ok(!JSON.stringify(doc).includes('Bob'));

    // By chat: the chat and the chats with its e-mail.
    const byChat = await fetch(`${t.url}/console/v1/customers/export?chatId=${c.second}`, { headers: { authorization: `Bearer ${user.token}` } });
    assert.equal(byChat.status, 200);
    const byChatDoc = JSON.parse(strFromU8(unzipSync(new Uint8Array(await byChat.arrayBuffer()))['customer.json'] ?? new Uint8Array())) as Exported;
    assert.deepEqual(byChatDoc.chats.map((chat) => chat.id).sort(), [c.first, c.second].sort());
  });

  test('erase: texts, files, names and e-mails go; the reports count the same; nothing new reaches the webhook', async () => {
    const user = await t.createConsoleUser();
    const c = await customers(user);
    const before = await t.console(user.token, 'GET', '/reports/summary', { query: window() });
    assert.equal(before.status, 200, before.text);
    const ended = () =>
      queryRows<{ n: number }>(t.database.db, sql`select coalesce(sum(ended), 0)::int as n from conversation_days where account_id = ${user.accountId}`);
    const endedBefore = await eventually(async () => ((await ended())[0]?.n ?? 0) > 0 && (await ended())[0]?.n);
    const messagesBefore = await t.console<{ messages: { kind: string; attachments?: { url: string }[] }[] }>(user.token, 'GET', `/chat/messages/${c.first}/`);
    const fileUrl = (messagesBefore.body.messages.flatMap((m) => m.attachments ?? [])[0]?.url ?? '').replace(PUBLIC_URL, t.url);
    assert.ok(fileUrl.startsWith(`${t.url}/files/`), fileUrl);
    assert.equal((await fetch(fileUrl)).status, 200);
    // Every webhook of the customer's chats so far has arrived (their two messages, the team reply, the status).
    const hooksOf = () => receiver.requests.filter((r) => r.body.includes(c.site) || r.body.includes(c.help)).length;
    await eventually(async () => receiver.requests.some((r) => r.body.includes(`Where is my refund ${c.tag}?`)) && hooksOf() >= 4);
    const hooksBefore = hooksOf();

    const erased = await t.console(user.token, 'POST', '/customers/erase', { body: { email: c.email } });
    assert.deepEqual([erased.status, erased.body], [200, { chats: 2, messages: 4, files: 1 }]);

    // The console: no text, no file, no name, no e-mail.
    for (const chatId of [c.first, c.second]) {
      const history = await t.console<{ messages: { text: string; attachments?: unknown[] }[] }>(user.token, 'GET', `/chat/messages/${chatId}/`);
      assert.equal(history.status, 200, history.text);
      assert.ok(history.body.messages.length > 0);
      for (const m of history.body.messages) assert.deepEqual([m.text, m.attachments ?? []], ['', []], JSON.stringify(m));
      const info = await t.console<{ dialogName: string; email: string | null; chatId: string }>(user.token, 'GET', `/chat/info/${chatId}/`);
      assert.deepEqual([info.body.dialogName, info.body.email], ['', null]);
      assert.ok(!info.body.chatId.includes('ann'));
    }
    assert.equal((await fetch(fileUrl)).status, 404);
    // The public API: the chat list and the event feed hold none of it.
    const list = await t.api<{ chats: { id: string; dialogName: string; text: string; email: string | null }[] }>(user.key, '/chats/chat');
    assert.equal(list.status, 200, list.text);
    const publicAnn = list.body.chats.filter((chat) => chat.id === c.first || chat.id === c.second);
    assert.deepEqual(publicAnn.map((chat) => [chat.dialogName, chat.text, chat.email]), [['', '', null], ['', '', null]]);
    // Another customer keeps theirs. On a PostgreSQL server the feed shows an event once every older transaction of
    // the server has ended (another test file's too): read until Bob's message is there.
    const feed = await eventually(async () => {
      const read = await t.api(user.key, '/events');
      assert.equal(read.status, 200, read.text);
      return read.text.includes(`Bob asks ${c.tag}`) ? read : undefined;
    });
    assert.ok(!feed.text.includes(`My order ${c.tag} is late`), 'no erased text in the feed');
    assert.ok(!feed.text.includes(`Where is my refund ${c.tag}?`), 'no erased text in the feed');
    // Bob's chat keeps everything.
    const bob = await t.console<{ dialogName: string }>(user.token, 'GET', `/chat/info/${c.bob}/`);
    assert.equal(bob.body.dialogName, 'Bob Other');
    // The reports count the same.
    const afterSummary = await t.console(user.token, 'GET', '/reports/summary', { query: window() });
    assert.deepEqual(afterSummary.body, before.body);
    assert.equal((await ended())[0]?.n, endedBefore);
    // Nothing was sent to the webhook for the erasure.
    const pending = await queryRows<{ n: number }>(
      t.database.db,
      sql`select count(*)::int as n from deliveries where channel_id in (${c.site}, ${c.help}) and status = 'pending'`,
    );
    assert.equal(pending[0]?.n, 0);
    assert.equal(hooksOf(), hooksBefore);
    // Erased again: the messages are counted, nothing else is left to go.
    const again = await t.console(user.token, 'POST', '/customers/erase', { body: { chatId: c.first } });
    assert.deepEqual([again.status, again.body], [200, { chats: 1, messages: 3, files: 0 }]);
  });

  test("another account's customer is not found and nothing of theirs is erased; agents 403; unknown or missing parameters 400", async () => {
    const user = await t.createConsoleUser();
    const c = await customers(user);
    const stranger = await t.createConsoleUser();
    for (const body of [{ email: c.email }, { chatId: c.first }, { chatId: 'not-a-chat' }]) {
      const res = await t.console(stranger.token, 'POST', '/customers/erase', { body });
      assert.deepEqual([res.status, res.body], [404, { message: 'Customer not found', statusCode: 404 }], JSON.stringify(body));
    }
    const exported = await t.console(stranger.token, 'GET', '/customers/export', { query: { chatId: c.first } });
    assert.deepEqual([exported.status, exported.body], [404, { message: 'Customer not found', statusCode: 404 }]);
    const info = await t.console<{ dialogName: string }>(user.token, 'GET', `/chat/info/${c.first}/`);
    assert.equal(info.body.dialogName, 'Ann Customer');

    const agent = await addAgent(user);
    assert.equal((await t.console(agent, 'POST', '/customers/erase', { body: { email: c.email } })).status, 403);
    assert.equal((await t.console(agent, 'GET', '/customers/export', { query: { email: c.email } })).status, 403);

    for (const body of [{ email: c.email, name: 'x' }, {}, { email: c.email, chatId: c.first }]) {
      const res = await t.console(user.token, 'POST', '/customers/erase', { body });
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
    }
    assert.equal((await t.console(user.token, 'GET', '/customers/export', { query: { email: c.email, phone: '1' } })).status, 400);
    assert.equal((await t.console(user.token, 'GET', '/customers/export')).status, 400);
    const missing = await t.console(user.token, 'POST', '/customers/erase', { body: {} });
    assert.deepEqual(missing.body, { message: 'Give either email or chatId', statusCode: 400 });
    // Still all there.
    const history = await t.console<{ messages: { text: string }[] }>(user.token, 'GET', `/chat/messages/${c.first}/`);
    assert.ok(history.body.messages.some((m) => m.text === `My order ${c.tag} is late`));
  });
});
