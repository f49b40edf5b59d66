// The event feed (GET /api/v1/events): the account's webhook events in commit order with a stable cursor, so a
// receiver that was down replays what it missed. The cursor is opaque to clients: base64url of `<xid>.<event id>`.
import type { EventPage, ListEventsQuery } from '@parley/contracts';
import { EVENTS_LIMIT_DEFAULT } from '@parley/contracts';
import { Errors } from '../errors.ts';
import { isUuid } from '../lib/ids.ts';
import type { FeedPosition, FeedStore } from './feed-store.ts';

/** xid8 is an unsigned 64-bit integer. */
const XID = /^[0-9]{1,20}$/;
const XID_MAX = 2n ** 64n - 1n;

export function encodeCursor(position: FeedPosition): string {
  return Buffer.from(`${position.xid}.${position.id}`, 'utf8').toString('base64url');
}

/** The position a cursor names, or undefined when it is not one this server made. */
export function decodeCursor(cursor: string): FeedPosition | undefined {
  const [xid, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('.');
  if (rest.length > 0 || xid === undefined || id === undefined) return undefined;
  if (!XID.test(xid) || BigInt(xid) > XID_MAX || !isUuid(id)) return undefined;
  return { xid, id };
}

export function createFeedService(deps: { store: Pick<FeedStore, 'after'> }) {
  return {
    async list(accountId: string, query: ListEventsQuery): Promise<EventPage> {
      const after = query.after === undefined ? undefined : decodeCursor(query.after);
      if (query.after !== undefined && after === undefined) throw Errors.invalidCursor();
      const limit = query.limit ?? EVENTS_LIMIT_DEFAULT;
      // One more than asked: tells whether more events follow without a second query.
      const rows = await deps.store.after(accountId, after, limit + 1);
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        events: page.map((row) => ({
          id: row.id,
          cursor: encodeCursor(row),
          channelId: row.channelId,
          createdAt: row.createdAt.toISOString(),
          payload: row.payload,
        })),
        nextCursor: last ? encodeCursor(last) : (query.after ?? null),
        hasMore: rows.length > limit,
      };
    },
  };
}

export type FeedService = ReturnType<typeof createFeedService>;
