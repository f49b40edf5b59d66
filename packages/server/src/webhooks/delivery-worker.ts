// Delivers the outbox to each channel's webhook (spec, Events → Delivery rules): POST JSON, success = 2xx
// within 2 s, 3 attempts with pauses of 2 s and 4 s. Durable: deliveries are rows, so a crash loses nothing
// (an attempt in flight may be sent again; receivers dedup by messages[].id / eventId). A slow receiver holds
// at most `perChannel` requests of its own channel; the others go on.
import type { FastifyBaseLogger } from 'fastify';
import type { SecretBox } from '../lib/secret-box.ts';
import type { WebhookClient } from '../kernel/http-client.ts';
import { signatureHeaders } from './signing.ts';
import { outcomeOf, RETRY_PAUSES_MS, type ClaimedDelivery, type DeliveryStore, type RecordedAttempt } from './delivery-store.ts';
import { untilAborted } from '../lib/until-aborted.ts';
import { createWakeTimers } from '../lib/wake-timers.ts';
import { createLeaseHeartbeat } from '../lib/lease-heartbeat.ts';
import { createChannelLoad } from './channel-load.ts';
import { createDeliveryClaims } from './delivery-claims.ts';
import { NO_METRICS, type AppMetrics } from '../kernel/metrics.ts';

export interface DeliveryWorkerOptions {
  store: DeliveryStore;
  client: Pick<WebhookClient, 'post'>;
  /** Opens the channel's signing secret, sealed at rest. */
  secrets: Pick<SecretBox, 'open'>;
  logger: FastifyBaseLogger;
  concurrency?: number;
  perChannel?: number;
  /** The safety-net poll (by default DELIVERY_POLL_MS, or OWNED_DATABASE_DELIVERY_POLL_MS with `ownsDatabase`). */
  pollMs?: number;
  /** Lease of a claimed delivery (DELIVERY_LEASE_MS), renewed until its attempt is recorded. */
  leaseMs?: number;
  /** How often the leases of attempts not yet recorded are renewed (a quarter of the lease by default). */
  heartbeatMs?: number;
  /** This process owns the database (PGlite): reservations left by a crash are released at start. */
  ownsDatabase?: boolean;
  /** Delivered rows older than this are pruned (hourly). */
  retentionMs?: number;
  /** Each recorded attempt is counted, and a delivered one's lag observed (parley_webhook_deliveries_total). */
  metrics?: Pick<AppMetrics, 'webhookAttempt'>;
}

const PRUNE_EVERY_MS = 60 * 60_000;
/** Requests in flight at most, per process and per channel (one receiver never holds more). */
export const DELIVERY_CONCURRENCY = 128;
export const DELIVERY_PER_CHANNEL = 16;
/**
 * Lease of a claimed delivery. An attempt lasts at most 2 s and is recorded as soon as its answer comes (batched
 * with the attempts that end meanwhile), and a heartbeat renews the lease until then: a delivery sent by a process
 * that died before recording it is sent again by another process after at most this long (plus a poll).
 */
export const DELIVERY_LEASE_MS = 4_000;
/**
 * The safety net behind the NOTIFYs that wake the worker, on a shared PostgreSQL server: a lost listening
 * connection (NOTIFYs sent until it is made again are missed) and the expired leases of a process that died.
 */
export const DELIVERY_POLL_MS = 500;
/**
 * The same with a database of its own (PGlite): its NOTIFYs are delivered inside the process and cannot be lost,
 * and no other process holds a lease, so the poll only backs up this process's own wake-ups and timers. Each poll
 * is a claim statement run on the main thread: at 500 ms they were most of an idle server's CPU.
 */
export const OWNED_DATABASE_DELIVERY_POLL_MS = 5_000;

export function createDeliveryWorker(options: DeliveryWorkerOptions) {
  const { store, client, secrets, logger, concurrency = DELIVERY_CONCURRENCY, perChannel = DELIVERY_PER_CHANNEL } = options;
  const pollMs = options.pollMs ?? (options.ownsDatabase ? OWNED_DATABASE_DELIVERY_POLL_MS : DELIVERY_POLL_MS);
  const leaseMs = options.leaseMs ?? DELIVERY_LEASE_MS;
  /** Claimed here and not yet recorded: their leases are renewed. */
  const leases = createLeaseHeartbeat({
    renew: (held) => store.renewLeases(held.map(([id]) => id), leaseMs),
    everyMs: options.heartbeatMs ?? leaseMs / 4,
    logger,
    what: 'delivery',
  });
  const retentionMs = options.retentionMs ?? 7 * 24 * 60 * 60_000;
  /** Requests in flight and claimed ahead, per channel; how many are claimed is in delivery-claims.ts. */
  const load = createChannelLoad(perChannel, concurrency);
  let running = false;
  const claims = createDeliveryClaims({ store, load, leases, logger, perChannel, concurrency, leaseMs, running: () => running, pump });
  const { wake } = claims;
  let poll: NodeJS.Timeout | undefined;
  let prune: NodeJS.Timeout | undefined;
  const tasks = new Set<Promise<void>>();
  const recorder = createRecorder(store, logger);
  const metrics = options.metrics ?? NO_METRICS;
  const send = (delivery: ClaimedDelivery) => sendAttempt(client, secrets, delivery);

  async function record(attempt: RecordedAttempt): Promise<void> {
    await recorder.record(attempt);
    const { delivery, result, endedAt } = attempt;
    const outcome = outcomeOf(delivery, result);
    if (outcome === 'delivered') metrics.webhookAttempt('delivered', (endedAt - delivery.eventCreatedAt) / 1000);
    else metrics.webhookAttempt(outcome === 'retry' ? 'retried' : 'failed');
    if (outcome === 'failed') logger.warn({ deliveryId: delivery.id, channelId: delivery.channelId }, 'webhook delivery failed');
    if (outcome === 'retry') wakeIn(endedAt + (RETRY_PAUSES_MS[delivery.attempts] ?? 0) - Date.now());
  }

  /**
   * The request's room is freed when its answer comes, before the attempt is recorded: the delivery stays reserved
   * until then, so no claim can take it meanwhile.
   */
  function track(delivery: ClaimedDelivery): void {
    const { channelId } = delivery;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      load.ended(channelId);
      pump();
      claims.requestEnded(channelId);
    };
    const task = send(delivery)
      .then((attempt) => {
        release();
        return record(attempt);
      })
      .catch((error: unknown) => logger.error({ err: error, deliveryId: delivery.id }, 'delivery attempt crashed'))
      .finally(() => {
        release();
        leases.release(delivery.id);
        tasks.delete(task);
      });
    tasks.add(task);
  }

  /** Starts the ready deliveries that have room. */
  function pump(): void {
    if (!running) return;
    for (const delivery of load.takeStartable()) track(delivery);
  }

  const { wakeIn, clear: clearWakeTimers } = createWakeTimers(wake);

  return {
    wake,
    async start(): Promise<void> {
      if (options.ownsDatabase) await store.releaseAllLocks();
      running = true;
      poll = setInterval(wake, pollMs);
      poll.unref();
      leases.start();
      prune = await startPruning(store, retentionMs, logger);
      wake();
      const ms = await store.msUntilNextDue();
      if (ms !== undefined && ms > 0) wakeIn(ms);
    },
    /**
     * Stops claiming and lets attempts in flight finish; pending deliveries wait for the next start. When `handBack`
     * aborts first, the deliveries whose attempts are not recorded yet are given back (due again at once; one the
     * receiver did get is then sent again, which the spec allows) and not waited for.
     */
    async stop(handBack?: AbortSignal): Promise<void> {
      running = false;
      if (poll) clearInterval(poll);
      if (prune) clearInterval(prune);
      clearWakeTimers();
      await claims.current();
      // Claimed ahead and not sent: given back at once, for the next start or another process.
      const unsent = load.drainReady().map((delivery) => delivery.id);
      for (const id of unsent) leases.release(id);
      await store.releaseLeases(unsent).catch((error: unknown) => logger.warn({ err: error }, 'releasing unsent deliveries failed'));
      const ended = await Promise.race([Promise.allSettled([...tasks]).then(() => true), untilAborted(handBack).then(() => false)]);
      const unrecorded = ended ? [] : leases.releaseAll().map(([id]) => id);
      if (unrecorded.length > 0) {
        logger.warn({ deliveries: unrecorded.length }, 'shutdown grace ending: deliveries in flight handed back');
        await store.releaseLeases(unrecorded).catch((error: unknown) => logger.warn({ err: error }, 'handing back deliveries failed'));
      }
      leases.stop();
    },
  };
}

/** Delivered rows older than the retention are pruned now and every hour. */
async function startPruning(store: Pick<DeliveryStore, 'pruneDelivered'>, retentionMs: number, logger: FastifyBaseLogger): Promise<NodeJS.Timeout> {
  const pruneOld = () =>
    store.pruneDelivered(new Date(Date.now() - retentionMs)).catch((error: unknown) => logger.error({ err: error }, 'delivery pruning failed'));
  await pruneOld();
  const timer = setInterval(() => void pruneOld(), PRUNE_EVERY_MS);
  timer.unref();
  return timer;
}

/** One attempt over HTTP, signed when the channel has a secret; what it gives is recorded afterwards. */
async function sendAttempt(client: DeliveryWorkerOptions['client'], secrets: DeliveryWorkerOptions['secrets'], delivery: ClaimedDelivery): Promise<RecordedAttempt> {
  const startedAt = new Date();
  let result;
  if (!delivery.webhookUrl) {
    result = { ok: false, status: null, durationMs: 0, error: 'the channel has no webhook URL' };
  } else {
    const body = JSON.stringify(delivery.payload);
    const headers = delivery.webhookSecret
      ? signatureHeaders(secrets.open(delivery.webhookSecret), delivery.id, Math.floor(startedAt.getTime() / 1000), body)
      : {};
    result = await client.post(delivery.webhookUrl, body, headers);
  }
  return {
    delivery,
    result: {
      startedAt,
      latencyMs: result.durationMs,
      statusCode: result.status,
      error: result.error ?? (result.ok ? null : `HTTP ${result.status}`),
      ok: result.ok,
    },
    endedAt: Date.now(),
  };
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;

/**
 * Writes finished attempts in batches (group commit): the attempts that end in one turn of the event loop, and those
 * that end while a write is in flight, go together in the next write, so a busy worker makes one statement for many
 * deliveries and an idle one writes each at once. A write starts after the turn's I/O callbacks have run
 * (setImmediate): PGlite runs its queries on this thread, so answers that came during a write are only read then,
 * and writing at the first of them would make one statement per attempt. A batch that fails is written again one
 * attempt at a time, so one bad row fails alone.
 */
function createRecorder(store: Pick<DeliveryStore, 'recordAttempts'>, logger: FastifyBaseLogger) {
  const MAX_BATCH = 256;
  let waiting: { record: RecordedAttempt; done: (error?: unknown) => void }[] = [];
  let writing = false;
  const afterIo = () => new Promise<void>((resolve) => setImmediate(resolve));

  async function write(): Promise<void> {
    writing = true;
    await afterIo();
    while (waiting.length > 0) {
      const batch = waiting.slice(0, MAX_BATCH);
      waiting = waiting.slice(MAX_BATCH);
      try {
        await store.recordAttempts(batch.map((entry) => entry.record));
        for (const entry of batch) entry.done();
      } catch (error) {
        if (batch.length === 1) {
          batch[0]?.done(error);
        } else {
          logger.warn({ err: error, attempts: batch.length }, 'recording a batch of attempts failed; one at a time');
          for (const entry of batch) {
            await store.recordAttempts([entry.record]).then(() => entry.done(), entry.done);
          }
        }
      }
      await afterIo();
    }
    writing = false;
  }

  return {
    record(record: RecordedAttempt): Promise<void> {
      return new Promise((resolve, reject) => {
        waiting.push({ record, done: (error) => (error === undefined ? resolve() : reject(error as Error)) });
        if (!writing) void write();
      });
    },
  };
}
