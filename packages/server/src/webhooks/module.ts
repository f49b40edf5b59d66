// Outgoing webhooks: the delivery worker that sends committed events to each channel's receiver, and the
// console's list of deliveries with redelivery.
import type { Executor } from '../db/client.ts';
import type { Kernel } from '../kernel/kernel.ts';
import { DELIVERIES_CHANNEL } from '../events/outbox.ts';
import { registerDeliveryRoutes } from './delivery-routes.ts';
import type { FeatureModule } from '../kernel/module.ts';
import { createDeliveriesService, type DeliveriesServiceDeps } from './deliveries-service.ts';
import { createDeliveryStore } from './delivery-store.ts';
import { createDeliveryWorker } from './delivery-worker.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type WebhooksShared = Pick<Kernel, 'db' | 'listen' | 'logger' | 'metrics' | 'ownsDatabase' | 'secretBox' | 'webhookClient'> & {
  channelsStoreOf(executor: Executor): DeliveriesServiceDeps['channels'];
};

export function createWebhooksModule(core: WebhooksShared, options: { deliveryPollMs?: number; retentionDays?: number }) {
  const store = createDeliveryStore(core.db);
  const worker = createDeliveryWorker({
    store,
    client: core.webhookClient,
    secrets: core.secretBox,
    logger: core.logger,
    ownsDatabase: core.ownsDatabase,
    ...(options.deliveryPollMs !== undefined ? { pollMs: options.deliveryPollMs } : {}),
    retentionMs: (options.retentionDays ?? 7) * 24 * 60 * 60_000,
    metrics: core.metrics,
  });
  const wake = () => worker.wake();
  // A redelivery from the console sends no NOTIFY.
  const deliveries = createDeliveriesService({ store, channels: core.channelsStoreOf(core.db), wake });
  let unlisten = async () => {};
  return {
    /**
     * Called after a commit that wrote events. With LISTEN, the NOTIFY written with each delivery wakes this process
     * too, and only when a delivery was written: a second, in-process wake-up per committed event would claim twice.
     */
    eventsCommitted: core.listen ? () => {} : wake,
    consoleRoutes: (api) => registerDeliveryRoutes(api, deliveries),
    workers: {
      async start() {
        await worker.start();
        if (core.listen) unlisten = await core.listen(DELIVERIES_CHANNEL, wake);
      },
      async stop(handBack) {
        await unlisten();
        await worker.stop(handBack);
      },
    },
  } satisfies FeatureModule & Record<string, unknown>;
}
