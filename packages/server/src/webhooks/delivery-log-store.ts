// SQL of the delivery log (console): its retention, the deliveries of a channel with their attempts, and
// redeliveries. Part of the delivery store (delivery-store.ts), which spreads these queries into its own.
import { and, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import { queryRows, type Database } from '../db/client.ts';
import { deliveries, deliveryAttempts, events } from '../db/schema.ts';
import { newId } from '../lib/ids.ts';

export function createDeliveryLogStore(db: Database) {
  return {
    /**
     * Deletes deliveries delivered before `olderThan`, then events created before it that no delivery needs any
     * more (a failed or pending delivery keeps its event): the event feed keeps events for the retention period.
     */
    async pruneDelivered(olderThan: Date): Promise<void> {
      await db.delete(deliveries).where(and(eq(deliveries.status, 'delivered'), lt(deliveries.finishedAt, olderThan)));
      await db
        .delete(events)
        .where(
          and(
            lt(events.createdAt, olderThan),
            sql`NOT EXISTS (SELECT 1 FROM ${deliveries} WHERE ${deliveries.eventId} = ${events.id})`,
          ),
        );
    },

    async listForChannel(accountId: string, channelId: string, limit: number) {
      const rows = await db
        .select({ delivery: deliveries, event: events.kind })
        .from(deliveries)
        .innerJoin(events, eq(events.id, deliveries.eventId))
        .where(and(eq(deliveries.accountId, accountId), eq(deliveries.channelId, channelId)))
        .orderBy(desc(deliveries.createdAt), desc(deliveries.id))
        .limit(limit);
      const attempts = rows.length
        ? await db
            .select()
            .from(deliveryAttempts)
            .where(inArray(deliveryAttempts.deliveryId, rows.map((r) => r.delivery.id)))
            .orderBy(deliveryAttempts.number)
        : [];
      return rows.map((row) => ({ ...row, attempts: attempts.filter((a) => a.deliveryId === row.delivery.id) }));
    },

    async statusOf(accountId: string, deliveryId: string): Promise<string | undefined> {
      const [row] = await db
        .select({ status: deliveries.status })
        .from(deliveries)
        .where(and(eq(deliveries.accountId, accountId), eq(deliveries.id, deliveryId)));
      return row?.status;
    },

    /** A new pending delivery of an event already delivered or failed (redelivery from the console). */
    async redeliver(accountId: string, deliveryId: string): Promise<string | undefined> {
      const id = newId();
      const rows = await queryRows<{ id: string }>(
        db,
        sql`INSERT INTO ${deliveries} (id, event_id, account_id, channel_id, next_attempt_at)
            SELECT ${id}, event_id, account_id, channel_id, now() FROM ${deliveries}
            WHERE id = ${deliveryId} AND account_id = ${accountId} AND status <> 'pending'
            RETURNING id`,
      );
      return rows[0]?.id;
    },

    /** Redelivers every failed delivery of a channel created in [from, to). Returns how many. */
    async redeliverFailed(accountId: string, channelId: string, from: Date, to: Date): Promise<number> {
      const rows = await queryRows<{ id: string }>(
        db,
        sql`WITH failed AS (
              UPDATE ${deliveries} SET status = 'pending', attempts = 0, next_attempt_at = now(), finished_at = NULL
              WHERE account_id = ${accountId} AND channel_id = ${channelId} AND status = 'failed'
                AND created_at >= ${from.toISOString()}::timestamptz AND created_at < ${to.toISOString()}::timestamptz
              RETURNING id)
            SELECT id FROM failed`,
      );
      return rows.length;
    },
  };
}
