// Channels: connect, edit and remove a channel of any kind, its webhook settings and the webhook test; channel
// secrets stored in clear by an earlier version are sealed once at start.
import type { Kernel } from '../kernel/kernel.ts';
import type { ChannelStores } from './channel-cache.ts';
import { registerChannelRoutes } from './channel-routes.ts';
import type { FeatureModule } from '../kernel/module.ts';
import { createChannelsService, type MessengerRegistrar } from './channels-service.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type ChannelsShared = Pick<Kernel, 'app' | 'clock' | 'config' | 'db' | 'logger' | 'urlGuard' | 'webhookClient'> & ChannelStores;

export function createChannelsModule(core: ChannelsShared, { messengers }: { messengers: MessengerRegistrar }) {
  const channels = createChannelsService({
    store: core.channelsStoreOf(core.db),
    db: core.db,
    storeOf: (executor) => core.channelsStoreOf(executor),
    clock: core.clock,
    urlGuard: core.urlGuard,
    webhookClient: core.webhookClient,
    publicUrl: core.config.publicUrl,
    messengers,
    logger: core.logger,
  });
  // Idempotent; any process may do it.
  core.app.addHook('onReady', async () => {
    const sealed = await core.channelsStoreOf(core.db).sealStoredSecrets();
    if (sealed > 0) core.logger.info({ channels: sealed }, 'channel secrets stored in clear are now encrypted');
  });
  return { consoleRoutes: (api) => registerChannelRoutes(api, channels) } satisfies FeatureModule;
}
