// The SQL of the job queue (job-queue.ts): claims with FOR UPDATE SKIP LOCKED, leases with tokens (only the current
// holder's statements match its row), retries, reruns of keyed jobs, and the counts the metrics read.
import { sql } from 'drizzle-orm';
import { queryRows, type Database, type Executor } from '../db/client.ts';
import { jobs } from '../db/schema.ts';
import { newId } from '../lib/ids.ts';
import type { JobKind, JobState } from './job-catalog.ts';

export interface ClaimedJob {
  id: string;
  kind: JobKind;
  payload: unknown;
  attempts: number;
  /** The claim's lease token: the job's row is this holder's while it still has it. */
  lease: string;
}

/** A running job and its lease token. */
export type HeldLease = [id: string, lease: string];

const interval = (ms: number) => `${ms} milliseconds`;
/** Rows of one `enqueueMany` statement. */
const ENQUEUE_BATCH = 500;
/** A keyed job already queued is not added twice; one running runs once more when it ends (`rerun`). */
const keyedUpsert = sql`ON CONFLICT (key) WHERE key IS NOT NULL DO UPDATE
  SET rerun = ${jobs.lockedUntil} IS NOT NULL AND ${jobs.lockedUntil} >= now(), run_at = least(${jobs.runAt}, now())`;
const leasePairs = (held: readonly HeldLease[]) =>
  sql.join(
    held.map(([id, lease]) => sql`(${id}::uuid, ${lease}::uuid)`),
    sql`, `,
  );

export function createJobStore(db: Database, leaseMs: number) {
  return {
    /** Leases up to `limit` due jobs that no one holds, oldest first; each try is counted. */
    claim(limit: number): Promise<ClaimedJob[]> {
      return queryRows<ClaimedJob>(
        db,
        sql`UPDATE ${jobs} SET locked_until = now() + ${interval(leaseMs)}::interval, attempts = attempts + 1,
              lease = ${newId()}
            WHERE id IN (
              SELECT id FROM ${jobs}
              WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())
              ORDER BY run_at, id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
            RETURNING id, kind, payload, attempts, lease`,
      );
    },

    /** Extends the leases of these running jobs (those still their holder's), in one statement. */
    async renewLeases(held: readonly HeldLease[]): Promise<void> {
      await db.execute(
        sql`UPDATE ${jobs} SET locked_until = now() + ${interval(leaseMs)}::interval
            WHERE (id, lease) IN (${leasePairs(held)}) AND locked_until IS NOT NULL`,
      );
    },

    /** The earliest leases held (by any process), with the ms each has left. */
    earliestLeases(limit: number): Promise<{ id: string; ms: number }[]> {
      return queryRows<{ id: string; ms: number }>(
        db,
        sql`SELECT id, (extract(epoch FROM locked_until - now()) * 1000)::float8 AS ms FROM ${jobs}
            WHERE locked_until > now() ORDER BY locked_until LIMIT ${limit}`,
      );
    },

    /** A job that failed its last try is gone. */
    async drop(job: ClaimedJob): Promise<void> {
      await db.execute(sql`DELETE FROM ${jobs} WHERE id = ${job.id} AND lease = ${job.lease}`);
    },

    /** A failed try: the job is due again after `backoffMs`. False when another holder took it over meanwhile. */
    async retryLater(job: ClaimedJob, backoffMs: number, error: string): Promise<boolean> {
      const retried = await queryRows(
        db,
        sql`UPDATE ${jobs} SET run_at = now() + ${interval(backoffMs)}::interval, locked_until = NULL, lease = NULL,
            last_error = ${error} WHERE id = ${job.id} AND lease = ${job.lease} RETURNING id`,
      );
      return retried.length > 0;
    },

    /**
     * Deletes a done job, unless it was enqueued again while it ran: then it is due again at once (`rerun`). Nothing
     * when another worker took the job over after this holder's lease ran out (`lost`): the job is that worker's.
     */
    async finish(job: ClaimedJob): Promise<'deleted' | 'rerun' | 'lost'> {
      const deleted = await queryRows(db, sql`DELETE FROM ${jobs} WHERE id = ${job.id} AND lease = ${job.lease} AND NOT rerun RETURNING id`);
      if (deleted.length > 0) return 'deleted';
      const due = await queryRows(
        db,
        sql`UPDATE ${jobs} SET rerun = false, run_at = now(), locked_until = NULL, lease = NULL, attempts = 0, last_error = NULL
            WHERE id = ${job.id} AND lease = ${job.lease} RETURNING id`,
      );
      return due.length > 0 ? 'rerun' : 'lost';
    },

    /** Gives leases back (due again at once), the try they were on not counted; says which were given. */
    handBack(held: readonly HeldLease[]): Promise<{ id: string; kind: string }[]> {
      return queryRows<{ id: string; kind: string }>(
        db,
        sql`UPDATE ${jobs} SET locked_until = NULL, lease = NULL, attempts = greatest(attempts - 1, 0)
            WHERE (id, lease) IN (${leasePairs(held)}) RETURNING id, kind`,
      );
    },

    /** Every lease is void (PGlite at start: no other process can hold one, so those left are a crashed run's). */
    async releaseAll(): Promise<void> {
      await db.execute(sql`UPDATE ${jobs} SET locked_until = NULL, lease = NULL WHERE locked_until IS NOT NULL`);
    },

    /** Ms until the earliest job put off to later (a retry) is due; undefined when none is. */
    async msUntilNextDue(): Promise<number | undefined> {
      const [row] = await queryRows<{ ms: number | null }>(
        db,
        sql`SELECT (extract(epoch FROM min(run_at) - now()) * 1000)::float8 AS ms FROM ${jobs} WHERE run_at > now()`,
      );
      return row?.ms ?? undefined;
    },

    /** Adds a job (see JobQueue.enqueue); the NOTIFY goes with it unless an already running keyed job only reruns. */
    async enqueue(
      executor: Executor,
      kind: JobKind,
      payload: unknown,
      key: string | undefined,
      notify: ReturnType<typeof sql>,
      delayMs = 0,
    ): Promise<void> {
      const upsert = key === undefined ? sql`` : keyedUpsert;
      await executor.execute(
        sql`WITH job AS (
              INSERT INTO ${jobs} (id, kind, payload, run_at, key)
              VALUES (${newId()}, ${kind}, ${JSON.stringify(payload)}::jsonb, now() + ${interval(delayMs)}::interval, ${key ?? null}) ${upsert}
              RETURNING rerun)
            SELECT ${notify} FROM job WHERE NOT rerun`,
      );
    },

    /**
     * Adds keyed jobs of one kind as `enqueue` adds one, ENQUEUE_BATCH rows a statement (a base's 10,000 entries:
     * 20 statements, not 10,000, inside the change's transaction); each statement that added a job sends one NOTIFY.
     */
    async enqueueMany(
      executor: Executor,
      kind: JobKind,
      added: readonly { payload: unknown; key: string }[],
      notify: ReturnType<typeof sql>,
    ): Promise<void> {
      // One key twice in a statement is an error of ON CONFLICT DO UPDATE: the last payload stands, as it would.
      const byKey = [...new Map(added.map((job) => [job.key, job])).values()];
      for (let start = 0; start < byKey.length; start += ENQUEUE_BATCH) {
        const rows = byKey
          .slice(start, start + ENQUEUE_BATCH)
          .map(({ payload, key }) => sql`(${newId()}, ${kind}, ${JSON.stringify(payload)}::jsonb, now(), ${key})`);
        await executor.execute(
          sql`WITH job AS (
                INSERT INTO ${jobs} (id, kind, payload, run_at, key) VALUES ${sql.join(rows, sql`, `)} ${keyedUpsert}
                RETURNING rerun)
              SELECT ${notify} WHERE EXISTS (SELECT 1 FROM job WHERE NOT rerun)`,
        );
      }
    },

    /** Jobs in the table by kind and state, every process's: running (leased), scheduled (due later) or queued. */
    counts(): Promise<{ kind: string; state: JobState; count: number }[]> {
      return queryRows(
        db,
        sql`SELECT kind, state, count(*)::int AS count FROM (
              SELECT kind, CASE WHEN locked_until >= now() THEN 'running' WHEN run_at > now() THEN 'scheduled' ELSE 'queued' END AS state
              FROM ${jobs}) j
            GROUP BY kind, state`,
      );
    },
  };
}

export type JobStore = ReturnType<typeof createJobStore>;
