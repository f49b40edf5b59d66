// The team in the Inbox (issue #25): assignment and the assignee filter, changes that reach every open Inbox of
// the account (and nothing else), private notes, saved replies, and who did what.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PASSWORD, PUBLIC_URL, startTestApp, type TestApp } from './support/harness.ts';

type Invitation = { id: string; inviteUrl: string };
type ListedChat = { id: string; chatId: string; assignee: { id: string; name: string } | null };
type Owner = Awaited<ReturnType<TestApp['createConsoleUser']>>;

let t: TestApp;
let counter = 0;
const uniqueEmail = (name: string) => `${name}-${process.pid}-${Date.now()}-${(counter += 1)}@example.com`;

before(async () => {
  t = await startTestApp();
});
after(() => t.close());

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

/** A channel of the account and a chat in it per external id: their console ids. */
async function chatsOf(owner: Owner, ...externalIds: string[]): Promise<string[]> {
  const channel = await t.console<{ id: string }>(owner.token, 'POST', '/channel/custom/connect/', {
    body: { name: 'Support', settings: { isActive: false } },
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
  const until = async (needle: string, ms = 15_000) => {
    const deadline = Date.now() + ms;
    while (!received.includes(needle)) {
      if (Date.now() > deadline) throw new Error(`not received: ${needle}; got ${received}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  await until('event: ready');
  /** Waits until `needle` was received `times` times. */
  const count = async (needle: string, times: number, ms = 15_000) => {
    const deadline = Date.now() + ms;
    while (received.split(needle).length - 1 < times) {
      if (Date.now() > deadline) throw new Error(`not received ${times} times: ${needle}; got ${received}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return {
    until,
    count,
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
      [{ memberId: 42 }, 'memberId must be string'],
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
    assert.ok(filter.body.message.some((m) => m.startsWith('assignee must match pattern')), filter.text);
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
      const change = `event: change\ndata: {"chatId":"${chat}"}`;
      assert.equal((await t.console(ann.token, 'POST', `/chat/assign/${chat}/`, { body: { memberId: ann.id } })).status, 200);
      await ownerStream.count(change, 1);
      assert.equal((await t.console(ann.token, 'POST', `/chat/read/${chat}/`)).status, 200);
      await ownerStream.count(change, 2);
      assert.equal((await t.console(ann.token, 'POST', `/chat/unread/${chat}/`)).status, 200);
      await ownerStream.count(change, 3);
      assert.ok(!otherStream.received().includes('event: change'));
    } finally {
      await ownerStream.close();
      await otherStream.close();
    }
  });
});
