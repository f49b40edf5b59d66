// The team alerts kept by live messages: the count comes with each message, alerts follow each message's chat, and
// the two lists are read again only after a gap or a message without its chat (throttled).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { InboxListChat } from '@parley/contracts';
import { createAlertsSync, type AlertKind } from '../src/alerts-sync.ts';
import type { LiveMessage } from '../src/live-messages.ts';
import type { ListQuery } from '../src/pages/inbox/list-sync.ts';
import type { Timers } from '../src/throttle.ts';
import { chat, ME, settle } from './support/inbox-chats.ts';

test('alerts and the count follow live messages; the lists are read at the start, after a gap and without a chat', async () => {
  let clock = 0;
  const timers: { at: number; run: () => void }[] = [];
  const fake: Timers = {
    setTimeout: (run, ms) => timers.push({ at: clock + ms, run }),
    clearTimeout: () => undefined,
    now: () => clock,
  };
  const requests: ListQuery[] = [];
  const counts: number[] = [];
  const alerts: [AlertKind, string][] = [];
  const sync = createAlertsSync({
    async fetchPage(query) {
      requests.push(query);
      return query.needsHuman ? { chats: [chat(1, { needsHuman: true })], count: 1 } : { chats: [chat(2, { assignee: { id: ME, name: 'Me' } })], count: 1 };
    },
    memberId: ME,
    onCount: (count) => counts.push(count),
    onAlert: (kind, c) => alerts.push([kind, c.name]),
    timers: fake,
  });
  sync.start();
  await settle();
  assert.equal(requests.length, 2);
  assert.deepEqual(counts, [1]);

  const event = (c: InboxListChat, count: number, role = 'user'): LiveMessage => ({
    kind: 'event',
    chatId: c.id,
    payload: { event: 'new_messages', messages: [{ role }] },
    chat: c,
    needsHumanCount: count,
  });
  // A customer message in my chat; a chat handed off; a chat assigned to me; the handed-off one taken.
  sync.live(event(chat(2, { assignee: { id: ME, name: 'Me' } }), 1));
  sync.live(event(chat(3, { needsHuman: true }), 2, 'assistant'));
  sync.live({ kind: 'change', chatId: chat(4).id, chat: chat(4, { assignee: { id: ME, name: 'Me' } }), needsHumanCount: 2 });
  sync.live(event(chat(3), 1, 'assistant'));
  sync.live(event(chat(3, { needsHuman: true }), 2, 'assistant'));
  assert.deepEqual(alerts, [
    ['newMessage', 'Customer 2'],
    ['needsPerson', 'Customer 3'],
    ['assigned', 'Customer 4'],
    ['needsPerson', 'Customer 3'],
  ]);
  assert.deepEqual(counts, [1, 1, 2, 2, 1, 2]);
  assert.equal(requests.length, 2, 'no list read while messages carry their chats');

  // Without its chat (the server could not read it), and a gap: one read of both lists, at the interval's end.
  sync.live({ kind: 'change', chatId: chat(5).id, chat: undefined, needsHumanCount: undefined });
  sync.live({ kind: 'reload' });
  assert.equal(requests.length, 2);
  clock = timers.at(-1)?.at ?? clock;
  timers.at(-1)?.run();
  await settle();
  assert.equal(requests.length, 4);
  sync.stop();
});
