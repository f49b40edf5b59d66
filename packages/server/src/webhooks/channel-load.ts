// What the delivery worker holds per channel: requests in flight and deliveries claimed ahead, waiting for room.
// A channel holds at most `perChannel` requests in flight, so one slow receiver never holds the others' room.
import type { ClaimedDelivery } from './delivery-store.ts';

export function createChannelLoad(perChannel: number, concurrency: number) {
  const inFlightByChannel = new Map<string, number>();
  let inFlight = 0;
  /** Claimed ahead, waiting for room, per channel in claim order. */
  const ready = new Map<string, ClaimedDelivery[]>();
  let readyCount = 0;

  return {
    get inFlight(): number {
      return inFlight;
    },
    get readyCount(): number {
      return readyCount;
    },
    /** Deliveries of a channel claimed here and not finished: in flight or claimed ahead. */
    heldBy(channelId: string): number {
      return (inFlightByChannel.get(channelId) ?? 0) + (ready.get(channelId)?.length ?? 0);
    },
    /** What each channel with work here holds (the claim leaves room for the others). */
    busy(): Map<string, number> {
      const busy = new Map<string, number>();
      for (const channelId of new Set([...inFlightByChannel.keys(), ...ready.keys()])) busy.set(channelId, this.heldBy(channelId));
      return busy;
    },
    addReady(delivery: ClaimedDelivery): void {
      const queue = ready.get(delivery.channelId);
      if (queue) queue.push(delivery);
      else ready.set(delivery.channelId, [delivery]);
      readyCount += 1;
    },
    /** Takes the ready deliveries that have room now (counted in flight): `perChannel` per channel, `concurrency` in all. */
    takeStartable(): ClaimedDelivery[] {
      const taken: ClaimedDelivery[] = [];
      if (readyCount === 0 || inFlight >= concurrency) return taken;
      for (const [channelId, queue] of ready) {
        while (queue.length > 0 && inFlight < concurrency && (inFlightByChannel.get(channelId) ?? 0) < perChannel) {
          readyCount -= 1;
          inFlight += 1;
          inFlightByChannel.set(channelId, (inFlightByChannel.get(channelId) ?? 0) + 1);
          taken.push(queue.shift() as ClaimedDelivery);
        }
        if (queue.length === 0) ready.delete(channelId);
        if (inFlight >= concurrency) break;
      }
      return taken;
    },
    /** A request's answer came: its room is free. */
    ended(channelId: string): void {
      inFlight -= 1;
      const left = (inFlightByChannel.get(channelId) ?? 1) - 1;
      if (left > 0) inFlightByChannel.set(channelId, left);
      else inFlightByChannel.delete(channelId);
    },
    /** Empties what was claimed ahead (the worker stops and gives those back). */
    drainReady(): ClaimedDelivery[] {
      const drained = [...ready.values()].flat();
      ready.clear();
      readyCount = 0;
      return drained;
    },
  };
}
