// The team in the Inbox (issue #25): assignment and the assignee filter, changes that reach every open Inbox of
// the account (and nothing else), private notes, saved replies, and who did what.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { InboxListChat } from '@parley/contracts';
import { eventually } from './support/events.ts';
import { PASSWORD, PUBLIC_URL, startTestApp, type TestApp } from './support/harness.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

type Invitation = { id: string; inviteUrl: string };
type ListedChat = { id: string; chatId: string; assignee: { id: string; name: string } | null };
type Owner = Awaited<ReturnType<TestApp['createConsoleUser']>>;

let t: TestApp;
let counter = 0;
const uniqueEmail = (name: string) => `${name}-${process.pid}-${Date.now()}-${(counter += 1)}@example.com`;

let receiver: Receiver;
before(async () => {
  t = await startTestApp({ webhookAllowPrivateNetworks: true });
  receiver = await startReceiver();
});
after(async () => {
  await t.close();
  await receiver.close();
});

async function addMember(owner: Owner, role: 'admin' | 'agent', name: string) {
  const email = uniqueEmail(role);
  const invite = await t.console<Invitation>(owner.token, 'POST', '/members/invite/', { body: { email, role } });
  assert.equal(invite.status, 201, invite.text);
  const accepted = await t.console<{ token: string }>(undefined, 'POST', '/auth/accept-invite', {
    body: { token: invite.body.inviteUrl.slice(`${PUBLIC_URL}/invite/`.length), name, password: PASSWORD },
  });
  assert.equal(accepted.status, 200, accepted.text);
  return { id: invite.body.id, email, name, token: accepted.body.token };
}

/** A channel of the account (its webhook: the receiver) and a chat in it per external id: their console ids. */
async function chatsOf(owner: Owner, ...externalIds: string[]): Promise<string[]> {
  const channel = await t.console<{ id: string }>(owner.token, 'POST', '/channel/custom/connect/', {
    body: { name: 'Support', settings: { isActive: false }, webhookUrl: `${receiver.url}/hook` },
  });
  assert.equal(channel.status, 201, channel.text);
  const ids: string[] = [];
  for (const externalChatId of externalIds) {
    const sent = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
      headers: { authorization: owner.key },
      body: { channel: 'custom', channelId: channel.body.id, externalChatId, role: 'user', text: `hello from ${externalChatId}` },
    });
    assert.equal(sent.status, 201, sent.text);
    const list = await t.api<{ chats: { id: string; chatId: string }[] }>(owner.key, '/chats/chat', { channelId: channel.body.id });
    ids.push(list.body.chats.find((c) => c.chatId === externalChatId)?.id ?? '');
  }
  return ids;
}

async function listed(token: string, assignee?: string): Promise<{ status: number; ids: string[]; count: number; chats: ListedChat[] }> {
  const res = await t.console<{ chats: ListedChat[]; count: number }>(token, 'GET', '/chat/all-chats/', { query: assignee ? { assignee } : {} });
  return { status: res.status, ids: (res.body.chats ?? []).map((c) => c.id).sort(), count: res.body.count, chats: res.body.chats ?? [] };
}

/** An open Inbox's live stream: collects what it receives. */
async function openStream(token: string) {
  const controller = new AbortController();
  const response = await fetch(`${t.url}/console/v1/live`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
  assert.equal(response.status, 200);
  const reader = response.body?.getReader();
  assert.ok(reader);
  const decoder = new TextDecoder();
  let received = '';
  const pump = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      received += decoder.decode(value, { stream: true });
    }
  })();
  /** How often `needle` was received (a pattern: its matches). */
  const occurrences = (needle: string | RegExp) =>
    typeof needle === 'string' ? received.split(needle).length - 1 : [...received.matchAll(new RegExp(needle.source, 'g'))].length;
  const until = async (needle: string | RegExp, ms = 15_000) => {
    const deadline = Date.now() + ms;
    while (occurrences(needle) === 0) {
      if (Date.now() > deadline) throw new Error(`not received: ${needle}; got ${received}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  await until('event: ready');
  /** Waits until `needle` was received `times` times. */
  const count = async (needle: string | RegExp, times: number, ms = 15_000) => {
    const deadline = Date.now() + ms;
    while (occurrences(needle) < times) {
      if (Date.now() > deadline) throw new Error(`not received ${times} times: ${needle}; got ${received}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return {
    until,
    count,
    /** Settles when the server ends the stream. */
    ended: pump,
    received: () => received,
    async close() {
      controller.abort();
      await pump;
    },
  };
}

describe('assignment', () => {
  test('assign and unassign: 200 the console chat with its assignee; the list shows it and filters by me, none or a member', async () => {
    const owner = await t.createConsoleUser();
    const ann = await addMember(owner, 'agent', 'Ann Agent');
    const bob = await addMember(owner, 'agent', 'Bob Agent');
    const [first = '', second = '', third = ''] = await chatsOf(owner, 'a-1', 'a-2', 'a-3');

    const assigned = await t.console<{ id: string; assignee: unknown; banned: boolean }>(ann.token, 'POST', `/chat/assign/${first}/`, {
      body: { memberId: ann.id },
    });
    assert.equal(assigned.status, 200, assigned.text);
    assert.deepEqual([assigned.body.id, assigned.body.assignee, assigned.body.banned], [first, { id: ann.id, name: 'Ann Agent' }, false]);
    assert.equal((await t.console(owner.token, 'POST', `/chat/assign/${second}/`, { body: { memberId: bob.id } })).status, 200);

    assert.deepEqual((await listed(ann.token, 'me')).ids, [first]);
    assert.deepEqual((await listed(bob.token, 'me')).ids, [second]);
    const none = await listed(ann.token, 'none');
    assert.deepEqual([none.ids, none.count], [[third], 1]);
    assert.deepEqual((await listed(ann.token, bob.id)).ids, [second]);
    assert.deepEqual((await listed(ann.token, bob.id.toUpperCase())).ids, [second]);
    const all = await listed(ann.token);
    assert.deepEqual(all.ids, [first, second, third].sort());
    assert.deepEqual(
      Object.fromEntries(all.chats.map((c) => [c.id, c.assignee])),
      { [first]: { id: ann.id, name: 'Ann Agent' }, [second]: { id: bob.id, name: 'Bob Agent' }, [third]: null },
    );
    const info = await t.console<{ assignee: unknown }>(bob.token, 'GET', `/chat/info/${second}/`);
    assert.deepEqual(info.body.assignee, { id: bob.id, name: 'Bob Agent' });

    const unassigned = await t.console<{ assignee: unknown }>(bob.token, 'POST', `/chat/assign/${second}/`, { body: { memberId: null } });
    assert.deepEqual([unassigned.status, unassigned.body.assignee], [200, null]);
    assert.deepEqual((await listed(bob.token, 'me')).ids, []);
    assert.deepEqual((await listed(bob.token, 'none')).ids, [second, third].sort());

    // Removing a member leaves their chats unassigned.
    assert.equal((await t.console(owner.token, 'DELETE', `/members/${ann.id}/`)).status, 200);
    assert.deepEqual((await listed(owner.token, 'none')).ids, [first, second, third].sort());
  });

  test('bad input: 400 naming the field; another account\'s chats and members are out of reach', async () => {
    const owner = await t.createConsoleUser();
    const other = await t.createConsoleUser();
    const agent = await addMember(owner, 'agent', 'Agent');
    const stranger = await addMember(other, 'agent', 'Stranger');
    const [chat = ''] = await chatsOf(owner, 'b-1');
    const [otherChat = ''] = await chatsOf(other, 'b-2');
    const invited = await t.console<Invitation>(owner.token, 'POST', '/members/invite/', { body: { email: uniqueEmail('pending'), role: 'agent' } });

    const badBodies: [unknown, string][] = [
      [{}, 'memberId is required'],
      [{ memberId: 42 }, 'Member id: must be text'],
      [{ memberId: null, extra: 1 }, 'property extra should not exist'],
    ];
    for (const [body, message] of badBodies) {
      const res = await t.console<{ message: string[] }>(agent.token, 'POST', `/chat/assign/${chat}/`, { body });
      assert.equal(res.status, 400, res.text);
      assert.ok(res.body.message.some((m) => m.includes(message)), res.text);
    }
    for (const memberId of [stranger.id, invited.body.id, 'not-a-uuid']) {
      const res = await t.console(agent.token, 'POST', `/chat/assign/${chat}/`, { body: { memberId } });
      assert.deepEqual([res.status, res.body], [400, { message: 'memberId: no active member of this account has this id', statusCode: 400 }]);
    }
    const foreign = await t.console(agent.token, 'POST', `/chat/assign/${otherChat}/`, { body: { memberId: agent.id } });
    assert.deepEqual([foreign.status, foreign.body], [404, { message: 'Chat not found', statusCode: 404 }]);
    const filter = await t.console<{ message: string[] }>(agent.token, 'GET', '/chat/all-chats/', { query: { assignee: 'someone' } });
    assert.equal(filter.status, 400);
    assert.ok(filter.body.message.some((m) => m === 'Assignee: me, none or a member id'), filter.text);
    // Another account's member id filters to nothing.
    assert.deepEqual((await listed(agent.token, stranger.id)).ids, []);
  });

  test("an assignment, a read and an unread reach the other members' open Inboxes (and not another account's)", async () => {
    const owner = await t.createConsoleUser();
    const other = await t.createConsoleUser();
    const ann = await addMember(owner, 'agent', 'Ann');
    const [chat = ''] = await chatsOf(owner, 'c-1');
    const ownerStream = await openStream(owner.token);
    const otherStream = await openStream(other.token);
    try {
      // A change message (each has its id line between the two) with the chat as the list shows it.
      const change = new RegExp(`event: change\nid: [^\n]+\ndata: \\{"chatId":"${chat}","chat":\\{"id":"${chat}"`);
      assert.equal((await t.console(ann.token, 'POST', `/chat/assign/${chat}/`, { body: { memberId: ann.id } })).status, 200);
      await ownerStream.count(change, 1);
      assert.equal((await t.console(ann.token, 'POST', `/chat/read/${chat}/`)).status, 200);
      await ownerStream.count(change, 2);
      assert.equal((await t.console(ann.token, 'POST', `/chat/unread/${chat}/`)).status, 200);
      await ownerStream.count(change, 3);
      assert.ok(!otherStream.received().includes('event: change'));
      // Each change carries the chat as the Inbox's list shows it after the change, and the account's count of chats
      // needing a person: open Inboxes patch their lists rather than reload them (issue #41).
      const changes = ownerStream
        .received()
        .split('\n\n')
        .filter((block) => block.startsWith('event: change\n'))
        .map((block) => JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? '') as { chatId: string; chat: InboxListChat; needsHumanCount: number });
      assert.deepEqual(
        changes.map((c) => [c.chatId, c.chat.id, c.chat.assignee, c.chat.unreadCount > 0 || c.chat.customUnread, c.needsHumanCount]),
        [
          [chat, chat, { id: ann.id, name: 'Ann' }, true, 0],
          [chat, chat, { id: ann.id, name: 'Ann' }, false, 0],
          [chat, chat, { id: ann.id, name: 'Ann' }, true, 0],
        ],
      );
    } finally {
      await ownerStream.close();
      await otherStream.close();
    }
  });
});

type HistoryItem = { kind: string; id: string; text: string; senderName?: string | null; author?: { id: string | null; name: string } };

describe('the live stream of a removed member', () => {
  test('ends at once, and reconnecting is a 401', async () => {
    const owner = await t.createConsoleUser();
    const agent = await addMember(owner, 'agent', 'Leaving');
    const stream = await openStream(agent.token);
    try {
      assert.equal((await t.console(owner.token, 'DELETE', `/members/${agent.id}/`)).status, 200);
      const ended = await Promise.race([stream.ended.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 15_000))]);
      assert.equal(ended, true, 'the stream was ended by the server');
      const again = await fetch(`${t.url}/console/v1/live`, { headers: { authorization: `Bearer ${agent.token}` } });
      assert.equal(again.status, 401);
      await again.body?.cancel();
    } finally {
      await stream.close();
    }
  });
});

describe('private notes', () => {
  test('201 { id, text, author, createdAt }; in the console history as kind note between messages (kind message)', async () => {
    const owner = await t.createConsoleUser();
    const ann = await addMember(owner, 'agent', 'Ann Notes');
    const [chat = ''] = await chatsOf(owner, 'n-1');
    const note = await t.console<{ id: string; text: string; author: unknown; createdAt: string }>(ann.token, 'POST', `/chat/notes/${chat}/`, {
      body: { text: 'VIP customer, be nice' },
    });
    assert.equal(note.status, 201, note.text);
    assert.deepEqual(Object.keys(note.body).sort(), ['author', 'createdAt', 'id', 'text']);
    assert.deepEqual([note.body.text, note.body.author], ['VIP customer, be nice', { id: ann.id, name: 'Ann Notes' }]);
    assert.match(note.body.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const reply = await t.console(ann.token, 'POST', `/chat/messages/${chat}/`, { body: { text: 'Hello, how can I help?' } });
    assert.equal(reply.status, 201, reply.text);

    const history = await t.console<{ messages: HistoryItem[] }>(owner.token, 'GET', `/chat/messages/${chat}/`);
    assert.equal(history.status, 200);
    assert.deepEqual(
      history.body.messages.map((m) => [m.kind, m.text, m.kind === 'note' ? m.author : m.senderName]),
      [
        ['message', 'hello from n-1', 'Unknown visitor'],
        ['note', 'VIP customer, be nice', { id: ann.id, name: 'Ann Notes' }],
        ['message', 'Hello, how can I help?', 'Ann Notes'],
      ],
    );
    const lastTwo = await t.console<{ messages: HistoryItem[] }>(owner.token, 'GET', `/chat/messages/${chat}/`, { query: { limit: '2' } });
    assert.deepEqual(lastTwo.body.messages.map((m) => m.kind), ['note', 'message']);
  });

  test('never sent anywhere outside the console: not the webhook, the event feed, the public chat list, nor the chat\'s last text', async () => {
    const owner = await t.createConsoleUser();
    const [chat = ''] = await chatsOf(owner, 'n-2');
    const secret = `private note ${Date.now()}`;
    assert.equal((await t.console(owner.token, 'POST', `/chat/notes/${chat}/`, { body: { text: secret } })).status, 201);
    // A later message goes out, so anything queued before it went out too.
    const reply = await t.console(owner.token, 'POST', `/chat/messages/${chat}/`, { body: { text: `after the note ${secret.slice(-6)}` } });
    assert.equal(reply.status, 201);
    await eventually(async () => receiver.requests.some((r) => r.body.includes(`after the note ${secret.slice(-6)}`)), 20_000);
    assert.ok(!receiver.requests.some((r) => r.body.includes(secret)));
    // The feed shows an event once every transaction that began before it has ended: polled.
    const feed = await eventually(async () => {
      const page = await t.api(owner.key, '/events');
      return page.status === 200 && page.text.includes('after the note') ? page : undefined;
    }, 20_000);
    assert.ok(!feed.text.includes(secret));
    const list = await t.api(owner.key, '/chats/chat');
    assert.ok(!list.text.includes(secret));
    const info = await t.console<{ text: string }>(owner.token, 'GET', `/chat/info/${chat}/`);
    assert.ok(!info.text.includes(secret));
  });

  test('bad input: 400 naming text; another account\'s chat: 404; notes reach other open Inboxes', async () => {
    const owner = await t.createConsoleUser();
    const other = await t.createConsoleUser();
    const [chat = ''] = await chatsOf(owner, 'n-3');
    for (const [body, message] of [
      [{}, 'text is required'],
      [{ text: '' }, 'Text: cannot be empty'],
      [{ text: 'x'.repeat(10_001) }, 'Text: up to 10000 characters'],
    ] as const) {
      const res = await t.console<{ message: string[] }>(owner.token, 'POST', `/chat/notes/${chat}/`, { body });
      assert.equal(res.status, 400, res.text);
      assert.ok(res.body.message.includes(message), res.text);
    }
    const foreign = await t.console(other.token, 'POST', `/chat/notes/${chat}/`, { body: { text: 'sneaky' } });
    assert.deepEqual([foreign.status, foreign.body], [404, { message: 'Chat not found', statusCode: 404 }]);
    assert.equal((await t.console(other.token, 'GET', `/chat/messages/${chat}/`)).status, 404);
    const stream = await openStream(owner.token);
    try {
      assert.equal((await t.console(owner.token, 'POST', `/chat/notes/${chat}/`, { body: { text: 'live note' } })).status, 201);
      await stream.until(new RegExp(`event: change\nid: [^\n]+\ndata: \\{"chatId":"${chat}","chat":\\{"id":"${chat}"`));
    } finally {
      await stream.close();
    }
  });
});

describe('who did what', () => {
  test("a team reply's senderName is the member's name (webhook too); a manual status change carries the member's e-mail", async () => {
    const owner = await t.createConsoleUser();
    const ann = await addMember(owner, 'agent', 'Ann Replies');
    const [chat = ''] = await chatsOf(owner, 'w-1');
    const reply = await t.console<{ senderName: string; kind: string }>(ann.token, 'POST', `/chat/messages/${chat}/`, { body: { text: 'Signed reply' } });
    assert.deepEqual([reply.status, reply.body.kind, reply.body.senderName], [201, 'message', 'Ann Replies']);
    const delivered = await eventually(async () => receiver.requests.find((r) => r.body.includes('Signed reply')), 20_000);
    const payload = JSON.parse(delivered.body) as { messages: { senderName: string; role: string }[] };
    assert.deepEqual(payload.messages.map((m) => [m.role, m.senderName]), [['assistant', 'Ann Replies']]);

    assert.equal((await t.console(ann.token, 'POST', `/chat/status/${chat}/`, { body: { status: 'done' } })).status, 200);
    const status = await eventually(
      async () =>
        receiver.requests
          .map((r) => JSON.parse(r.body) as { event: string; chat?: { id: string }; status?: { source?: unknown } })
          .find((p) => p.event === 'dialog_status_changed' && p.chat?.id === chat),
      20_000,
    );
    assert.deepEqual(status.status?.source, { type: 'manual', operatorEmail: ann.email.toLowerCase() });
  });
});

describe('saved replies', () => {
  type Reply = { id: string; shortCode: string; text: string };

  test('CRUD: GET 200 { cannedResponses }, POST 201, PUT 200, DELETE 200 { success: true }; any member may keep them', async () => {
    const owner = await t.createConsoleUser();
    const agent = await addMember(owner, 'agent', 'Agent');
    const created = await t.console<Reply>(agent.token, 'POST', '/canned-responses/', { body: { shortCode: 'hours', text: 'We are open 9 to 5.' } });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual({ ...created.body, id: undefined }, { id: undefined, shortCode: 'hours', text: 'We are open 9 to 5.' });
    const second = await t.console<Reply>(owner.token, 'POST', '/canned-responses/', { body: { shortCode: 'bye', text: 'Have a nice day!' } });
    assert.equal(second.status, 201);
    const list = await t.console<{ cannedResponses: Reply[] }>(agent.token, 'GET', '/canned-responses/');
    assert.deepEqual(list.body, { cannedResponses: [second.body, created.body] });
    const updated = await t.console<Reply>(agent.token, 'PUT', `/canned-responses/${created.body.id}/`, {
      body: { shortCode: 'opening-hours', text: 'We are open 9 to 6.' },
    });
    assert.deepEqual([updated.status, updated.body], [200, { id: created.body.id, shortCode: 'opening-hours', text: 'We are open 9 to 6.' }]);
    const removed = await t.console(agent.token, 'DELETE', `/canned-responses/${second.body.id}/`);
    assert.deepEqual([removed.status, removed.body], [200, { success: true }]);
    const after = await t.console<{ cannedResponses: Reply[] }>(owner.token, 'GET', '/canned-responses/');
    assert.deepEqual(after.body.cannedResponses.map((r) => r.shortCode), ['opening-hours']);
  });

  test('a duplicate shortCode is 409; bad input 400 naming the field; other accounts are out of reach (404)', async () => {
    const owner = await t.createConsoleUser();
    const other = await t.createConsoleUser();
    const first = await t.console<Reply>(owner.token, 'POST', '/canned-responses/', { body: { shortCode: 'hi', text: 'Hello!' } });
    const second = await t.console<Reply>(owner.token, 'POST', '/canned-responses/', { body: { shortCode: 'yo', text: 'Yo!' } });
    const taken = { message: 'shortCode: a saved reply with this short code exists already', statusCode: 409 };
    const dup = await t.console(owner.token, 'POST', '/canned-responses/', { body: { shortCode: 'hi', text: 'Again' } });
    assert.deepEqual([dup.status, dup.body], [409, taken]);
    const rename = await t.console(owner.token, 'PUT', `/canned-responses/${second.body.id}/`, { body: { shortCode: 'hi', text: 'Yo!' } });
    assert.deepEqual([rename.status, rename.body], [409, taken]);
    // Another account may use the same code.
    assert.equal((await t.console(other.token, 'POST', '/canned-responses/', { body: { shortCode: 'hi', text: 'Hi there' } })).status, 201);
    for (const [body, message] of [
      [{ shortCode: 'has space', text: 'x' }, 'Short code: letters, digits, _ and - only, up to 50'],
      [{ shortCode: 'ok', text: '' }, 'Text: cannot be empty'],
      [{ text: 'x' }, 'shortCode is required'],
    ] as const) {
      const res = await t.console<{ message: string[] }>(owner.token, 'POST', '/canned-responses/', { body });
      assert.equal(res.status, 400, res.text);
      assert.ok(res.body.message.includes(message), res.text);
    }
    // The same sentence in the web account's other language (UserLang).
    const ru = await t.console(owner.token, 'POST', '/canned-responses/', { body: { shortCode: 'has space', text: 'x' }, lang: 'ru' });
    assert.deepEqual([ru.status, ru.body], [400, { message: ['Короткий код: только буквы, цифры, _ и -, не более 50'], statusCode: 400 }]);
    const notFound = { message: 'Saved reply not found', statusCode: 404 };
    for (const [method, id, body] of [
      ['PUT', first.body.id, { shortCode: 'stolen', text: 'x' }],
      ['DELETE', first.body.id, undefined],
      ['DELETE', 'not-a-uuid', undefined],
    ] as const) {
      const res = await t.console(other.token, method, `/canned-responses/${id}/`, { body });
      assert.deepEqual([res.status, res.body], [404, notFound], `${method} ${id}`);
    }
    const mine = await t.console<{ cannedResponses: Reply[] }>(owner.token, 'GET', '/canned-responses/');
    assert.deepEqual(mine.body.cannedResponses.map((r) => [r.shortCode, r.text]), [['hi', 'Hello!'], ['yo', 'Yo!']]);
  });
});
