// SQL of webhook deliveries: claiming due ones (FOR UPDATE SKIP LOCKED, so several workers never take the
// same attempt), recording attempts, and the delivery log.
import { and, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import { queryRows, type Database } from '../db/client.ts';
import { channels, deliveries, deliveryAttempts, events } from '../db/schema.ts';
import { newId } from '../lib/ids.ts';

export interface ClaimedDelivery {
  id: string;
  channelId: string;
  attempts: number;
  payload: unknown;
  webhookUrl: string | null;
  webhookSecret: string | null;
}

export interface AttemptResult {
  startedAt: Date;
  latencyMs: number;
  statusCode: number | null;
  error: string | null;
  ok: boolean;
}

/** Pauses between attempts (spec, Delivery rules: 3 attempts, pauses of 2 and 4 seconds). */
export const RETRY_PAUSES_MS = [2_000, 4_000] as const;
export const MAX_ATTEMPTS = RETRY_PAUSES_MS.length + 1;

export function createDeliveryStore(db: Database) {
  return {
    /** Reserves up to `limit` due deliveries for `lockMs`, skipping channels this worker has no room for. */
    async claim(limit: number, lockMs: number, skipChannels: readonly string[]): Promise<ClaimedDelivery[]> {
      const claimed = await queryRows<{ id: string }>(
        db,
        sql`UPDATE ${deliveries} SET locked_until = now() + ${`${lockMs} milliseconds`}::interval
            WHERE id IN (
              SELECT id FROM ${deliveries}
              WHERE status = 'pending' AND next_attempt_at <= now()
                AND (locked_until IS NULL OR locked_until < now())
                AND channel_id NOT IN (SELECT jsonb_array_elements_text(${JSON.stringify(skipChannels)}::jsonb))
              ORDER BY next_attempt_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
            RETURNING id`,
      );
      if (claimed.length === 0) return [];
      return db
        .select({
          id: deliveries.id,
          channelId: deliveries.channelId,
          attempts: deliveries.attempts,
          payload: events.payload,
          webhookUrl: channels.webhookUrl,
          webhookSecret: channels.webhookSecret,
        })
        .from(deliveries)
        .innerJoin(events, eq(events.id, deliveries.eventId))
        .innerJoin(channels, eq(channels.id, deliveries.channelId))
        .where(inArray(deliveries.id, claimed.map((c) => c.id)));
    },

    /** When the next pending delivery is due, in ms from now (for the worker's timer); undefined if none. */
    async msUntilNextDue(): Promise<number | undefined> {
      const [row] = await queryRows<{ ms: number | null }>(
        db,
        sql`SELECT (extract(epoch FROM min(next_attempt_at) - now()) * 1000)::float8 AS ms FROM ${deliveries}
            WHERE status = 'pending' AND (locked_until IS NULL OR locked_until < now())`,
      );
      return row?.ms ?? undefined;
    },

    /**
     * Records an attempt and moves the delivery on: delivered, retried after its pause, or failed. The pause
     * runs from the end of the attempt (`endedAt`), however long this write itself has to wait.
     */
    async recordAttempt(
      delivery: ClaimedDelivery,
      result: AttemptResult,
      endedAt: number,
    ): Promise<'delivered' | 'retry' | 'failed'> {
      const number = delivery.attempts + 1;
      const outcome = result.ok ? 'delivered' : number >= MAX_ATTEMPTS ? 'failed' : 'retry';
      const pauseMs = Math.max(0, (RETRY_PAUSES_MS[number - 1] ?? 0) - (Date.now() - endedAt));
      await db.transaction(async (tx) => {
        await tx.insert(deliveryAttempts).values({
          id: newId(),
          deliveryId: delivery.id,
          number,
          startedAt: result.startedAt,
          latencyMs: result.latencyMs,
          statusCode: result.statusCode,
          error: result.error,
        });
        await tx
          .update(deliveries)
          .set({
            attempts: number,
            lockedUntil: null,
            lastStatusCode: result.statusCode,
            lastError: result.error,
            ...(outcome === 'retry'
              ? { nextAttemptAt: sql`now() + ${`${pauseMs} milliseconds`}::interval` }
              : { status: outcome, finishedAt: sql`now()` }),
          })
          .where(eq(deliveries.id, delivery.id));
      });
      return outcome;
    },

    /** After a crash, reservations of this (only) process are void: used where one process owns the database. */
    async releaseAllLocks(): Promise<void> {
      await db.update(deliveries).set({ lockedUntil: null }).where(eq(deliveries.status, 'pending'));
    },

    async pruneDelivered(olderThan: Date): Promise<void> {
      await db.delete(deliveries).where(and(eq(deliveries.status, 'delivered'), lt(deliveries.finishedAt, olderThan)));
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

export type DeliveryStore = ReturnType<typeof createDeliveryStore>;
