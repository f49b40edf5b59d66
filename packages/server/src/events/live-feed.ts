// Live feed of committed events, for views that update without a reload (the web account's Inbox, the chat
// widget). Fed by the same outbox as the webhooks: `recordEvent` sends a NOTIFY `<accountId>:<eventId>` that
// PostgreSQL delivers at commit, in commit order, to every process; nothing shows that was rolled back.
// An event is read from the database only when this process has a subscriber of its account.
import type { FeedEventPayload } from '@parley/contracts';
import { inArray, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Database, Executor, Listen } from '../db/client.ts';
import { events } from '../db/schema.ts';
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
 * '<accountId>:<chatId>'`, delivered at commit to every process, so every open Inbox of the account reloads that chat.
 * Never an event: nothing reaches webhooks, the event feed or the widget.
 */
export const CONSOLE_CHANNEL = 'parley_console';

/** Tells every open Inbox of the account that a chat changed (inside a transaction: heard when it commits). */
export async function notifyChatChanged(executor: Executor, accountId: string, chatId: string): Promise<void> {
  await executor.execute(sql`SELECT pg_notify(${CONSOLE_CHANNEL}, ${`${accountId}:${chatId}`})`);
}

export type ChatChangeListener = (chatId: string) => void;

export interface LiveFeed {
  /**
   * `listener` gets every event of the account committed from now on, in commit order. `onGap` (optional) is
   * called when events may have been missed (the database connection was lost and made again): a view reloads.
   * Returns the unsubscribe function.
   */
  subscribe(accountId: string, listener: LiveListener, onGap?: () => void): () => void;
  /** `listener` gets the id of every chat of the account changed in the console (see CONSOLE_CHANNEL). */
  subscribeChanges(accountId: string, listener: ChatChangeListener): () => void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

interface Subscriber {
  listener: LiveListener;
  onGap: (() => void) | undefined;
}

export function createLiveFeed(deps: { db: Database; listen: Listen | undefined; logger: FastifyBaseLogger }): LiveFeed {
  const subscribers = new Map<string, Set<Subscriber>>();
  /** Event ids heard and not yet read, in commit order. */
  let pending: string[] = [];
  let reading: Promise<void> | undefined;
  let unlisten: (() => Promise<void>) | undefined;
  let unlistenChanges: (() => Promise<void>) | undefined;
  const changeListeners = new Map<string, Set<ChatChangeListener>>();

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
          if (row) dispatch({ ...row, payload: row.payload as FeedEventPayload });
        }
      } catch (error) {
        deps.logger.warn({ err: error }, 'live feed read failed');
        gap();
      }
    }
  };

  const gap = (): void => {
    for (const set of subscribers.values()) for (const subscriber of set) subscriber.onGap?.();
  };

  const onNotify = (payload: string | undefined): void => {
    if (payload === undefined) {
      gap();
      return;
    }
    const separator = payload.indexOf(':');
    if (separator < 0 || !subscribers.has(payload.slice(0, separator))) return;
    pending.push(payload.slice(separator + 1));
    reading ??= readPending().finally(() => {
      reading = undefined;
    });
  };

  const onChange = (payload: string | undefined): void => {
    // A lost notice is a gap of the event stream too (the same connection): views reload there.
    if (payload === undefined) return;
    const separator = payload.indexOf(':');
    for (const listener of changeListeners.get(payload.slice(0, separator)) ?? []) listener(payload.slice(separator + 1));
  };

  return {
    subscribeChanges(accountId, listener) {
      let set = changeListeners.get(accountId);
      if (!set) changeListeners.set(accountId, (set = new Set()));
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0 && changeListeners.get(accountId) === set) changeListeners.delete(accountId);
      };
    },
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
    async start() {
      if (deps.listen && !unlisten) unlisten = await deps.listen(EVENTS_CHANNEL, onNotify);
      if (deps.listen && !unlistenChanges) unlistenChanges = await deps.listen(CONSOLE_CHANNEL, onChange);
    },
    async stop() {
      await unlisten?.();
      unlisten = undefined;
      await unlistenChanges?.();
      unlistenChanges = undefined;
      changeListeners.clear();
      await reading;
      subscribers.clear();
    },
  };
}
