// SQL of the event feed. Commit order, not insert order: an event carries the id of the transaction that wrote
// it (`xid`, a column default), and only events of transactions older than the reader's snapshot xmin are read.
// Every such transaction has ended, so no event can later appear before the last one returned: a reader paging by
// (xid, id) never skips an event that committed late. A long open transaction delays the feed, never loses from it.
import type { FeedEventPayload } from '@parley/contracts';
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.ts';

/** A position in the feed: the transaction that wrote an event, and the event's id. */
export interface FeedPosition {
  xid: string;
  id: string;
}

export interface FeedRow extends FeedPosition {
  channelId: string;
  createdAt: Date;
  payload: FeedEventPayload;
}

export function createFeedStore(db: Executor) {
  return {
    /** Up to `limit` events of the account after `after` (exclusive), oldest commit first. */
    async after(accountId: string, after: FeedPosition | undefined, limit: number): Promise<FeedRow[]> {
      // `xid_text`, not `xid`: ORDER BY would take an output column of that name and sort the text.
      const rows = await queryRows<{ id: string; xid_text: string; channel_id: string; created_at: Date | string; payload: FeedEventPayload }>(
        db,
        sql`SELECT id, xid::text AS xid_text, channel_id, created_at, payload FROM events
            WHERE account_id = ${accountId}
              AND xid < pg_snapshot_xmin(pg_current_snapshot())
              ${after ? sql`AND (xid, id) > (${after.xid}::xid8, ${after.id}::uuid)` : sql``}
            ORDER BY xid, id
            LIMIT ${limit}`,
      );
      return rows.map((row) => ({
        id: row.id,
        xid: row.xid_text,
        channelId: row.channel_id,
        createdAt: new Date(row.created_at),
        payload: row.payload,
      }));
    },
  };
}

export type FeedStore = ReturnType<typeof createFeedStore>;
