// The live feed: committed events reach subscribers of their account, in commit order; rolled-back ones never.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { WebhookEvent } from '@parley/contracts';
import { createLiveFeed, type LiveEvent, type LiveFeed } from '../src/events/live-feed.ts';
import { recordEvent } from '../src/events/outbox.ts';
import { createLogger } from '../src/logger.ts';
import { eventually } from './support/events.ts';
import { startTestApp, type TestApp } from './support/harness.ts';

let t: TestApp;
let feed: LiveFeed;

before(async () => {
  t = await startTestApp();
  feed = createLiveFeed({ db: t.database.db, listen: t.database.listen, logger: createLogger('silent') });
  await feed.start();
});
after(async () => {
  await feed.stop();
  await t.close();
});

async function channelOf(token: string): Promise<string> {
  const created = await t.console<{ id: string }>(token, 'POST', '/channel/custom/connect/', {
    body: { name: 'Live', settings: { isActive: false } },
  });
  assert.equal(created.status, 201, created.text);
  return created.body.id;
}

function send(key: string, channelId: string, text: string) {
  return t.request('POST', '/api/v1/chats/chat/send-message-universal', {
    headers: { authorization: key },
    body: { channel: 'custom', channelId, externalChatId: 'live-1', role: 'user', text },
  });
}

test('committed events reach the subscribers of their account only, in commit order', async () => {
  const owner = await t.createConsoleUser();
  const stranger = await t.createConsoleUser();
  const channelId = await channelOf(owner.token);
  const strangerChannel = await channelOf(stranger.token);
  const seen: LiveEvent[] = [];
  const strangerSeen: LiveEvent[] = [];
  const stop = feed.subscribe(owner.accountId, (event) => seen.push(event));
  const stopStranger = feed.subscribe(stranger.accountId, (event) => strangerSeen.push(event));
  try {
    for (const text of ['first', 'second', 'third']) assert.equal((await send(owner.key, channelId, text)).status, 201);
    await eventually(async () => seen.length >= 3, 10_000);
    assert.deepEqual(
      seen.map((event) => (event.payload.event === 'new_messages' ? event.payload.messages[0]?.text : event.payload.event)),
      ['first', 'second', 'third'],
    );
    assert.ok(seen.every((event) => event.accountId === owner.accountId && event.channelId === channelId && event.chatId));
    assert.equal(strangerSeen.length, 0);

    assert.equal((await send(stranger.key, strangerChannel, 'theirs')).status, 201);
    await eventually(async () => strangerSeen.length === 1, 10_000);
    assert.equal(seen.length, 3);
  } finally {
    stop();
    stopStranger();
  }
});

test('an event whose transaction rolled back is never seen', async () => {
  const owner = await t.createConsoleUser();
  const channelId = await channelOf(owner.token);
  const seen: LiveEvent[] = [];
  const stop = feed.subscribe(owner.accountId, (event) => seen.push(event));
  const payload = (text: string) =>
    ({ event: 'task_trigger', chat: { id: 'x', name: text, uniqueId: 'x', channelName: 'custom' } }) as unknown as WebhookEvent;
  try {
    await assert.rejects(
      t.database.db.transaction(async (tx) => {
        await recordEvent(tx, { accountId: owner.accountId, channelId, chatId: null, payload: payload('rolled back') });
        throw new Error('roll back');
      }),
      /roll back/,
    );
    await t.database.db.transaction((tx) =>
      recordEvent(tx, { accountId: owner.accountId, channelId, chatId: null, payload: payload('committed') }),
    );
    await eventually(async () => seen.length >= 1, 10_000);
    // Both NOTIFYs would have arrived by now, in commit order: the committed one is the only one.
    assert.deepEqual(
      seen.map((event) => (event.payload as unknown as { chat: { name: string } }).chat.name),
      ['committed'],
    );
  } finally {
    stop();
  }
});

test('an unsubscribed listener hears nothing more', async () => {
  const owner = await t.createConsoleUser();
  const channelId = await channelOf(owner.token);
  const seen: LiveEvent[] = [];
  const witness: LiveEvent[] = [];
  const stop = feed.subscribe(owner.accountId, (event) => seen.push(event));
  const stopWitness = feed.subscribe(owner.accountId, (event) => witness.push(event));
  try {
    assert.equal((await send(owner.key, channelId, 'one')).status, 201);
    await eventually(async () => seen.length === 1 && witness.length === 1, 10_000);
    stop();
    assert.equal((await send(owner.key, channelId, 'two')).status, 201);
    await eventually(async () => witness.length === 2, 10_000);
    assert.equal(seen.length, 1);
  } finally {
    stopWitness();
  }
});

/** A message of the console's live stream (GET /console/v1/live). */
interface StreamMessage {
  event: string;
  id: string | undefined;
  data: { chatId?: string; resumed?: boolean; payload?: { event: string; chat?: { id: string }; messages?: { text: string }[] } };
}

/** A console live stream, read as it comes: its messages, a wait for one, whether the server ended it. */
async function openStream(app: TestApp, token: string, lastEventId?: string) {
  const controller = new AbortController();
  const response = await fetch(`${app.url}/console/v1/live`, {
    headers: { authorization: `Bearer ${token}`, ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) },
    signal: controller.signal,
  });
  assert.equal(response.status, 200);
  const reader = response.body?.getReader();
  assert.ok(reader);
  const decoder = new TextDecoder();
  let text = '';
  const messages: StreamMessage[] = [];
  let ended = false;
  const pump = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) break;
      text += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = text.indexOf('\n\n')) >= 0) {
        const block = text.slice(0, end);
        text = text.slice(end + 2);
        const field = (name: string) => [...block.matchAll(/^(\w+): ?(.*)$/gm)].find((m) => m[1] === name)?.[2];
        const event = field('event');
        if (event !== undefined) messages.push({ event, id: field('id'), data: JSON.parse(field('data') ?? '{}') as StreamMessage['data'] });
      }
    }
    ended = true;
  })();
  const until = (check: (all: StreamMessage[]) => boolean) => eventually(async () => check(messages), 10_000);
  await until((all) => all.some((m) => m.event === 'ready'));
  /** The texts of the new_messages events received, in order. */
  const texts = () => messages.flatMap((m) => (m.event === 'event' ? (m.data.payload?.messages ?? []).map((x) => x.text) : []));
  return {
    messages,
    until,
    texts,
    ended: () => ended,
    /** The id of the last message that had one: what the browser sends as Last-Event-ID when it reconnects. */
    lastId: () => messages.findLast((m) => m.id !== undefined)?.id,
    async close() {
      controller.abort();
      await pump;
    },
  };
}

test('a change of one\'s own name, language or notifications leaves the member\'s open streams open, still receiving events', async () => {
  const owner = await t.createConsoleUser();
  const channelId = await channelOf(owner.token);
  const stream = await openStream(t, owner.token);
  try {
    const renamed = await t.console<{ name: string }>(owner.token, 'PUT', '/me/', { body: { name: 'New Name' } });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.body.name, 'New Name');
    assert.equal((await t.console(owner.token, 'PUT', '/me/', { body: { language: 'de', notifications: { email: 'off', browser: false } } })).status, 200);
    assert.equal((await send(owner.key, channelId, 'after the rename')).status, 201);
    await stream.until(() => stream.texts().includes('after the rename'));
    assert.equal((await send(owner.key, channelId, 'and later')).status, 201);
    await stream.until(() => stream.texts().includes('and later'));
    assert.equal(stream.ended(), false);
    assert.equal(stream.messages.filter((m) => m.event === 'ready').length, 1, 'the same connection all along');
    // A team reply now carries the new name (every process forgot the old one).
    const chatId = stream.messages.find((m) => m.event === 'event')?.data.chatId;
    const reply = await t.console<{ senderName: string }>(owner.token, 'POST', `/chat/messages/${chatId}/`, { body: { text: 'Hello' } });
    assert.equal(reply.status, 201, reply.text);
    assert.equal(reply.body.senderName, 'New Name');
  } finally {
    await stream.close();
  }
});

test('a reconnect with Last-Event-ID gets the events and console changes missed in between, each once; an unknown one gets reset', async () => {
  const owner = await t.createConsoleUser();
  const channelId = await channelOf(owner.token);
  const me = await t.console<{ id: string }>(owner.token, 'GET', '/me/');
  // Another tab of the account stays open throughout: it shows when the missed items have been committed.
  const witness = await openStream(t, owner.token);
  const first = await openStream(t, owner.token);
  try {
    assert.equal((await send(owner.key, channelId, 'seen before')).status, 201);
    await first.until(() => first.texts().includes('seen before'));
    const ready = first.messages.find((m) => m.event === 'ready');
    assert.deepEqual(ready?.data, { resumed: false });
    assert.match(ready?.id ?? '', /^[0-9a-f-]{36}\.[0-9a-f-]{36}$/);
    const lastId = first.lastId();
    assert.ok(lastId);
    await first.close();

    // While the tab is away: two messages and an assignment (a console change).
    assert.equal((await send(owner.key, channelId, 'missed one')).status, 201);
    assert.equal((await send(owner.key, channelId, 'missed two')).status, 201);
    const chatId = witness.messages.find((m) => m.event === 'event')?.data.chatId;
    assert.equal((await t.console(owner.token, 'POST', `/chat/assign/${chatId}/`, { body: { memberId: me.body.id } })).status, 200);
    await witness.until(() => witness.texts().includes('missed two') && witness.messages.some((m) => m.event === 'change'));

    const resumed = await openStream(t, owner.token, lastId);
    try {
      const opening = resumed.messages.slice(0, resumed.messages.findIndex((m) => m.event === 'ready') + 1);
      assert.deepEqual(
        opening.map((m) => (m.event === 'event' ? m.data.payload?.messages?.[0]?.text : m.event === 'change' ? `change ${m.data.chatId}` : m.event)),
        ['missed one', 'missed two', `change ${chatId}`, 'ready'],
      );
      assert.deepEqual(opening.at(-1)?.data, { resumed: true });
      // Each message's id is the position after it; `ready`'s is where the stream is, after the last one.
      assert.equal(new Set(opening.slice(0, -1).map((m) => m.id)).size, opening.length - 1);
      assert.equal(opening.at(-2)?.id, opening.at(-1)?.id);
      // From there on, live as before, nothing twice.
      assert.equal((await send(owner.key, channelId, 'after')).status, 201);
      await resumed.until(() => resumed.texts().includes('after'));
      assert.deepEqual(resumed.texts(), ['missed one', 'missed two', 'after']);

      // Resumed again from its own position: nothing missed, nothing repeated.
      const position = resumed.lastId();
      await resumed.close();
      const again = await openStream(t, owner.token, position);
      assert.deepEqual(again.messages.map((m) => [m.event, m.data]), [['ready', { resumed: true }]]);
      await again.close();
    } finally {
      await resumed.close();
    }

    // A position this process does not hold (too old, or made up): reset, then ready; the view reloads.
    for (const unknown of [`${me.body.id}.${me.body.id}`, 'not-a-position']) {
      const reset = await openStream(t, owner.token, unknown);
      assert.deepEqual(reset.messages.map((m) => [m.event, m.data]), [['reset', {}], ['ready', { resumed: false }]]);
      await reset.close();
    }
  } finally {
    await first.close();
    await witness.close();
  }
});

test('a reconnect to another process resumes there when it followed the account meanwhile; a position only the first process made is a reset', async () => {
  const other = await startTestApp({ database: t.database, workers: false });
  const owner = await t.createConsoleUser();
  const channelId = await channelOf(owner.token);
  const me = await t.console<{ id: string }>(owner.token, 'GET', '/me/');
  const witness = await openStream(other, owner.token);
  const first = await openStream(t, owner.token);
  try {
    // Nothing seen yet: the position is this process's own marks, unknown elsewhere.
    const fresh = first.lastId();
    assert.equal((await send(owner.key, channelId, 'before')).status, 201);
    await first.until(() => first.texts().includes('before'));
    const chatId = first.messages.find((m) => m.event === 'event')?.data.chatId;
    assert.equal((await t.console(owner.token, 'POST', `/chat/assign/${chatId}/`, { body: { memberId: me.body.id } })).status, 200);
    await first.until((all) => all.some((m) => m.event === 'change'));
    const lastId = first.lastId();
    await first.close();

    assert.equal((await send(owner.key, channelId, 'while away')).status, 201);
    await witness.until(() => witness.texts().includes('while away'));
    const resumed = await openStream(other, owner.token, lastId);
    assert.deepEqual(
      resumed.messages.map((m) => (m.event === 'event' ? m.data.payload?.messages?.[0]?.text : m.event)),
      ['while away', 'ready'],
    );
    assert.deepEqual(resumed.messages.at(-1)?.data, { resumed: true });
    await resumed.close();

    const reset = await openStream(other, owner.token, fresh);
    assert.deepEqual(reset.messages.map((m) => m.event), ['reset', 'ready']);
    await reset.close();
  } finally {
    await first.close();
    await witness.close();
    await other.close();
  }
});
