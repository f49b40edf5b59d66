// The console endpoints the web account added (session cookie with CSRF header, live stream, Inbox chat
// actions, correct/correction, overview, entry search) and how the server serves the app (history fallback,
// caching, CSP, frame deny). Another account's ids are 404.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { newId } from '../src/lib/ids.ts';
import { eventually } from './support/events.ts';
import { PASSWORD, startTestApp, type TestApp } from './support/harness.ts';

type InboxChat = { id: string; uniqueId: string; banned: boolean; unreadCount: number; customUnread: boolean; userTags: { tags: { name: string } }[] };

let t: TestApp;
let user: Awaited<ReturnType<TestApp['createConsoleUser']>>;
let other: Awaited<ReturnType<TestApp['createConsoleUser']>>;
let channelId: string;
before(async () => {
  t = await startTestApp();
  user = await t.createConsoleUser();
  other = await t.createConsoleUser();
  channelId = (
    await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', { body: { name: 'API', settings: { isActive: false } } })
  ).body.id;
});
after(() => t.close());

async function newChat(externalChatId: string, text = 'Hello'): Promise<string> {
  const res = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
    headers: { authorization: user.key },
    body: { channel: 'custom', channelId, externalChatId, role: 'user', text },
  });
  assert.equal(res.status, 201, res.text);
  const list = await t.api<{ chats: { id: string; chatId: string }[] }>(user.key, '/chats/chat', { channelId });
  return list.body.chats.find((c) => c.chatId === externalChatId)?.id ?? '';
}

/** The member behind the account's login: its owner (issue #25). */
const ownerOf = (account: { email: string; accountId: string }) => ({
  email: account.email,
  memberId: account.accountId,
  name: account.email,
  role: 'owner',
});

async function sessionCookie(account: { email: string; accountId: string } = user): Promise<string> {
  const res = await t.request<{ email: string }>('POST', '/console/v1/auth/session', { body: { email: account.email, password: PASSWORD } });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body, ownerOf(account));
  const setCookie = res.headers.get('set-cookie') ?? '';
  assert.match(setCookie, /^parley_session=[^;]+; Path=\/console\/v1; HttpOnly; SameSite=Strict; Max-Age=43200$/);
  return setCookie.split(';')[0] ?? '';
}

describe('web session', () => {
  test('login sets an HttpOnly SameSite=Strict cookie and returns no token; GET works with it; wrong password 401', async () => {
    const cookie = await sessionCookie();
    const me = await t.request<{ email: string }>('GET', '/console/v1/auth/session', { headers: { cookie } });
    assert.equal(me.status, 200);
    assert.deepEqual(me.body, ownerOf(user));
    const channels = await t.request('GET', '/console/v1/channels/all/', { headers: { cookie } });
    assert.equal(channels.status, 200);

    const wrong = await t.request('POST', '/console/v1/auth/session', { body: { email: user.email, password: 'nope nope' } });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers.get('set-cookie'), null);
    assert.equal((await t.request('GET', '/console/v1/auth/session')).status, 401);
    assert.equal((await t.request('GET', '/console/v1/auth/session', { headers: { cookie: 'parley_session=forged' } })).status, 401);
  });

  test('GET /auth/session/state answers 200 whether signed in or not (the first load logs no failed request)', async () => {
    const path = '/console/v1/auth/session/state';
    const states = [
      await t.request('GET', path),
      await t.request('GET', path, { headers: { cookie: 'parley_session=forged' } }),
      await t.request('GET', path, { headers: { authorization: 'Bearer forged' } }),
      await t.request('GET', path, { headers: { cookie: await sessionCookie() } }),
      await t.request('GET', path, { headers: { authorization: `Bearer ${user.token}` } }),
    ];
    assert.deepEqual(
      states.map((res) => [res.status, res.body]),
      [
        [200, { signedIn: false }],
        [200, { signedIn: false }],
        [200, { signedIn: false }],
        [200, { signedIn: true, ...ownerOf(user) }],
        [200, { signedIn: true, ...ownerOf(user) }],
      ],
    );
    // The contract of GET /auth/session is unchanged: 401 without a session.
    assert.equal((await t.request('GET', '/console/v1/auth/session')).status, 401);
  });

  test('a state change by cookie needs X-Requested-With: parley (CSRF); the bearer header does not', async () => {
    const cookie = await sessionCookie();
    const body = { name: 'Via cookie' };
    const refused = await t.request<{ message: string }>('POST', '/console/v1/knowledge-bases', { headers: { cookie }, body });
    assert.equal(refused.status, 403);
    assert.match(refused.body.message, /X-Requested-With: parley/);
    const accepted = await t.request('POST', '/console/v1/knowledge-bases', { headers: { cookie, 'x-requested-with': 'parley' }, body });
    assert.equal(accepted.status, 201);
    assert.equal((await t.console(user.token, 'POST', '/knowledge-bases', { body })).status, 201);
  });

  test('sign out clears the cookie', async () => {
    const res = await t.request('DELETE', '/console/v1/auth/session');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('set-cookie') ?? '', /^parley_session=; Path=\/console\/v1; HttpOnly; SameSite=Strict; Max-Age=0$/);
  });

  test('the token appears in no log line', async () => {
    const cookie = await sessionCookie();
    await t.request('GET', '/console/v1/channels/all/', { headers: { cookie } });
    const token = cookie.split('=')[1] ?? '';
    assert.ok(token.length > 20);
    assert.ok(!t.logs.some((line) => line.includes(token)));
  });
});

describe('live stream', () => {
  test('GET /console/v1/live streams the account committed events, not other accounts ones; 401 without a session', async () => {
    assert.equal((await t.request('GET', '/console/v1/live')).status, 401);
    const cookie = await sessionCookie();
    const controller = new AbortController();
    const response = await fetch(`${t.url}/console/v1/live`, { headers: { cookie }, signal: controller.signal });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    const reader = response.body?.getReader();
    assert.ok(reader);
    let received = '';
    const decoder = new TextDecoder();
    const readUntil = async (needle: string) => {
      const deadline = Date.now() + 10_000;
      while (!received.includes(needle)) {
        if (Date.now() > deadline) throw new Error(`not received: ${needle}; got ${received}`);
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        received += decoder.decode(value, { stream: true });
      }
    };
    await readUntil('event: ready');
    // Another account's event first: it must not show.
    const otherChannel = await t.console<{ id: string }>(other.token, 'POST', '/channel/custom/connect/', { body: { name: 'Other', settings: { isActive: false } } });
    await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
      headers: { authorization: other.key },
      body: { channel: 'custom', channelId: otherChannel.body.id, externalChatId: 'other-live', role: 'user', text: 'not yours' },
    });
    const chatId = await newChat('live-api-1', 'live hello');
    await readUntil('live hello');
    assert.ok(received.includes(`"chatId":"${chatId}"`));
    assert.ok(received.includes('"event":"new_messages"'));
    assert.ok(!received.includes('not yours'));
    controller.abort();
  });
});

describe('Inbox chat actions', () => {
  test('info, read/unread, ban/unban, tags; another account gets 404', async () => {
    const chatId = await newChat('actions-api-1');
    const info = await t.console<InboxChat>(user.token, 'GET', `/chat/info/${chatId}/`);
    assert.equal(info.status, 200);
    assert.equal(info.body.banned, false);
    assert.equal(info.body.unreadCount, 1);

    const read = await t.console<InboxChat>(user.token, 'POST', `/chat/read/${chatId}/`);
    assert.equal(read.status, 200);
    assert.equal(read.body.unreadCount, 0);
    const unread = await t.console<InboxChat>(user.token, 'POST', `/chat/unread/${chatId}/`);
    assert.equal(unread.body.customUnread, true);

    const banned = await t.console<InboxChat>(user.token, 'POST', `/chat/ban/${chatId}/`);
    assert.equal(banned.body.banned, true);
    const publicBan = await t.api<{ message: string }>(user.key, '/chats/chat/ban', { uniqueId: banned.body.uniqueId });
    assert.equal(publicBan.body.message, 'Chat already banned');
    assert.equal((await t.console<InboxChat>(user.token, 'POST', `/chat/ban/${chatId}/`)).status, 200, 'banning twice is no error');
    assert.equal((await t.console<InboxChat>(user.token, 'POST', `/chat/unban/${chatId}/`)).body.banned, false);

    const tagged = await t.console<InboxChat>(user.token, 'POST', `/chat/tags/${chatId}/`, { body: { name: 'vip' } });
    assert.deepEqual(tagged.body.userTags.map((u) => u.tags.name), ['vip']);
    assert.equal((await t.console(user.token, 'POST', `/chat/tags/${chatId}/`, { body: { name: 'vip' } })).status, 200);
    const untagged = await t.console<InboxChat>(user.token, 'DELETE', `/chat/tags/${chatId}/vip/`);
    assert.deepEqual(untagged.body.userTags, []);
    assert.equal((await t.console(user.token, 'DELETE', `/chat/tags/${chatId}/vip/`)).status, 404);
    assert.equal((await t.console(user.token, 'POST', `/chat/tags/${chatId}/`, { body: { name: 'x', extra: 1 } })).status, 400);

    for (const [method, path, body] of [
      ['GET', `/chat/info/${chatId}/`],
      ['POST', `/chat/read/${chatId}/`],
      ['POST', `/chat/unread/${chatId}/`],
      ['POST', `/chat/ban/${chatId}/`],
      ['POST', `/chat/unban/${chatId}/`],
      ['POST', `/chat/tags/${chatId}/`, { name: 'stolen' }],
      ['DELETE', `/chat/tags/${chatId}/vip/`],
    ] as const) {
      const res = await t.console<{ message: string }>(other.token, method, path, body ? { body } : {});
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.body.message, 'Chat not found');
    }
    assert.equal((await t.console(user.token, 'GET', '/chat/info/not-a-uuid/')).status, 404);
    assert.equal((await t.console<InboxChat>(user.token, 'GET', `/chat/info/${chatId}/`)).body.banned, false, 'untouched by the other account');
  });

  test('the unread filter (console only): chats with unread messages or flagged unread, with their count', async () => {
    const a = await newChat('unread-a');
    const b = await newChat('unread-b');
    const c = await newChat('unread-c');
    await t.console(user.token, 'POST', `/chat/read/${a}/`);
    await t.console(user.token, 'POST', `/chat/read/${b}/`);
    await t.console(user.token, 'POST', `/chat/unread/${b}/`);
    const all = await t.console<{ chats: { id: string; unreadCount: number; customUnread: boolean }[]; count: number }>(user.token, 'GET', '/chat/all-chats/', {
      query: { unread: 'true', channelId, limit: '1000' },
    });
    assert.equal(all.status, 200, all.text);
    const ids = all.body.chats.map((chat) => chat.id);
    assert.ok(ids.includes(b) && ids.includes(c) && !ids.includes(a));
    assert.ok(all.body.chats.every((chat) => chat.unreadCount > 0 || chat.customUnread));
    assert.equal(all.body.count, ids.length);
    const paged = await t.console<{ chats: unknown[]; count: number }>(user.token, 'GET', '/chat/all-chats/', { query: { unread: 'true', channelId, limit: '1' } });
    assert.equal(paged.body.chats.length, 1);
    assert.equal(paged.body.count, ids.length, 'the count of a full page is counted');
    // The public list has no such filter.
    assert.equal((await t.api(user.key, '/chats/chat', { unread: 'true' })).status, 400);
  });

  test('Mark correct and Correct the answer rate agent replies; the correction goes to the knowledge base; others 404', async () => {
    const base = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name: 'Corrections', language: 'en' } });
    await t.console(user.token, 'PUT', `/channel/custom/${channelId}/`, { body: { knowledgeBaseId: base.body.id } });
    const chatId = await newChat('rate-api-1', 'Where is my parcel?');
    const insertReply = async (text: string) => {
      const id = newId();
      await new Promise((resolve) => setTimeout(resolve, 5));
      await t.database.db.execute(
        sql`insert into messages (id, account_id, chat_id, role, origin, sender_name, text, fallback) values (${id}, ${user.accountId}, ${chatId}, 'assistant', 'agent', null, ${text}, true)`,
      );
      return id;
    };
    const first = await insertReply('I do not know.');
    const second = await insertReply('Still no idea.');
    const messages = await t.console<{ messages: { id: string; fromAgent: boolean; agentOutcome: string | null }[] }>(user.token, 'GET', `/chat/messages/${chatId}/`);
    assert.deepEqual(messages.body.messages.map((m) => m.fromAgent), [false, true, true]);
    assert.deepEqual(messages.body.messages.map((m) => m.agentOutcome), [null, 'fallback', 'fallback']);

    assert.equal((await t.console(other.token, 'POST', `/chat/answer/${first}/correct/`)).status, 404);
    assert.equal((await t.console(other.token, 'POST', `/chat/answer/${second}/correction/`, { body: { text: 'x' } })).status, 404);

    const liked = await t.console(user.token, 'POST', `/chat/answer/${first}/correct/`);
    assert.equal(liked.status, 200);
    assert.deepEqual(liked.body, { id: first, rating: 'liked' });
    const corrected = await t.console(user.token, 'POST', `/chat/answer/${second}/correction/`, { body: { text: 'It arrives tomorrow.' } });
    assert.equal(corrected.status, 200);
    assert.deepEqual(corrected.body, { id: second, rating: 'disliked' });
    const entries = await t.console<{ entries: { question: string; answer: string; source: string }[] }>(user.token, 'GET', `/knowledge-bases/${base.body.id}/entries`);
    assert.deepEqual(entries.body.entries.map((e) => [e.question, e.answer, e.source]), [['Where is my parcel?', 'It arrives tomorrow.', 'correction']]);

    // Knowledge-base search (q) finds it by any of its texts, case-insensitively; % is literal.
    const found = await t.console<{ count: number }>(user.token, 'GET', `/knowledge-bases/${base.body.id}/entries`, { query: { q: 'TOMORROW' } });
    assert.equal(found.body.count, 1);
    const none = await t.console<{ count: number }>(user.token, 'GET', `/knowledge-bases/${base.body.id}/entries`, { query: { q: '%' } });
    assert.equal(none.body.count, 0);

    // The overview counts them.
    const overview = await t.console<{ agentReplies: { answered: number; fellBack: number }; corrections: number; days: number; conversationsPerDay: { date: string; conversations: number }[]; chats: number }>(
      user.token,
      'GET',
      '/overview/',
    );
    assert.equal(overview.status, 200);
    assert.equal(overview.body.days, 14);
    assert.equal(overview.body.conversationsPerDay.length, 14);
    assert.equal(overview.body.conversationsPerDay.at(-1)?.date, new Date().toISOString().slice(0, 10));
    assert.ok((overview.body.conversationsPerDay.at(-1)?.conversations ?? 0) >= 1);
    assert.deepEqual(overview.body.agentReplies, { answered: 0, answeredAfterChoice: 0, clarified: 0, fellBack: 2, handedOff: 0 });
    assert.equal(overview.body.corrections, 1);
    assert.ok(overview.body.chats >= 1);
    const empty = await t.console<{ agentReplies: unknown; corrections: number; chats: number }>(other.token, 'GET', '/overview/', { query: { days: '3' } });
    assert.deepEqual([empty.body.agentReplies, empty.body.corrections], [{ answered: 0, answeredAfterChoice: 0, clarified: 0, fellBack: 0, handedOff: 0 }, 0]);
    assert.equal((await t.console(user.token, 'GET', '/overview/', { query: { days: '91' } })).status, 400);
  });

  test('the knowledge-base engine marks its fallback replies', async () => {
    const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', { body: { name: 'Agent on' } });
    const res = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
      headers: { authorization: user.key },
      body: { channel: 'custom', channelId: channel.body.id, externalChatId: 'fallback-1', role: 'user', text: 'Anything?' },
    });
    assert.equal(res.status, 201);
    const rows = await eventually(async () => {
      const result = (await t.database.db.execute(
        sql`select fallback from messages m join chats c on c.id = m.chat_id where c.channel_id = ${channel.body.id} and m.origin = 'agent'`,
      )) as unknown as { rows: { fallback: boolean }[] };
      return result.rows.length > 0 ? result.rows : undefined;
    }, 10_000);
    assert.deepEqual(rows, [{ fallback: true }]);
  });
});

describe('serving the web account', () => {
  test('index.html at the app paths, with CSP, frame deny and no-cache; assets immutable', async () => {
    for (const path of ['/', '/inbox', '/inbox/123', '/channels/custom/cc:1', '/knowledge-bases', '/deliveries', '/overview', '/login']) {
      const res = await t.request('GET', path);
      assert.equal(res.status, 200, path);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      assert.equal(res.headers.get('cache-control'), 'no-cache');
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
      const csp = res.headers.get('content-security-policy') ?? '';
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.ok(!csp.includes('unsafe-inline'));
    }
    const html = (await t.request('GET', '/')).text;
    assert.ok(!/<script>/.test(html), 'no inline script');
    const script = /src="(\/assets\/main-[A-Z0-9]+\.js)"/.exec(html)?.[1];
    assert.ok(script, 'hashed script');
    const asset = await t.request('GET', script);
    assert.equal(asset.status, 200);
    assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.match(asset.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.equal((await t.request('GET', '/assets/missing.js')).status, 404);
  });

  test('other surfaces are not shadowed and get no frame deny', async () => {
    assert.equal((await t.request('GET', '/healthz')).status, 200);
    assert.equal((await t.request('GET', '/healthz')).headers.get('x-frame-options'), null);
    assert.match((await t.request('GET', '/api/v1/nope')).headers.get('content-type') ?? '', /json/);
    assert.equal((await t.request('GET', '/api/v1/nope')).status, 404);
    for (const path of ['/console/v1/nope', '/admin/v1/nope', '/demo/v1/nope', '/widget/nope', '/channels-x', '/random']) {
      const res = await t.request('GET', path);
      assert.equal(res.status, 404, path);
      assert.ok(!res.text.includes('<div id="app">'), path);
    }
  });
});
