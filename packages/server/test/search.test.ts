// The Inbox's search over HTTP against a real database (issue #44, 1): `GET /console/v1/search` finds message texts,
// notes, the customer's name and e-mail and the chat id of the member's account only; words are stemmed in the
// channel's aiLang (simple for a language PostgreSQL has no stemmer for), the last one matches as a prefix; the
// chat list's filters, reports' dates, a stable cursor; the snippet is escaped HTML with the matches in <mark>.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SearchHit } from '@parley/contracts';
import { startReceiver, type Receiver } from './support/receiver.ts';
import { startTestApp, type TestApp } from './support/harness.ts';

const SITE = 'https://shop.example';

let t: TestApp;
let receiver: Receiver;

before(async () => {
  t = await startTestApp({ webhookAllowPrivateNetworks: true });
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  await t.close();
});

type User = Awaited<ReturnType<TestApp['createConsoleUser']>>;
type Page = { hits: SearchHit[]; nextCursor: string | null };

/** An API channel (agent off) in a language. */
async function apiChannel(user: User, aiLang: string): Promise<string> {
  const res = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
    body: { name: `Support ${aiLang}`, settings: { isActive: false, aiLang }, webhookUrl: `${receiver.url}/hook` },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.id;
}

/** A customer message in the channel's chat `externalChatId`: the console chat id and the message id. */
async function say(user: User, channelId: string, externalChatId: string, text: string): Promise<{ chatId: string; messageId: string }> {
  const sent = await t.request<{ id: string }>('POST', '/api/v1/chats/chat/send-message-universal', {
    headers: { authorization: user.key },
    body: { channel: 'custom', channelId, externalChatId, role: 'user', text },
  });
  assert.equal(sent.status, 201, sent.text);
  const list = await t.api<{ chats: { id: string; chatId: string }[] }>(user.key, '/chats/chat', { channelId });
  const chat = list.body.chats.find((c) => c.chatId === externalChatId);
  assert.ok(chat, sent.text);
  const history = await t.console<{ messages: { id: string; text: string }[] }>(user.token, 'GET', `/chat/messages/${chat.id}/`);
  const message = history.body.messages.find((m) => m.text === text);
  assert.ok(message, history.text);
  return { chatId: chat.id, messageId: message.id };
}

async function search(user: User, query: Record<string, string>) {
  return t.console<Page>(user.token, 'GET', '/search', { query });
}

/** The hits of a query (asserting a 200). */
async function hitsOf(user: User, query: Record<string, string>): Promise<SearchHit[]> {
  const res = await search(user, query);
  assert.equal(res.status, 200, res.text);
  return res.body.hits;
}

describe('search', () => {
  let owner: User;
  let english: string;
  before(async () => {
    owner = await t.createConsoleUser();
    english = await apiChannel(owner, 'en');
  });

  test('words of a message, the last one as a prefix; every word must match; the hit names its chat and message', async () => {
    const { chatId, messageId } = await say(owner, english, 'words-1', 'My parcel from Lisbon arrived damaged yesterday');
    const [hit, ...rest] = await hitsOf(owner, { q: 'parcel lisb' });
    assert.deepEqual(rest, []);
    assert.ok(hit);
    assert.equal(hit.chatId, chatId);
    assert.equal(hit.messageId, messageId);
    assert.equal(hit.channelName, 'custom');
    assert.equal(typeof hit.chatName, 'string');
    assert.ok(!Number.isNaN(Date.parse(hit.at)));
    assert.equal(hit.snippet, 'My <mark>parcel</mark> from <mark>Lisbon</mark> arrived damaged yesterday');
    // A word other than the last is a whole word; a word nowhere in the text finds nothing.
    assert.deepEqual(await hitsOf(owner, { q: 'parc lisbon' }), []);
    assert.deepEqual(await hitsOf(owner, { q: 'parcel tokyo' }), []);
  });

  test("stemming in the channel's aiLang: English, Russian; a language without a stemmer matches words as written", async () => {
    const { messageId } = await say(owner, english, 'stem-1', 'Can I get a refund for the blender?');
    assert.deepEqual((await hitsOf(owner, { q: 'refunds' })).map((h) => h.messageId), [messageId]);
    assert.deepEqual((await hitsOf(owner, { q: 'refunding blenders' })).map((h) => h.messageId), [messageId]);
    const russian = await apiChannel(owner, 'ru');
    const ru = await say(owner, russian, 'stem-2', 'Где мой заказ?');
    const ruHits = await hitsOf(owner, { q: 'заказами' });
    assert.deepEqual(ruHits.map((h) => h.messageId), [ru.messageId]);
    assert.equal(ruHits[0]?.snippet, 'Где мой <mark>заказ</mark>?');
    const japanese = await apiChannel(owner, 'ja');
    const ja = await say(owner, japanese, 'stem-3', 'kettles whistling');
    assert.deepEqual(await hitsOf(owner, { q: 'kettle whistle' }), []);
    assert.deepEqual((await hitsOf(owner, { q: 'kettles whistl' })).map((h) => h.messageId), [ja.messageId]);
  });

  test("notes are found, with the note's id as messageId", async () => {
    const { chatId } = await say(owner, english, 'note-1', 'hello there');
    const note = await t.console<{ id: string }>(owner.token, 'POST', `/chat/notes/${chatId}/`, { body: { text: 'Promised a callback on Thursday' } });
    assert.equal(note.status, 201, note.text);
    const hits = await hitsOf(owner, { q: 'callback thursday' });
    assert.deepEqual(hits.map((h) => [h.chatId, h.messageId, h.snippet]), [[chatId, note.body.id, 'Promised a <mark>callback</mark> on <mark>Thursday</mark>']]);
  });

  test("the customer's name and e-mail, and the chat id, find the chat (messageId null); an id comes first", async () => {
    const widget = await t.console<{ id: string }>(owner.token, 'POST', '/channel/widget/connect/', {
      body: { name: 'Site', webhookUrl: `${receiver.url}/hook`, disableAgentResponses: true, widget: { allowedOrigins: [SITE], messagesPerMinute: 60 } },
    });
    assert.equal(widget.status, 201, widget.text);
    const session = await t.request<{ token: string }>('POST', '/widget/v1/session', {
      body: { origin: SITE, channelId: widget.body.id, identity: { identifier: 'zq', name: 'Zebediah Quillfeather', email: 'zq.orders@example.org' } },
    });
    assert.equal(session.status, 200, session.text);
    const sent = await t.request('POST', '/widget/v1/messages', { body: { text: 'hi' }, headers: { authorization: `Bearer ${session.body.token}` } });
    assert.equal(sent.status, 201, sent.text);
    const byName = await hitsOf(owner, { q: 'zebediah quill' });
    assert.equal(byName.length, 1);
    const chatId = byName[0]?.chatId ?? '';
    assert.deepEqual(byName[0], {
      chatId,
      messageId: null,
      chatName: 'Zebediah Quillfeather',
      channelName: 'widget',
      at: byName[0]?.at,
      snippet: '<mark>Zebediah</mark> <mark>Quillfeather</mark> · zq.orders@example.org',
    });
    const byEmail = await hitsOf(owner, { q: 'zq.orders@example.org' });
    assert.deepEqual(byEmail.map((h) => [h.chatId, h.messageId, h.snippet]), [[chatId, null, 'Zebediah Quillfeather · <mark>zq.orders@example.org</mark>']]);
    const byId = await hitsOf(owner, { q: chatId.toUpperCase() });
    assert.deepEqual(byId.map((h) => [h.chatId, h.messageId, h.snippet]), [[chatId, null, `<mark>${chatId}</mark>`]]);
  });

  test('the snippet is escaped HTML: a <script> in a message comes back as text, the match in <mark>', async () => {
    const { messageId } = await say(owner, english, 'html-1', `<script>alert("x")</script> & 'quoted' voucher`);
    const hits = await hitsOf(owner, { q: 'voucher' });
    assert.deepEqual(hits.map((h) => [h.messageId, h.snippet]), [
      [messageId, '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quoted&#39; <mark>voucher</mark>'],
    ]);
    // Query syntax of tsquery in the words is only text.
    assert.deepEqual(await hitsOf(owner, { q: "vouch' | !x:* & (" }), []);
    assert.deepEqual((await hitsOf(owner, { q: "(voucher' | !:*" })).map((h) => h.messageId), [messageId]);
    assert.deepEqual(await hitsOf(owner, { q: '!!! ???' }), []);
    // A stop word alone is no error (English drops it; `simple` still matches it as a prefix).
    const stop = await search(owner, { q: 'the' });
    assert.equal(stop.status, 200, stop.text);
    assert.ok(!t.logs.some((line) => /stop words|"level":50/.test(line)), 'no notice or error logged');
  });

  test('filters: channel, status, assignee, dates; a page of the best hits and a cursor to the next', async () => {
    const user = await t.createConsoleUser();
    const first = await apiChannel(user, 'en');
    const second = await apiChannel(user, 'en');
    const a = await say(user, first, 'f-a', 'marmalade alpha');
    const b = await say(user, first, 'f-b', 'marmalade beta');
    const c = await say(user, second, 'f-c', 'marmalade gamma');
    const ids = async (query: Record<string, string>) => (await hitsOf(user, { q: 'marmalade', ...query })).map((h) => h.messageId).sort();
    assert.deepEqual(await ids({}), [a.messageId, b.messageId, c.messageId].sort());
    assert.deepEqual(await ids({ channelId: second }), [c.messageId]);
    assert.deepEqual(await ids({ channelId: 'cc:nope' }), []);
    const done = await t.console(user.token, 'POST', `/chat/status/${b.chatId}/`, { body: { status: 'done' } });
    assert.equal(done.status, 200, done.text);
    assert.deepEqual(await ids({ status: 'done' }), [b.messageId]);
    assert.deepEqual(await ids({ status: 'not_done' }), [a.messageId, c.messageId].sort());
    const me = await t.console<{ memberId: string }>(user.token, 'GET', '/auth/session');
    assert.equal(me.status, 200, me.text);
    const assigned = await t.console(user.token, 'POST', `/chat/assign/${a.chatId}/`, { body: { memberId: me.body.memberId } });
    assert.equal(assigned.status, 200, assigned.text);
    assert.deepEqual(await ids({ assignee: 'me' }), [a.messageId]);
    assert.deepEqual(await ids({ assignee: me.body.memberId }), [a.messageId]);
    assert.deepEqual(await ids({ assignee: 'none' }), [b.messageId, c.messageId].sort());
    const today = new Date().toISOString().slice(0, 10);
    assert.deepEqual(await ids({ from: today, to: today }), [a.messageId, b.messageId, c.messageId].sort());
    assert.deepEqual(await ids({ from: '2020-01-01', to: '2020-12-31' }), []);
    assert.deepEqual(await ids({ to: '2020-12-31' }), []);
    assert.deepEqual(await ids({ from: today, status: 'not_done', channelId: first }), [a.messageId]);

    // Five more hits: pages of two follow the order without repeats or gaps.
    for (let i = 0; i < 5; i += 1) await say(user, second, `p-${i}`, `marmalade page ${i}`);
    const all = await hitsOf(user, { q: 'marmalade', limit: '100' });
    assert.equal(all.length, 8);
    const paged: SearchHit[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await search(user, { q: 'marmalade', limit: '3', ...(cursor ? { cursor } : {}) });
      assert.equal(res.status, 200, res.text);
      paged.push(...res.body.hits);
      cursor = res.body.nextCursor;
      pages += 1;
    } while (cursor !== null);
    assert.equal(pages, 3);
    assert.deepEqual(paged, all);
  });

  test("another account's messages, notes and chats are never found", async () => {
    const mine = await t.createConsoleUser();
    const theirs = await t.createConsoleUser();
    const myChannel = await apiChannel(mine, 'en');
    const theirChannel = await apiChannel(theirs, 'en');
    const own = await say(mine, myChannel, 'iso-1', 'quokka sighting');
    const other = await say(theirs, theirChannel, 'iso-2', 'quokka sighting');
    const note = await t.console(theirs.token, 'POST', `/chat/notes/${other.chatId}/`, { body: { text: 'wombat quokka' } });
    assert.equal(note.status, 201, note.text);
    assert.deepEqual((await hitsOf(mine, { q: 'quokka' })).map((h) => h.messageId), [own.messageId]);
    assert.deepEqual(await hitsOf(mine, { q: 'wombat' }), []);
    assert.deepEqual(await hitsOf(mine, { q: other.chatId }), []);
    assert.deepEqual((await hitsOf(theirs, { q: 'quokka' })).map((h) => h.messageId).sort(), [other.messageId, (await hitsOf(theirs, { q: 'wombat' }))[0]?.messageId].sort());
  });

  test('validation: unknown parameters, bad values, dates, cursor; authentication', async () => {
    const cases: [Record<string, string>, RegExp | string][] = [
      [{ q: 'x', unknown: '1' }, /unknown|additional/i],
      [{}, /q/i],
      [{ q: '' }, /q/i],
      [{ q: 'x', status: 'open' }, /status/i],
      [{ q: 'x', assignee: 'someone' }, /assignee/i],
      [{ q: 'x', limit: '0' }, /limit/i],
      [{ q: 'x', limit: '101' }, /limit/i],
      [{ q: 'x', from: '2026-02-30' }, '"from" is not a date: use YYYY-MM-DD'],
      [{ q: 'x', to: '2026-1-11' }, /to/i],
      [{ q: 'x', from: '2026-01-10', to: '2026-01-09' }, '"to" must be the same day as "from" or after it'],
      [{ q: 'x', cursor: 'bm9wZQ' }, 'Invalid cursor'],
    ];
    for (const [query, message] of cases) {
      const res = await t.console<{ message: string | string[] }>(owner.token, 'GET', '/search', { query });
      assert.equal(res.status, 400, `${JSON.stringify(query)}: ${res.text}`);
      const text = Array.isArray(res.body.message) ? res.body.message.join(' ') : res.body.message;
      if (typeof message === 'string') assert.equal(text, message);
      else assert.match(text, message);
    }
    assert.equal((await t.console(undefined, 'GET', '/search', { query: { q: 'x' } })).status, 401);
  });
});
