// The claims of the delivery worker (delivery-worker.ts): how many due deliveries it reserves ahead, per channel
// and in all, and when it claims again (new work may be due, a request ended, the last claim was full).
import type { FastifyBaseLogger } from 'fastify';
import type { createLeaseHeartbeat } from '../lib/lease-heartbeat.ts';
import type { createChannelLoad } from './channel-load.ts';
import type { DeliveryStore } from './delivery-store.ts';

export interface DeliveryClaimsOptions {
  store: Pick<DeliveryStore, 'claim'>;
  load: ReturnType<typeof createChannelLoad>;
  leases: Pick<ReturnType<typeof createLeaseHeartbeat>, 'hold'>;
  logger: FastifyBaseLogger;
  perChannel: number;
  concurrency: number;
  leaseMs: number;
  /** Whether the worker runs: it claims only then. */
  running: () => boolean;
  /** Starts the ready deliveries that have room. */
  pump: () => void;
}

export function createDeliveryClaims(options: DeliveryClaimsOptions) {
  const { store, load, leases, logger, perChannel, concurrency, leaseMs, running, pump } = options;
  /**
   * A channel holds at most `perChannel` requests in flight and twice as many claimed ahead, so when a request ends
   * the next starts at once, and the claim that refills (when half of those ahead are gone) runs while the channel
   * still has `perChannel` ready to send.
   */
  const heldCap = 3 * perChannel;
  const refillAt = (heldCap * 2) / 3;
  const totalCap = 3 * concurrency;
  let claiming: Promise<void> | undefined;
  let again = false;
  /** Due deliveries may be waiting: new events came, a retry fell due, or the last claim was full. */
  let backlog = true;
  /** Channels the last claims filled to their cap: more of their deliveries may be due. */
  const capped = new Set<string>();

  async function claimLoop(): Promise<void> {
    while (running()) {
      again = false;
      const room = totalCap - load.inFlight - load.readyCount;
      if (room <= 0) return;
      backlog = false;
      const busy = load.busy();
      const claimed = await store.claim(room, leaseMs, heldCap, busy);
      // A full claim may have left more behind (a wake-up during the claim has set it again already).
      if (claimed.length === room) backlog = true;
      for (const delivery of claimed) {
        leases.hold(delivery.id);
        load.addReady(delivery);
      }
      if (!running()) return;
      pump();
      // A channel given all its room may have more due. Counted from what it held when the claim began: requests
      // that ended during the claim (PostgreSQL runs it beside them) have already passed their refill check.
      for (const delivery of claimed) busy.set(delivery.channelId, (busy.get(delivery.channelId) ?? 0) + 1);
      for (const [channelId, count] of busy) {
        if (count < heldCap) continue;
        if (load.heldBy(channelId) > refillAt) capped.add(channelId);
        else again = true;
      }
      if (claimed.length < room && !again) return;
    }
  }

  function claimSoon(): void {
    again = true;
    if (!running() || claiming) return;
    claiming = claimLoop()
      .catch((error: unknown) => logger.error({ err: error }, 'delivery claim failed'))
      .finally(() => {
        claiming = undefined;
        if (again && running()) claimSoon();
      });
  }

  return {
    /** New work may be due: events committed (here or, through NOTIFY, elsewhere), a retry's pause ended, a poll. */
    wake(): void {
      backlog = true;
      claimSoon();
    },

    /** A request of this channel ended (its answer came). */
    requestEnded(channelId: string): void {
      // Claims refill in batches, not one per finished attempt: when a channel the cap held back has used half of
      // what it had claimed ahead, or when the worker holds two thirds of its room or less and the last claim was full.
      const refill = capped.has(channelId) && load.heldBy(channelId) <= refillAt;
      if (refill) capped.delete(channelId);
      if (refill || (backlog && load.inFlight + load.readyCount <= (totalCap * 2) / 3)) claimSoon();
    },

    /** The claim under way, if any: the worker waits for it when it stops. */
    current(): Promise<void> | undefined {
      return claiming;
    },
  };
}
