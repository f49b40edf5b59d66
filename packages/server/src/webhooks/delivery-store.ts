// SQL of webhook deliveries: claiming due ones (FOR UPDATE SKIP LOCKED, so several workers never take the
// same attempt), recording attempts, and the delivery log.
// The queries of the delivery log are in delivery-log-store.ts, spread here.
import { eq, sql, type SQL } from 'drizzle-orm';
import { queryRows, type Database } from '../db/client.ts';
import { channels, deliveries, deliveryAttempts, events } from '../db/schema.ts';
import { newId } from '../lib/ids.ts';
import { createDeliveryLogStore } from './delivery-log-store.ts';

export interface ClaimedDelivery {
  id: string;
  channelId: string;
  attempts: number;
  payload: unknown;
  webhookUrl: string | null;
  webhookSecret: string | null;
  /**
   * When its event was created, on this process's clock (ms since the epoch): the event's age at the claim, read on
   * the database's clock, so the delivery lag needs no agreement between the two clocks.
   */
  eventCreatedAt: number;
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

export type DeliveryOutcome = 'delivered' | 'retry' | 'failed';

export interface RecordedAttempt {
  delivery: ClaimedDelivery;
  result: AttemptResult;
  /** When the attempt ended (ms since the epoch): the pause before the next one runs from here. */
  endedAt: number;
}

/** Where a delivery goes after an attempt. */
export function outcomeOf(delivery: Pick<ClaimedDelivery, 'attempts'>, result: Pick<AttemptResult, 'ok'>): DeliveryOutcome {
  return result.ok ? 'delivered' : delivery.attempts + 1 >= MAX_ATTEMPTS ? 'failed' : 'retry';
}

/** The channels with pending deliveries (and a NULL at the end): a skip scan of deliveries_pending_channel_idx. */
const pendingChannels = sql`pending_channels (channel_id) AS (
    (SELECT channel_id FROM ${deliveries} WHERE status = 'pending' ORDER BY channel_id LIMIT 1)
    UNION ALL
    SELECT (SELECT d.channel_id FROM ${deliveries} d WHERE d.status = 'pending' AND d.channel_id > p.channel_id
            ORDER BY d.channel_id LIMIT 1)
    FROM pending_channels p WHERE p.channel_id IS NOT NULL)`;

/**
 * The claim: a channel gets at most `perChannel` minus its requests in flight here (`busy`), so one receiver's backlog
 * never fills the worker. Every step reads an index, however many delivered rows the table holds and whether or not
 * its statistics are fresh (PGlite has no autovacuum): the channels with pending deliveries come from a skip scan of
 * `deliveries_pending_channel_idx`, each gives its earliest due ones from the same index, and the picked rows are
 * locked and updated by primary key (`= ANY(ARRAY(…))`: an `IN (subquery)` may be planned as a semi join over every
 * due row).
 */
export function claimStatement(limit: number, lockMs: number, perChannel: number, busy: ReadonlyMap<string, number>): SQL {
  const inFlight = JSON.stringify(Object.fromEntries(busy));
  return sql`WITH RECURSIVE ${pendingChannels},
        picked AS (
          SELECT due.id FROM pending_channels p
          CROSS JOIN LATERAL (
            SELECT d.id, d.next_attempt_at FROM ${deliveries} d
            WHERE d.status = 'pending' AND d.channel_id = p.channel_id AND d.next_attempt_at <= now()
              AND (d.locked_until IS NULL OR d.locked_until < now())
            ORDER BY d.channel_id, d.next_attempt_at
            LIMIT greatest(0, ${perChannel}::int - coalesce((${inFlight}::jsonb ->> p.channel_id)::int, 0))
          ) due
          WHERE p.channel_id IS NOT NULL
          ORDER BY due.next_attempt_at LIMIT ${limit}),
        locked AS (
          SELECT d.id FROM unnest(ARRAY(SELECT id FROM picked)) AS p (id)
          JOIN ${deliveries} d ON d.id = p.id
          WHERE (d.locked_until IS NULL OR d.locked_until < now())
            -- Checked again on the locked row: picked read the statement's snapshot, and another process may have
            -- claimed, sent and recorded the delivery since (the lock re-reads only these conditions).
            AND d.status = 'pending' AND d.next_attempt_at <= now()
          FOR UPDATE OF d SKIP LOCKED),
        claimed AS (
          UPDATE ${deliveries} SET locked_until = now() + ${`${lockMs} milliseconds`}::interval
          WHERE id = ANY(ARRAY(SELECT id FROM locked))
          RETURNING id, channel_id, attempts, event_id)
        SELECT claimed.id, claimed.channel_id AS "channelId", claimed.attempts, ${events.payload} AS payload,
               ${channels.webhookUrl} AS "webhookUrl", ${channels.webhookSecret} AS "webhookSecret",
               (extract(epoch FROM now() - ${events.createdAt}) * 1000)::float8 AS "eventAgeMs"
        FROM claimed
        JOIN ${events} ON ${events.id} = claimed.event_id
        JOIN ${channels} ON ${channels.id} = claimed.channel_id`;
}

export function createDeliveryStore(db: Database) {
  return {
    /**
     * Reserves up to `limit` due deliveries for `lockMs` and reads what sending them needs, in one statement (see
     * `claimStatement`).
     */
    async claim(limit: number, lockMs: number, perChannel: number, busy: ReadonlyMap<string, number>): Promise<ClaimedDelivery[]> {
      const rows = await queryRows<Omit<ClaimedDelivery, 'eventCreatedAt'> & { eventAgeMs: number }>(
        db,
        claimStatement(limit, lockMs, perChannel, busy),
      );
      const now = Date.now();
      return rows.map(({ eventAgeMs, ...delivery }) => ({ ...delivery, eventCreatedAt: now - eventAgeMs }));
    },

    /** Extends the leases of claimed deliveries whose attempts are not recorded yet (the worker's heartbeat). */
    async renewLeases(ids: readonly string[], leaseMs: number): Promise<void> {
      if (ids.length === 0) return;
      await db.execute(
        sql`UPDATE ${deliveries} SET locked_until = now() + ${`${leaseMs} milliseconds`}::interval
            WHERE id IN (${sql.join(ids.map((id) => sql`${id}::uuid`), sql`, `)}) AND status = 'pending' AND locked_until IS NOT NULL`,
      );
    },

    /** When the next pending delivery is due, in ms from now (for the worker's timer); undefined if none. */
    async msUntilNextDue(): Promise<number | undefined> {
      const [row] = await queryRows<{ ms: number | null }>(
        db,
        sql`WITH RECURSIVE ${pendingChannels}
            SELECT (extract(epoch FROM min(first.next_attempt_at) - now()) * 1000)::float8 AS ms FROM pending_channels p
            CROSS JOIN LATERAL (
              SELECT d.next_attempt_at FROM ${deliveries} d
              WHERE d.status = 'pending' AND d.channel_id = p.channel_id AND (d.locked_until IS NULL OR d.locked_until < now())
              ORDER BY d.channel_id, d.next_attempt_at LIMIT 1) first
            WHERE p.channel_id IS NOT NULL`,
      );
      return row?.ms ?? undefined;
    },

    /**
     * Records attempts and moves each delivery on (delivered, retried after its pause, failed), all in one
     * statement. Each pause runs from the end of its attempt (`endedAt`), however long this write had to wait.
     * Every attempt is logged, but only the first record of an attempt number moves its delivery: a sender whose
     * lease ran out while it waited on the receiver, and whose delivery another worker sent and recorded
     * meanwhile, cannot turn that delivered one into failed or retried.
     */
    async recordAttempts(records: readonly RecordedAttempt[]): Promise<void> {
      const now = Date.now();
      const rows = records.map(({ delivery, result, endedAt }) => {
        const number = delivery.attempts + 1;
        return {
          id: newId(),
          delivery_id: delivery.id,
          number,
          started_at: result.startedAt.toISOString(),
          latency_ms: result.latencyMs,
          status_code: result.statusCode,
          error: result.error,
          outcome: outcomeOf(delivery, result),
          pause_ms: Math.max(0, (RETRY_PAUSES_MS[number - 1] ?? 0) - (now - endedAt)),
        };
      });
      await db.execute(
        sql`WITH input AS (
              SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(
                id uuid, delivery_id uuid, number int, started_at timestamptz, latency_ms int, status_code int,
                error text, outcome text, pause_ms int)),
            attempts AS (
              INSERT INTO ${deliveryAttempts} (id, delivery_id, number, started_at, latency_ms, status_code, error)
              SELECT input.id, delivery_id, number, started_at, latency_ms, status_code, error FROM input
              JOIN ${deliveries} ON ${deliveries.id} = input.delivery_id)
            UPDATE ${deliveries} SET
              attempts = input.number, locked_until = NULL, last_status_code = input.status_code, last_error = input.error,
              next_attempt_at = CASE WHEN input.outcome = 'retry'
                THEN now() + input.pause_ms * interval '1 millisecond' ELSE ${deliveries.nextAttemptAt} END,
              status = CASE WHEN input.outcome = 'retry' THEN ${deliveries.status} ELSE input.outcome END,
              finished_at = CASE WHEN input.outcome = 'retry' THEN NULL ELSE now() END
            FROM input WHERE ${deliveries.id} = input.delivery_id
              AND ${deliveries.status} = 'pending' AND ${deliveries.attempts} = input.number - 1`,
      );
    },

    /** Gives back deliveries claimed and never sent (the worker stops): due again at once for any worker. */
    async releaseLeases(ids: readonly string[]): Promise<void> {
      if (ids.length === 0) return;
      await db.execute(
        sql`UPDATE ${deliveries} SET locked_until = NULL
            WHERE id IN (${sql.join(ids.map((id) => sql`${id}::uuid`), sql`, `)}) AND status = 'pending'`,
      );
    },

    /** After a crash, reservations of this (only) process are void: used where one process owns the database. */
    async releaseAllLocks(): Promise<void> {
      await db.update(deliveries).set({ lockedUntil: null }).where(eq(deliveries.status, 'pending'));
    },

    ...createDeliveryLogStore(db),
  };
}

export type DeliveryStore = ReturnType<typeof createDeliveryStore>;
