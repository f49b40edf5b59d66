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
