// Durable background jobs in the database: enqueued in the caller's transaction, claimed with
// FOR UPDATE SKIP LOCKED (several worker processes never run one job twice at once), retried with backoff.
// Claims are woken by committed jobs, never polled for: the enqueuing process wakes after its commit, the others
// through the NOTIFY (`parley_jobs`) sent by the enqueuing statement itself (delivered at commit, never for a
// rollback). A slow poll stays as the safety net (a lost LISTEN connection), with timers for retries due later.
// After a job ends, the worker claims again only when more are known to wait.
// A claimed job is leased for a short time that a heartbeat renews while it runs: a crashed holder's job is taken
// by another process when its lease runs out (a timer at the earliest lease held elsewhere, looked up at each poll),
// and a slow job (a model call) is never taken twice. Each claim's lease has a
// token: a holder whose lease ran out (a stalled process, the database away longer than the lease) and whose job
// another worker took over can no longer end, retry or renew that job: only the current holder's statements match.
// A job may have a key: at most one job per key exists, and enqueueing a key whose job is running makes that
// job run once more when it ends (one agent reply job per chat, never two at once, none missed).
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Database, Executor } from '../db/client.ts';
import { newId } from '../lib/ids.ts';
import { untilAborted } from '../lib/until-aborted.ts';
import type { JobCatalog, JobKind, JobRun, JobState } from './job-catalog.ts';
import { createJobStore, type ClaimedJob, type JobStore } from './job-store.ts';
import { createLeaseHeartbeat } from '../lib/lease-heartbeat.ts';
import { createWakeTimers } from '../lib/wake-timers.ts';

export { JOB_STATES, type JobCatalog, type JobKind, type JobRun, type JobState } from './job-catalog.ts';

export type JobHandlers = { [K in JobKind]: (payload: JobCatalog[K], run: JobRun) => Promise<void> };

/** How often a kind of job is tried and how long it waits between tries (attempt = the try that failed). */
export interface RetryPolicy {
  maxAttempts: number;
  backoffMs(attempt: number): number;
}

/** Thrown by a handler when the other side said when to come back (a 429's `retry_after`): the next try waits that long. */
export class RetryJobLater extends Error {
  constructor(
    readonly delayMs: number,
    message: string,
  ) {
    super(message);
    this.name = 'RetryJobLater';
  }
}

export interface JobQueueOptions {
  db: Database;
  logger: FastifyBaseLogger;
  /** Handlers known at creation; features add theirs with `handle` before `start`. */
  handlers?: Partial<JobHandlers>;
  /** The safety-net poll (JOB_POLL_MS). */
  pollMs?: number;
  concurrency?: number;
  maxAttempts?: number;
  /** How long a claimed job is reserved unless renewed (JOB_LEASE_MS): another worker takes it over after that. */
  leaseMs?: number;
  /** How often the leases of running jobs are renewed (a fifth of the lease by default). */
  heartbeatMs?: number;
  /** Kinds whose retries differ from `maxAttempts` with doubling pauses from 1 s. */
  retryPolicies?: Partial<Record<JobKind, RetryPolicy>>;
  /**
   * This process alone uses the database (PGlite): leases a crash left behind are void at start, and no other
   * holder's lease is looked up at the poll (there is none).
   */
  ownsDatabase?: boolean;
}

/** NOTIFY channel of committed jobs, payload the enqueuing queue's id: the workers of every process LISTEN on it. */
export const JOBS_CHANNEL = 'parley_jobs';

/**
 * The safety-net poll: claims are woken by committed jobs, so this only catches what a lost NOTIFY missed. On a
 * shared server it also looks up the earliest lease held elsewhere; being shorter than a lease, it sees a dead
 * holder's last lease in time.
 */
export const JOB_POLL_MS = 5_000;

/** The lease of a running job: a crashed holder's job is taken over when it runs out, at most this long after the crash. */
export const JOB_LEASE_MS = 10_000;

const LOST = 'job taken over by another worker after its lease ran out: it may have run twice';


export function createJobQueue(options: JobQueueOptions) {
  const { db, logger, pollMs = JOB_POLL_MS, concurrency = 8, maxAttempts = 5, leaseMs = JOB_LEASE_MS } = options;
  const store = createJobStore(db, leaseMs);
  const handlers: Partial<JobHandlers> = { ...options.handlers };
  const retryPolicies: Partial<Record<JobKind, RetryPolicy>> = { ...options.retryPolicies };
  const policyOf = (kind: JobKind): RetryPolicy =>
    retryPolicies[kind] ?? { maxAttempts, backoffMs: (attempt) => 1000 * 2 ** (attempt - 1) };
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  /** Jobs running in this process, by id, with their lease tokens: their leases are renewed until they end. */
  const held = createLeaseHeartbeat({ renew: (leases) => store.renewLeases(leases), everyMs: options.heartbeatMs ?? leaseMs / 5, logger, what: 'job' });
  /** Jobs whose leases were given back at shutdown while their handlers still ran: what those runs end in is moot. */
  const handedBack = new Set<string>();
  /** This queue's NOTIFYs: its own process has woken already, after the commit. */
  const instanceId = newId();
  const takeover = createTakeoverTimer({ store, logger, concurrency, holds: (id) => held.holds(id), wake: () => wake(), isRunning: () => running });
  const claims = createClaimLoop({ store, logger, concurrency, run, wakeIn: (ms) => wakeIn(ms), isRunning: () => running });
  const { wake } = claims;

  async function run(job: ClaimedJob): Promise<RunEnd> {
    held.hold(job.id, job.lease);
    try {
      return await attemptJob(job, { store, logger, handlers, policy: policyOf(job.kind), handedBack });
    } finally {
      held.release(job.id);
    }
  }

  /**
   * Gives back the leases of the jobs still running here (the shutdown grace is nearly over): each is due again at
   * once, for another process or the next start, with the try it was on not counted.
   */
  async function handBackLeases(): Promise<void> {
    if (held.size === 0) return;
    const leases = held.releaseAll();
    for (const [id] of leases) handedBack.add(id);
    const given = await store.handBack(leases);
    if (given.length > 0) logger.warn({ jobs: given }, 'shutdown grace ending: running jobs handed back');
  }

  const { wakeIn, clear: clearWakeTimers } = createWakeTimers(wake);

  /** The NOTIFY sent by an enqueuing statement, delivered at commit to every process that LISTENs. */
  const notifySql = () => sql`pg_notify(${JOBS_CHANNEL}, ${instanceId})`;

  return {
    /**
     * Adds a job in the given transaction (or the database); call `wake()` after it commits. With a `key`, a job
     * of that key already queued is not added twice; one already running runs once more when it ends. `delayMs`: due
     * that much later (an unkeyed job; this process wakes for it then, others at their poll).
     */
    async enqueue<K extends JobKind>(
      executor: Executor,
      kind: K,
      payload: JobCatalog[K],
      options: { key?: string; delayMs?: number } = {},
    ): Promise<void> {
      // A keyed job already running only gets `rerun` (its holder runs it again): no one else needs waking.
      await store.enqueue(executor, kind, payload, options.key, notifySql(), options.delayMs ?? 0);
      if (options.delayMs) wakeIn(options.delayMs + 50);
    },
    /** Adds keyed jobs of one kind, as `enqueue` each, in a few statements (job-store.ts); call `wake()` after the commit. */
    async enqueueMany<K extends JobKind>(executor: Executor, kind: K, added: readonly { payload: JobCatalog[K]; key: string }[]): Promise<void> {
      await store.enqueueMany(executor, kind, added, notifySql());
    },
    /** Wakes this process's workers in `ms` (a job written by a statement of its own, due later). */
    wakeIn: (ms: number) => wakeIn(ms),
    /** The feature that owns a kind of job runs it (and may set how it is retried). */
    handle<K extends JobKind>(kind: K, handler: JobHandlers[K], retryPolicy?: RetryPolicy): void {
      handlers[kind] = handler as Partial<JobHandlers>[K];
      if (retryPolicy) retryPolicies[kind] = retryPolicy;
    },
    /** The kinds this process has handlers for. */
    kinds: (): JobKind[] => Object.keys(handlers) as JobKind[],
    /**
     * Jobs in the table by kind and state, every process's (the metrics' `parley_jobs`): running (leased), scheduled
     * (due later: a retry's pause) or queued (due, waiting for a worker). One scan of the table, which holds only
     * jobs not yet done.
     */
    counts: (): Promise<{ kind: string; state: JobState; count: number }[]> => store.counts(),
    /** The NOTIFY a statement that writes jobs itself sends with them (`SELECT <this> FROM …`). */
    notifySql,
    /** The payload of that NOTIFY, for fixed statements (`pg_notify('parley_jobs', $n)`). */
    notifyPayload: instanceId,
    wake,
    /** A NOTIFY of `JOBS_CHANNEL` came (`undefined`: the listening connection was made again, some may be lost). */
    notified(payload: string | undefined): void {
      if (payload !== instanceId) wake();
    },
    async start(): Promise<void> {
      // PGlite: no other process can hold a lease, so those left are a crashed run's, free at once.
      if (options.ownsDatabase) await store.releaseAll();
      running = true;
      // PGlite: every lease is this process's own, so there is no other holder's lease end to watch for.
      const watchLeases = options.ownsDatabase ? () => {} : takeover.watch;
      timer = setInterval(() => {
        wake();
        watchLeases();
      }, pollMs);
      timer.unref();
      held.start();
      wake();
      watchLeases();
      // Jobs put off to later (retries) by an earlier run of this process: their timers were lost with it.
      store
        .msUntilNextDue()
        .then((ms) => {
          if (ms !== undefined) wakeIn(ms);
        })
        .catch((error: unknown) => logger.warn({ err: error }, 'reading when the next job is due failed'));
    },
    /**
     * Stops claiming; jobs in flight finish, queued ones stay for the next start. When `handBack` aborts first, the
     * jobs still running give their leases back (see `handBackLeases`) and are not waited for.
     */
    async stop(handBack?: AbortSignal): Promise<void> {
      running = false;
      if (timer) clearInterval(timer);
      takeover.clear();
      clearWakeTimers();
      await claims.current();
      // Jobs finishing keep their leases until they end (the heartbeat goes on).
      const ended = await Promise.race([Promise.allSettled(claims.inFlight()).then(() => true), untilAborted(handBack).then(() => false)]);
      if (!ended) await handBackLeases().catch((error: unknown) => logger.error({ err: error }, 'handing back running jobs failed'));
      held.stop();
    },
  };
}

export type JobQueue = ReturnType<typeof createJobQueue>;

/** What became of a job's run: done, due again at once (a rerun), or due later (a retry's pause, in ms). */
type RunEnd = { dueAgainInMs?: number };

interface AttemptContext {
  store: JobStore;
  logger: FastifyBaseLogger;
  handlers: Partial<JobHandlers>;
  policy: RetryPolicy;
  /** Jobs given back at shutdown while they ran: how their runs end is moot. */
  handedBack: ReadonlySet<string>;
}

/** One try of a claimed job: done (deleted or due again for a rerun), retried after a pause, or dropped after its last try. */
async function attemptJob(job: ClaimedJob, { store, logger, handlers, policy, handedBack }: AttemptContext): Promise<RunEnd> {
  try {
    const handler = handlers[job.kind] as ((payload: unknown, run: JobRun) => Promise<void>) | undefined;
    if (!handler) throw new Error(`no handler for jobs of kind ${job.kind}`);
    await handler(job.payload, { attempt: job.attempts, lastAttempt: job.attempts >= policy.maxAttempts });
    const end = await store.finish(job);
    if (end === 'lost' && !handedBack.has(job.id)) logger.warn({ jobId: job.id, kind: job.kind }, LOST);
    return end === 'rerun' ? { dueAgainInMs: 0 } : {};
  } catch (error) {
    if (handedBack.has(job.id)) return {};
    const message = error instanceof Error ? error.message : String(error);
    if (job.attempts >= policy.maxAttempts) {
      logger.error({ err: error, jobId: job.id, kind: job.kind }, 'job failed for good');
      await store.drop(job);
      return {};
    }
    logger.warn({ err: error, jobId: job.id, kind: job.kind, attempts: job.attempts }, 'job failed, retrying');
    const backoffMs = error instanceof RetryJobLater ? error.delayMs : policy.backoffMs(job.attempts);
    const retried = await store.retryLater(job, backoffMs, message);
    if (retried) return { dueAgainInMs: backoffMs };
    // Taken over meanwhile: its retries are the new holder's.
    logger.warn({ jobId: job.id, kind: job.kind }, LOST);
    return {};
  }
}

/**
 * A timer at the earliest lease of a job not running here: if its holder died, the job is claimed the moment its
 * lease runs out rather than at the next poll. Looked up at every poll and start, and again when the timer fires
 * (the next lease may end before the next poll).
 */
function createTakeoverTimer(options: {
  store: JobStore;
  logger: FastifyBaseLogger;
  concurrency: number;
  holds: (id: string) => boolean;
  wake: () => void;
  isRunning: () => boolean;
}) {
  const { store, logger, concurrency, holds, wake, isRunning } = options;
  let leaseEnd: NodeJS.Timeout | undefined;
  async function watch(): Promise<void> {
    try {
      // The earliest leases, one more than this worker can hold: jobs it claimed meanwhile are told apart below.
      const leases = await store.earliestLeases(concurrency + 1);
      if (!isRunning()) return;
      clearTimeout(leaseEnd);
      leaseEnd = undefined;
      const next = leases.find((lease) => !holds(lease.id));
      if (!next) return;
      // A few ms late, so the lease has surely ended for the claim's `locked_until < now()`.
      leaseEnd = setTimeout(() => {
        leaseEnd = undefined;
        wake();
        void watch();
      }, next.ms + 5);
      leaseEnd.unref();
    } catch (error) {
      logger.warn({ err: error }, 'reading when the next lease ends failed');
    }
  }
  return {
    watch: (): void => void watch(),
    clear(): void {
      clearTimeout(leaseEnd);
      leaseEnd = undefined;
    },
  };
}

/**
 * The claim loop of a queue: claims while jobs are known to wait and there is room, and runs the jobs it claimed; a
 * job ending makes room and claims again if jobs are still wanted.
 */
function createClaimLoop(options: {
  store: JobStore;
  logger: FastifyBaseLogger;
  concurrency: number;
  run: (job: ClaimedJob) => Promise<RunEnd>;
  wakeIn: (ms: number) => void;
  isRunning: () => boolean;
}) {
  const { store, logger, concurrency, run, wakeIn, isRunning } = options;
  /** Jobs may be waiting: a wake came (a commit, a NOTIFY, a timer, the poll), the last claim was full, or a rerun. */
  let wanted = false;
  let loop: Promise<void> | undefined;
  const inFlight = new Set<Promise<void>>();

  /** Claims while jobs are known to wait and there is room; a job ending makes room and claims if still wanted. */
  async function drain(): Promise<void> {
    while (isRunning() && wanted) {
      const free = concurrency - inFlight.size;
      if (free <= 0) return;
      wanted = false;
      const claimed = await store.claim(free);
      // A full claim may have left more behind (a wake during the claim has set it again already).
      if (claimed.length === free) wanted = true;
      for (const job of claimed) {
        const task = run(job)
          .then(({ dueAgainInMs }) => {
            if (dueAgainInMs === 0) wanted = true;
            else if (dueAgainInMs !== undefined) wakeIn(dueAgainInMs);
          })
          .catch((error: unknown) => logger.error({ err: error, jobId: job.id }, 'job crashed'))
          .finally(() => {
            inFlight.delete(task);
            if (wanted) schedule();
          });
        inFlight.add(task);
      }
    }
  }

  function schedule(): void {
    if (!isRunning() || loop) return;
    loop = drain()
      .catch((error: unknown) => logger.error({ err: error }, 'job loop failed'))
      .finally(() => {
        loop = undefined;
        if (wanted && inFlight.size < concurrency) schedule();
      });
  }

  return {
    /** Jobs may be due: one committed (here, or elsewhere through NOTIFY), a retry's pause ended, the poll. */
    wake(): void {
      wanted = true;
      schedule();
    },
    /** The claim under way, if any: the queue waits for it when it stops. */
    current: (): Promise<void> | undefined => loop,
    /** The runs of claimed jobs not ended yet. */
    inFlight: (): Promise<void>[] => [...inFlight],
  };
}
