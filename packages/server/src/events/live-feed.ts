// Live feed of committed events, for views that update without a reload (the web account's Inbox, the chat
// widget). Fed by the same outbox as the webhooks: `recordEvent` sends a NOTIFY `<accountId>:<eventId>` that
// PostgreSQL delivers at commit, in commit order, to every process; nothing shows that was rolled back.
// An event is read from the database only when this process has a subscriber of its account.
// The console's streams (`follow`) can resume: each account they follow keeps a journal of its recent events and
// console changes in this process, and a stream's position (its SSE id: the last event and the last change it was
// sent) picks up there after a reconnect, every item missed once; a position the journal no longer holds is a reset.
import type { FeedEventPayload } from '@parley/contracts';
import { inArray, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Database, Executor, Listen } from '../db/client.ts';
import { events } from '../db/schema.ts';
import { isUuid, newId } from '../lib/ids.ts';
import { EVENTS_CHANNEL } from './outbox.ts';

export interface LiveEvent {
  id: string;
  accountId: string;
  channelId: string;
  chatId: string | null;
  payload: FeedEventPayload;
}

export type LiveListener = (event: LiveEvent) => void;

/**
 * Changes to a chat that only the console sees (assignment, private notes, read state): `NOTIFY parley_console
 * '<accountId>:<chatId>:<noticeId>'`, delivered at commit to every process, so every open Inbox of the account reloads
 * that chat (the notice's id names it in every process's journal). Never an event: nothing reaches webhooks, the
 * event feed or the widget.
 */
export const CONSOLE_CHANNEL = 'parley_console';

/** Tells every open Inbox of the account that a chat changed (inside a transaction: heard when it commits). */
export async function notifyChatChanged(executor: Executor, accountId: string, chatId: string): Promise<void> {
  await executor.execute(sql`SELECT pg_notify(${CONSOLE_CHANNEL}, ${`${accountId}:${chatId}:${newId()}`})`);
}

/** What a console stream is told, each with its position after it (its SSE id). */
export interface LiveFollower {
  event(event: LiveEvent, position: string): void;
  change(chatId: string, position: string): void;
  /** Events may have been missed (the database connection was lost and made again): the view reloads. */
  gap(position: string): void;
}

/** What a resumed stream missed, oldest first, each with its position after it. */
export type MissedItem = ({ kind: 'event'; event: LiveEvent } | { kind: 'change'; chatId: string }) & { position: string };

export interface Following {
  /**
   * Without a position: undefined. With one this process's journal holds: what came after it (maybe nothing).
   * `reset`: a position it does not hold (too old, another process's, or before a gap): the view reloads.
   */
  missed: MissedItem[] | 'reset' | undefined;
  /** The stream's position now (after the missed items). */
  position: string;
  stop(): void;
}

/** How long a journal keeps an item (a reconnect comes within seconds; a longer gap reloads). */
export const JOURNAL_MS = 120_000;
/** At most this many items of each kind per account (the most recent); the last one always stays. */
export const JOURNAL_ITEMS = 5_000;
/** A journal outlives its account's last stream this long, so the reconnect of a member's only tab finds it. */
export const JOURNAL_LINGER_MS = 60_000;

export interface LiveFeed {
  /**
   * `listener` gets every event of the account committed from now on, in commit order. `onGap` (optional) is
   * called when events may have been missed (the database connection was lost and made again): a view reloads.
   * Returns the unsubscribe function.
   */
  subscribe(accountId: string, listener: LiveListener, onGap?: () => void): () => void;
  /**
   * A console stream: the account's events and console changes from now on, or, with `position` (a reconnect's
   * Last-Event-ID), from there (see `Following.missed`).
   */
  follow(accountId: string, position: string | undefined, follower: LiveFollower): Following;
  start(): Promise<void>;
  stop(): Promise<void>;
}

interface Subscriber {
  listener: LiveListener;
  onGap: (() => void) | undefined;
}

/** One item of a journal's sequence; the first may be a mark (no item): where the sequence began in this process. */
interface Entry<T> {
  id: string;
  /** Arrival order in this process (a replay interleaves events and changes by it). */
  seq: number;
  at: number;
  item: T | undefined;
}

interface Journal {
  events: Entry<LiveEvent>[];
  changes: Entry<string>[];
  followers: Map<LiveFollower, { event: string; change: string }>;
  dropTimer: NodeJS.Timeout | undefined;
}

const encodePosition = (at: { event: string; change: string }) => `${at.event}.${at.change}`;

function decodePosition(position: string): { event: string; change: string } | undefined {
  const [event, change, ...rest] = position.split('.');
  return event && change && rest.length === 0 && isUuid(event) && isUuid(change) ? { event, change } : undefined;
}

export function createLiveFeed(deps: { db: Database; listen: Listen | undefined; logger: FastifyBaseLogger }): LiveFeed {
  const subscribers = new Map<string, Set<Subscriber>>();
  /** Event ids heard and not yet read, in commit order. */
  let pending: string[] = [];
  let reading: Promise<void> | undefined;
  let unlisten: (() => Promise<void>) | undefined;
  let unlistenChanges: (() => Promise<void>) | undefined;
  const journals = new Map<string, Journal>();
  let seq = 0;
  const mark = <T>(): Entry<T> => ({ id: newId(), seq: seq++, at: Date.now(), item: undefined });

  /** Appends to a sequence, dropping what is too old or too many, never its last entry. */
  const append = <T>(entries: Entry<T>[], id: string, item: T): void => {
    const now = Date.now();
    entries.push({ id, seq: seq++, at: now, item });
    let drop = 0;
    while (drop < entries.length - 1 && (entries.length - drop > JOURNAL_ITEMS || (entries[drop]?.at ?? now) < now - JOURNAL_MS)) drop += 1;
    if (drop > 0) entries.splice(0, drop);
  };

  const tell = (what: () => void): void => {
    try {
      what();
    } catch (error) {
      deps.logger.warn({ err: error }, 'live feed follower failed');
    }
  };

  const journalEvent = (event: LiveEvent): void => {
    const journal = journals.get(event.accountId);
    if (!journal) return;
    append(journal.events, event.id, event);
    for (const [follower, at] of journal.followers) {
      at.event = event.id;
      tell(() => follower.event(event, encodePosition(at)));
    }
  };

  const journalChange = (accountId: string, chatId: string, noticeId: string): void => {
    const journal = journals.get(accountId);
    if (!journal) return;
    append(journal.changes, noticeId, chatId);
    for (const [follower, at] of journal.followers) {
      at.change = noticeId;
      tell(() => follower.change(chatId, encodePosition(at)));
    }
  };

  /** What came after `position` in the journal, oldest first; undefined when it does not hold that position. */
  const after = (journal: Journal, position: { event: string; change: string }): MissedItem[] | undefined => {
    const eventAt = journal.events.findLastIndex((entry) => entry.id === position.event);
    const changeAt = journal.changes.findLastIndex((entry) => entry.id === position.change);
    if (eventAt < 0 || changeAt < 0) return undefined;
    type Pending = { seq: number; id: string } & ({ kind: 'event'; event: LiveEvent } | { kind: 'change'; chatId: string });
    const pending: Pending[] = [];
    for (const entry of journal.events.slice(eventAt + 1)) if (entry.item) pending.push({ seq: entry.seq, id: entry.id, kind: 'event', event: entry.item });
    for (const entry of journal.changes.slice(changeAt + 1)) {
      if (entry.item !== undefined) pending.push({ seq: entry.seq, id: entry.id, kind: 'change', chatId: entry.item });
    }
    // In arrival order, each with the stream's position after it.
    const at = { ...position };
    return pending
      .sort((a, b) => a.seq - b.seq)
      .map((p): MissedItem => {
        if (p.kind === 'event') {
          at.event = p.id;
          return { kind: 'event', event: p.event, position: encodePosition(at) };
        }
        at.change = p.id;
        return { kind: 'change', chatId: p.chatId, position: encodePosition(at) };
      });
  };

  const dispatch = (event: LiveEvent): void => {
    for (const subscriber of subscribers.get(event.accountId) ?? []) {
      try {
        subscriber.listener(event);
      } catch (error) {
        deps.logger.warn({ err: error }, 'live feed listener failed');
      }
    }
  };

  // One read per batch of notifications; notifications heard while it runs make the next batch.
  const readPending = async (): Promise<void> => {
    while (pending.length > 0) {
      const ids = pending;
      pending = [];
      try {
        const rows = await deps.db
          .select({ id: events.id, accountId: events.accountId, channelId: events.channelId, chatId: events.chatId, payload: events.payload })
          .from(events)
          .where(inArray(events.id, ids));
        const byId = new Map(rows.map((row) => [row.id, row]));
        for (const id of ids) {
          const row = byId.get(id);
          if (!row) continue;
          const event = { ...row, payload: row.payload as FeedEventPayload };
          dispatch(event);
          journalEvent(event);
        }
      } catch (error) {
        deps.logger.warn({ err: error }, 'live feed read failed');
        gap();
      }
    }
  };

  const gap = (): void => {
    for (const set of subscribers.values()) for (const subscriber of set) subscriber.onGap?.();
    journalGap();
  };

  /** Items may have been missed: no position held so far can be resumed, the streams go on from new marks. */
  const journalGap = (): void => {
    for (const journal of journals.values()) {
      journal.events = [mark()];
      journal.changes = [mark()];
      const at = { event: journal.events[0]?.id ?? '', change: journal.changes[0]?.id ?? '' };
      for (const [follower, position] of journal.followers) {
        Object.assign(position, at);
        tell(() => follower.gap(encodePosition(position)));
      }
    }
  };

  const onNotify = (payload: string | undefined): void => {
    if (payload === undefined) {
      gap();
      return;
    }
    const separator = payload.indexOf(':');
    const accountId = payload.slice(0, separator);
    if (separator < 0 || !(subscribers.has(accountId) || journals.has(accountId))) return;
    pending.push(payload.slice(separator + 1));
    reading ??= readPending().finally(() => {
      reading = undefined;
    });
  };

  const onChange = (payload: string | undefined): void => {
    // Notices may have been lost (this channel has a connection of its own): console streams reload.
    if (payload === undefined) {
      journalGap();
      return;
    }
    const [accountId = '', chatId = '', noticeId] = payload.split(':');
    // A notice without an id (a process of an older version): resumable in this process only.
    journalChange(accountId, chatId, noticeId && isUuid(noticeId) ? noticeId : newId());
  };

  return {
    subscribe(accountId, listener, onGap) {
      let set = subscribers.get(accountId);
      if (!set) subscribers.set(accountId, (set = new Set()));
      const subscriber: Subscriber = { listener, onGap };
      set.add(subscriber);
      return () => {
        set.delete(subscriber);
        if (set.size === 0 && subscribers.get(accountId) === set) subscribers.delete(accountId);
      };
    },
    follow(accountId, position, follower) {
      let journal = journals.get(accountId);
      const known = journal !== undefined;
      if (!journal) {
        journal = { events: [mark()], changes: [mark()], followers: new Map(), dropTimer: undefined };
        journals.set(accountId, journal);
      }
      clearTimeout(journal.dropTimer);
      journal.dropTimer = undefined;
      const asked = position === undefined ? undefined : decodePosition(position);
      const missed = position === undefined ? undefined : ((known && asked && after(journal, asked)) || 'reset');
      const head = { event: journal.events.at(-1)?.id ?? '', change: journal.changes.at(-1)?.id ?? '' };
      journal.followers.set(follower, head);
      const own = journal;
      let stopped = false;
      return {
        missed,
        position: encodePosition(head),
        stop() {
          if (stopped) return;
          stopped = true;
          own.followers.delete(follower);
          if (own.followers.size > 0 || journals.get(accountId) !== own) return;
          own.dropTimer = setTimeout(() => {
            if (own.followers.size === 0 && journals.get(accountId) === own) journals.delete(accountId);
          }, JOURNAL_LINGER_MS);
          own.dropTimer.unref();
        },
      };
    },
    async start() {
      if (deps.listen && !unlisten) unlisten = await deps.listen(EVENTS_CHANNEL, onNotify);
      if (deps.listen && !unlistenChanges) unlistenChanges = await deps.listen(CONSOLE_CHANNEL, onChange);
    },
    async stop() {
      await unlisten?.();
      unlisten = undefined;
      await unlistenChanges?.();
      unlistenChanges = undefined;
      await reading;
      subscribers.clear();
      for (const journal of journals.values()) clearTimeout(journal.dropTimer);
      journals.clear();
    },
  };
}
