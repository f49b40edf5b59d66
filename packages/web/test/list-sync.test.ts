// The Inbox list's live patches and its throttled reloads, driven with a fake clock: which patches are exact, that a
// steady flow reloads at most once per interval and never starves, and that a reload's late answer keeps the patches
// heard while it was on its way.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { InboxListChat } from '@parley/contracts';
import { parseLiveMessage, type LiveMessage } from '../src/live-messages.ts';
import { createThrottle, type Timers } from '../src/throttle.ts';
import type { Filters } from '../src/pages/inbox/filters.ts';
import { createListSync, matchesFilters, patchPage, RELOAD_INTERVAL_MS, type ChatPage, type ListQuery } from '../src/pages/inbox/list-sync.ts';
import { chat, ME, settle } from './support/inbox-chats.ts';

const ALL: Filters = { channelId: '', channelName: '', tag: '', done: false, unread: false, needsHuman: false, assignee: '', offset: 0 };

/** A chat's next message: newer than any of the seeded ones. */
function moved(base: InboxListChat, seconds: number, fields: Partial<InboxListChat> = {}): InboxListChat {
  const at = new Date(Date.UTC(2026, 0, 2) + seconds * 1000).toISOString();
  return { ...base, lastMessageDate: at, updatedAt: at, text: `moved ${seconds}`, ...fields };
}

const ids = (page: ChatPage) => page.chats.map((c) => Number(c.id.slice(-12)));

describe('matchesFilters: what the server would list', () => {
  test('each filter, the assignee by id, me and none, and every tag of a tag list', () => {
    const tagged = chat(1, { userTags: [{ tags: { id: 't1', name: 'vip' } }, { tags: { id: 't2', name: 'eu' } }], assignee: { id: ME, name: 'Me' } });
    assert.equal(matchesFilters(tagged, { ...ALL, tag: ' vip , eu ,' }, ME), true);
    assert.equal(matchesFilters(tagged, { ...ALL, tag: 'vip,us' }, ME), false);
    assert.equal(matchesFilters(tagged, { ...ALL, assignee: 'me' }, ME), true);
    assert.equal(matchesFilters(tagged, { ...ALL, assignee: 'me' }, undefined), undefined, 'me before the member is known');
    assert.equal(matchesFilters(tagged, { ...ALL, assignee: ME.toUpperCase() }, undefined), true);
    assert.equal(matchesFilters(tagged, { ...ALL, assignee: 'none' }, ME), false);
    assert.equal(matchesFilters(chat(2), { ...ALL, assignee: 'none' }, ME), true);
    assert.equal(matchesFilters(chat(2), { ...ALL, unread: true }, ME), false);
    assert.equal(matchesFilters(chat(2, { customUnread: true }), { ...ALL, unread: true }, ME), true);
    assert.equal(matchesFilters(chat(2, { unreadCount: 2 }), { ...ALL, unread: true }, ME), true);
    assert.equal(matchesFilters(chat(2), { ...ALL, done: true }, ME), false);
    assert.equal(matchesFilters(chat(2, { needsHuman: true }), { ...ALL, needsHuman: true }, ME), true);
    assert.equal(matchesFilters(chat(2), { ...ALL, channelName: 'widget' }, ME), false);
    assert.equal(matchesFilters(chat(2), { ...ALL, channelId: 'cc:api' }, ME), true);
  });
});

describe('patchPage', () => {
  const whole: ChatPage = { chats: [chat(3), chat(2), chat(1)], count: 3 };
  const partial: ChatPage = { chats: [chat(5), chat(4), chat(3)], count: 10 };

  test('a shown chat with a new message moves to the top; exact, the count unchanged', () => {
    const patched = patchPage(partial, chat(3).id, moved(chat(3), 1), ALL, ME, 3);
    assert.deepEqual([ids(patched), patched.count, patched.exact], [[3, 5, 4], 10, true]);
    assert.equal(patched.chats[0]?.text, 'moved 1');
  });

  test('the whole list: a new chat is added and counted, a full page lets its last chat go; exact', () => {
    const added = patchPage(whole, chat(9).id, moved(chat(9), 1), ALL, ME, 3);
    assert.deepEqual([ids(added), added.count, added.exact], [[9, 3, 2], 4, true]);
    const roomy = patchPage(whole, chat(9).id, moved(chat(9), 1), ALL, ME, 50);
    assert.deepEqual([ids(roomy), roomy.count, roomy.exact], [[9, 3, 2, 1], 4, true]);
  });

  test('a chat beyond a page that is not the whole list: shown, but the count is not known (reload)', () => {
    const patched = patchPage(partial, chat(1).id, moved(chat(1), 1), ALL, ME, 3);
    assert.deepEqual([ids(patched), patched.count, patched.exact], [[1, 5, 4], 10, false]);
    const older = patchPage(partial, chat(1).id, chat(1, { updatedAt: moved(chat(1), 2).updatedAt }), ALL, ME, 3);
    assert.deepEqual([ids(older), older.exact], [[5, 4, 3], false], 'not in the page: not shown');
  });

  test('a chat that stops matching leaves; exact only when the page was the whole list (else a hole at its end)', () => {
    const read = patchPage({ chats: [chat(3, { unreadCount: 1 }), chat(2, { unreadCount: 2 })], count: 2 }, chat(3).id, chat(3), { ...ALL, unread: true }, ME);
    assert.deepEqual([ids(read), read.count, read.exact], [[2], 1, true]);
    const unread: ChatPage = { chats: [chat(5, { unreadCount: 1 }), chat(4, { unreadCount: 1 }), chat(3, { unreadCount: 1 })], count: 10 };
    const hole = patchPage(unread, chat(4).id, moved(chat(4), 1), { ...ALL, unread: true }, ME, 3);
    assert.deepEqual([ids(hole), hole.count, hole.exact], [[5, 3], 9, false]);
    const gone = patchPage(partial, chat(4).id, null, ALL, ME, 3);
    assert.deepEqual([ids(gone), gone.count, gone.exact], [[5, 3], 9, false]);
  });

  test('a chat not shown that does not match: nothing, exact only for the whole list', () => {
    assert.equal(patchPage(whole, chat(9).id, chat(9), { ...ALL, done: true }, ME).exact, true);
    assert.equal(patchPage(partial, chat(9).id, chat(9), { ...ALL, done: true }, ME).exact, false);
  });

  test("an older state than the one shown (a reload's answer read before a patch) is ignored", () => {
    const shown: ChatPage = { chats: [moved(chat(3), 5)], count: 1 };
    const patched = patchPage(shown, chat(3).id, chat(3), ALL, ME);
    assert.deepEqual([patched.chats[0]?.text, patched.exact], ['moved 5', true]);
  });
});

/** A fake clock: timers run when `advance` passes their time. */
function fakeTimers() {
  let clock = 0;
  let next = 0;
  const due = new Map<number, { at: number; run: () => void }>();
  const timers: Timers = {
    setTimeout(run, ms) {
      const handle = ++next;
      due.set(handle, { at: clock + ms, run });
      return handle;
    },
    clearTimeout(handle) {
      due.delete(handle as number);
    },
    now: () => clock,
  };
  return {
    timers,
    now: () => clock,
    async advance(ms: number) {
      const end = clock + ms;
      for (;;) {
        const [handle, timer] = [...due.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0] ?? [];
        if (!timer || handle === undefined) break;
        due.delete(handle);
        clock = timer.at;
        timer.run();
        await settle();
      }
      clock = end;
      await settle();
    },
  };
}

describe('createThrottle', () => {
  test('at once after a quiet interval; under a steady flow once per interval, never pushed back', async () => {
    const clock = fakeTimers();
    const runs: number[] = [];
    const throttle = createThrottle(() => runs.push(clock.now()), 3_000, clock.timers);
    throttle.request();
    assert.deepEqual(runs, [0]);
    // A request every 100 ms for 10 s.
    for (let k = 1; k <= 100; k += 1) {
      await clock.advance(100);
      throttle.request();
    }
    assert.deepEqual(runs, [0, 3_000, 6_000, 9_000]);
    throttle.runNow();
    assert.deepEqual(runs.at(-1), 10_000);
    throttle.request();
    await clock.advance(2_999);
    assert.equal(runs.length, 5);
    await clock.advance(1);
    assert.deepEqual(runs.at(-1), 13_000);
  });
});

/** A list sync against a fake server of `chats` (all of them match), counting its requests. */
function harness(chats: InboxListChat[], filters: Filters = ALL) {
  const clock = fakeTimers();
  const server = { chats, requests: [] as ListQuery[], hold: undefined as Promise<void> | undefined };
  const sync = createListSync({
    async fetchPage(query) {
      server.requests.push(query);
      const snapshot = [...server.chats].sort((a, b) => (a.lastMessageDate < b.lastMessageDate ? 1 : -1));
      await server.hold;
      return { chats: snapshot.slice(0, Number(query.limit)), count: snapshot.length };
    },
    memberId: ME,
    filters,
    onChange: () => undefined,
    timers: clock.timers,
  });
  return { clock, server, sync };
}

const event = (c: InboxListChat | null, chatId = c?.id ?? ''): LiveMessage => ({ kind: 'event', chatId, payload: { event: 'new_messages' }, chat: c, needsHumanCount: 0 });

describe('createListSync', () => {
  test('a whole list is patched without reloads, whatever the flow', async () => {
    const { clock, server, sync } = harness([chat(1), chat(2)]);
    sync.setFilters(ALL);
    await clock.advance(0);
    assert.equal(server.requests.length, 1);
    for (let k = 1; k <= 50; k += 1) {
      const next = moved(chat(k % 2 === 0 ? 2 : 1), k);
      server.chats = server.chats.map((c) => (c.id === next.id ? next : c));
      sync.live(event(next));
      await clock.advance(100);
    }
    assert.equal(server.requests.length, 1, 'no reload');
    assert.deepEqual([sync.state().chats[0]?.text, sync.state().count], ['moved 50', 2]);
  });

  test('messages 100 ms apart to chats beyond the page: each shown at once; the page reloads once per interval', async () => {
    const many = Array.from({ length: 200 }, (_, k) => chat(k + 1));
    const { clock, server, sync } = harness(many);
    sync.setFilters(ALL);
    await clock.advance(0);
    for (let k = 1; k <= 100; k += 1) {
      const next = moved(chat(k), k);
      server.chats = server.chats.map((c) => (c.id === next.id ? next : c));
      sync.live(event(next));
      assert.equal(sync.state().chats[0]?.text, `moved ${k}`, 'shown at once');
      await clock.advance(100);
    }
    // The first load, one at once (the first message after a quiet interval), then one per interval.
    const reloads = server.requests.length - 1;
    assert.ok(reloads >= 3 && reloads <= 1 + Math.ceil(10_000 / RELOAD_INTERVAL_MS), `${reloads} reloads in 10 s`);
    assert.equal(sync.state().count, 200);
  });

  test("a reload's late answer keeps the patches heard while it was on its way", async () => {
    const { clock, server, sync } = harness([chat(1), chat(2)]);
    sync.setFilters(ALL);
    await clock.advance(0);
    let release = () => {};
    server.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    sync.reload();
    await clock.advance(0);
    const next = moved(chat(1), 7);
    sync.live(event(next));
    server.hold = undefined;
    release();
    await clock.advance(0);
    assert.deepEqual([sync.state().chats[0]?.text, sync.state().count], ['moved 7', 2]);
  });

  test('a message without its chat, a gap, or a page past the first: reloaded (throttled)', async () => {
    const { clock, server, sync } = harness([chat(1)]);
    sync.setFilters(ALL);
    await clock.advance(0);
    sync.live({ kind: 'change', chatId: chat(1).id, chat: undefined, needsHumanCount: undefined });
    sync.live({ kind: 'reload' });
    await clock.advance(RELOAD_INTERVAL_MS);
    assert.equal(server.requests.length, 2, 'one reload for both, at the end of the interval');
  });
});

describe('parseLiveMessage', () => {
  test('events and changes with their chat (null: gone; absent: not told); ready and gap reload', () => {
    const listed = chat(1);
    assert.deepEqual(parseLiveMessage('event', JSON.stringify({ chatId: listed.id, payload: { event: 'new_messages' }, chat: listed, needsHumanCount: 2 })), {
      kind: 'event',
      chatId: listed.id,
      payload: { event: 'new_messages' },
      chat: listed,
      needsHumanCount: 2,
    });
    assert.deepEqual(parseLiveMessage('change', JSON.stringify({ chatId: 'x', chat: null, needsHumanCount: 0 })), { kind: 'change', chatId: 'x', chat: null, needsHumanCount: 0 });
    assert.deepEqual(parseLiveMessage('change', '{"chatId":"x"}'), { kind: 'change', chatId: 'x', chat: undefined, needsHumanCount: undefined });
    assert.deepEqual(parseLiveMessage('ready', '{}'), { kind: 'reload' });
    assert.deepEqual(parseLiveMessage('gap', '{}'), { kind: 'reload' });
    assert.equal(parseLiveMessage('other', '{}'), undefined);
  });
});
