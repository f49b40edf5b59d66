// The delivery log and redelivery of the console (beyond the spec).
import type { ChannelKind, Delivery } from '@parley/contracts';
import { Errors } from '../errors.ts';
import type { DeliveryStore } from './delivery-store.ts';

export interface DeliveriesServiceDeps {
  store: Pick<DeliveryStore, 'listForChannel' | 'redeliver' | 'redeliverFailed' | 'statusOf'>;
  /** The channel a list names (the channels store satisfies it: webhooks sit below channels). */
  channels: { find(accountId: string, id: string): Promise<{ kind: string } | undefined> };
  /** Wakes the delivery worker. */
  wake: () => void;
}

export function createDeliveriesService({ store, channels, wake }: DeliveriesServiceDeps) {
  async function requireChannel(accountId: string, kind: ChannelKind, id: string): Promise<void> {
    const channel = await channels.find(accountId, id);
    if (!channel || channel.kind !== kind) throw Errors.channelNotFound();
  }

  return {
    async list(accountId: string, kind: ChannelKind, channelId: string, limit = 50): Promise<{ deliveries: Delivery[] }> {
      await requireChannel(accountId, kind, channelId);
      const rows = await store.listForChannel(accountId, channelId, limit);
      return {
        deliveries: rows.map(({ delivery, event, attempts }) => ({
          id: delivery.id,
          eventId: delivery.eventId,
          event: event as Delivery['event'],
          status: delivery.status as Delivery['status'],
          attempts: attempts.map((a) => ({
            number: a.number,
            startedAt: a.startedAt.toISOString(),
            latencyMs: a.latencyMs,
            statusCode: a.statusCode,
            error: a.error,
          })),
          createdAt: delivery.createdAt.toISOString(),
          finishedAt: delivery.finishedAt?.toISOString() ?? null,
        })),
      };
    },

    async redeliver(accountId: string, deliveryId: string): Promise<{ id: string }> {
      const id = await store.redeliver(accountId, deliveryId);
      if (!id) {
        if ((await store.statusOf(accountId, deliveryId)) === 'pending') throw Errors.deliveryPending();
        throw Errors.deliveryNotFound();
      }
      wake();
      return { id };
    },

    async redeliverFailed(accountId: string, kind: ChannelKind, channelId: string, range: { from: string; to: string }) {
      await requireChannel(accountId, kind, channelId);
      const from = new Date(range.from);
      const to = new Date(range.to);
      if (!(from < to)) throw Errors.invalidRange();
      const count = await store.redeliverFailed(accountId, channelId, from, to);
      if (count > 0) wake();
      return { count };
    },
  };
}

export type DeliveriesService = ReturnType<typeof createDeliveriesService>;
