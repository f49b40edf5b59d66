// Delivers the outbox to each channel's webhook (spec, Events → Delivery rules): POST JSON, success = 2xx
// within 2 s, 3 attempts with pauses of 2 s and 4 s. Durable: deliveries are rows, so a crash loses nothing
// (an attempt in flight may be sent again; receivers dedup by messages[].id / eventId). A slow receiver holds
// at most `perChannel` requests of its own channel; the others go on.
import type { FastifyBaseLogger } from 'fastify';
import type { WebhookClient } from './http-client.ts';
import { signatureHeaders } from './signing.ts';
import { RETRY_PAUSES_MS, type ClaimedDelivery, type DeliveryStore } from './delivery-store.ts';

export interface DeliveryWorkerOptions {
  store: DeliveryStore;
  client: Pick<WebhookClient, 'post'>;
  logger: FastifyBaseLogger;
  concurrency?: number;
  perChannel?: number;
  /** Fallback poll for deliveries made by other processes. */
  pollMs?: number;
  /** Reservation of a claimed delivery; longer than one attempt (2 s) by a wide margin. */
  lockMs?: number;
  /** This process owns the database (PGlite): reservations left by a crash are released at start. */
  ownsDatabase?: boolean;
  /** Delivered rows older than this are pruned (hourly). */
  retentionMs?: number;
}

const PRUNE_EVERY_MS = 60 * 60_000;

export function createDeliveryWorker(options: DeliveryWorkerOptions) {
  const { store, client, logger, concurrency = 64, perChannel = 8, pollMs = 500, lockMs = 15_000 } = options;
  const retentionMs = options.retentionMs ?? 7 * 24 * 60 * 60_000;
  const inFlightByChannel = new Map<string, number>();
  let inFlight = 0;
  let running = false;
  let claiming: Promise<void> | undefined;
  let again = false;
  let poll: NodeJS.Timeout | undefined;
  let prune: NodeJS.Timeout | undefined;
  const timers = new Set<NodeJS.Timeout>();
  const tasks = new Set<Promise<void>>();

  async function attempt(delivery: ClaimedDelivery): Promise<void> {
    const startedAt = new Date();
    let result;
    if (!delivery.webhookUrl) {
      result = { ok: false, status: null, durationMs: 0, error: 'the channel has no webhook URL' };
    } else {
      const body = JSON.stringify(delivery.payload);
      const headers = delivery.webhookSecret
        ? signatureHeaders(delivery.webhookSecret, delivery.id, Math.floor(startedAt.getTime() / 1000), body)
        : {};
      result = await client.post(delivery.webhookUrl, body, headers);
    }
    const endedAt = Date.now();
    const outcome = await store.recordAttempt(
      delivery,
      {
        startedAt,
        latencyMs: result.durationMs,
        statusCode: result.status,
        error: result.error ?? (result.ok ? null : `HTTP ${result.status}`),
        ok: result.ok,
      },
      endedAt,
    );
    if (outcome === 'failed') logger.warn({ deliveryId: delivery.id, channelId: delivery.channelId }, 'webhook delivery failed');
    if (outcome === 'retry') wakeIn(endedAt + (RETRY_PAUSES_MS[delivery.attempts] ?? 0) - Date.now());
  }

  function saturated(): string[] {
    return [...inFlightByChannel].filter(([, n]) => n >= perChannel).map(([channel]) => channel);
  }

  function track(delivery: ClaimedDelivery): void {
    inFlight += 1;
    inFlightByChannel.set(delivery.channelId, (inFlightByChannel.get(delivery.channelId) ?? 0) + 1);
    const task = attempt(delivery)
      .catch((error: unknown) => logger.error({ err: error, deliveryId: delivery.id }, 'delivery attempt crashed'))
      .finally(() => {
        inFlight -= 1;
        const left = (inFlightByChannel.get(delivery.channelId) ?? 1) - 1;
        if (left > 0) inFlightByChannel.set(delivery.channelId, left);
        else inFlightByChannel.delete(delivery.channelId);
        tasks.delete(task);
        wake();
      });
    tasks.add(task);
  }

  async function claimLoop(): Promise<void> {
    while (running) {
      again = false;
      const room = concurrency - inFlight;
      if (room <= 0) return;
      const claimed = await store.claim(room, lockMs, saturated());
      // A channel may get more than its share in one claim; the excess waits its turn in this process.
      for (const delivery of claimed) track(delivery);
      if (claimed.length < room && !again) return;
    }
  }

  function wake(): void {
    again = true;
    if (!running || claiming) return;
    claiming = claimLoop()
      .catch((error: unknown) => logger.error({ err: error }, 'delivery claim failed'))
      .finally(() => {
        claiming = undefined;
        if (again && running) wake();
      });
  }

  /** Wakes when a retry is due, so the pauses (2 s, 4 s) hold to a few milliseconds rather than a poll. */
  function wakeIn(ms: number): void {
    const timer = setTimeout(() => {
      timers.delete(timer);
      wake();
    }, Math.max(0, ms) + 5);
    timer.unref();
    timers.add(timer);
  }

  return {
    wake,
    async start(): Promise<void> {
      if (options.ownsDatabase) await store.releaseAllLocks();
      running = true;
      poll = setInterval(wake, pollMs);
      poll.unref();
      const pruneOld = () =>
        store.pruneDelivered(new Date(Date.now() - retentionMs)).catch((error: unknown) => logger.error({ err: error }, 'delivery pruning failed'));
      await pruneOld();
      prune = setInterval(() => void pruneOld(), PRUNE_EVERY_MS);
      prune.unref();
      wake();
      const ms = await store.msUntilNextDue();
      if (ms !== undefined && ms > 0) wakeIn(ms);
    },
    /** Stops claiming and lets attempts in flight finish; pending deliveries wait for the next start. */
    async stop(): Promise<void> {
      running = false;
      if (poll) clearInterval(poll);
      if (prune) clearInterval(prune);
      for (const timer of timers) clearTimeout(timer);
      await claiming;
      await Promise.allSettled([...tasks]);
    },
  };
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
