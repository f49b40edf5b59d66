// Live feed of committed events, for views that update without a reload (the web account's Inbox, the chat
// widget). Fed by the same outbox as the webhooks: `recordEvent` sends a NOTIFY `<accountId>:<eventId>` that
// PostgreSQL delivers at commit, in commit order, to every process; nothing shows that was rolled back.
// An event is read from the database only when this process has a subscriber of its account.
import type { WebhookEvent } from '@parley/contracts';
import { inArray } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Database, Listen } from '../db/client.ts';
import { events } from '../db/schema.ts';
import { EVENTS_CHANNEL } from './outbox.ts';

export interface LiveEvent {
  id: string;
  accountId: string;
  channelId: string;
  chatId: string | null;
  payload: WebhookEvent;
}

export type LiveListener = (event: LiveEvent) => void;

export interface LiveFeed {
  /**
   * `listener` gets every event of the account committed from now on, in commit order. `onGap` (optional) is
   * called when events may have been missed (the database connection was lost and made again): a view reloads.
   * Returns the unsubscribe function.
   */
  subscribe(accountId: string, listener: LiveListener, onGap?: () => void): () => void;
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
          if (row) dispatch({ ...row, payload: row.payload as WebhookEvent });
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
    async start() {
      if (deps.listen && !unlisten) unlisten = await deps.listen(EVENTS_CHANNEL, onNotify);
    },
    async stop() {
      await unlisten?.();
      unlisten = undefined;
      await reading;
      subscribers.clear();
    },
  };
}
