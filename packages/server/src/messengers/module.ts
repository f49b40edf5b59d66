// The five messengers: their API connectors, replies sent out as durable jobs, the console's token check and
// failure list, and (once the messages feature exists) the inbound webhooks they post updates to.
import { DEFAULT_MESSENGER_APIS } from '../config.ts';
import type { Kernel } from '../kernel/kernel.ts';
import type { ChannelStores } from '../channels/channel-cache.ts';
import { registerMessengerRoutes } from './messenger-routes.ts';
import { messengerWebhooks } from './messenger-webhook-routes.ts';
import { createChatsStore } from '../chats/chats-store.ts';
import { createMessagesStore } from '../messages/messages-store.ts';
import type { FeatureModule } from '../kernel/module.ts';
import type { MessengerRegistrar } from '../channels/channels-service.ts';
import { createConnectors } from '../channels/connectors/index.ts';
import { createMessengerInbound, type MessengerInboundDeps } from './messenger-inbound.ts';
import { createMessengerOutbound, MESSENGER_SEND_RETRY } from './messenger-outbound.ts';
import { createMessengerSendsStore } from './messenger-sends-store.ts';
import { createTelegramTokenCheck } from './telegram-token.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type MessengersShared = Pick<Kernel, 'apiHttp' | 'clock' | 'db' | 'files' | 'jobs' | 'logger'> & ChannelStores;

export function createMessengersModule(core: MessengersShared, options: { apis?: typeof DEFAULT_MESSENGER_APIS }) {
  const connectors = createConnectors(core.apiHttp, options.apis ?? DEFAULT_MESSENGER_APIS);
  const outbound = createMessengerOutbound({
    db: core.db,
    clock: core.clock,
    logger: core.logger,
    queue: core.jobs,
    connectors: connectors.byKind,
    sendsStore: createMessengerSendsStore,
    channelsStore: core.channelsStoreOf,
    messagesStore: createMessagesStore,
    chatsStore: createChatsStore,
  });
  core.jobs.handle('messenger.send', (payload, run) => outbound.send(payload, run), MESSENGER_SEND_RETRY);
  return {
    /** Replies to messenger chats go out through here (agent and team replies). */
    outbound,
    /** A channel's connect and disconnect register and drop its webhook at the messenger. */
    registration: {
      register: (kind, credentials, url) => connectors.byKind[kind].register(credentials, url),
      unregister: (kind, credentials) => connectors.byKind[kind].unregister(credentials),
    } satisfies MessengerRegistrar,
    consoleRoutes: (api) => registerMessengerRoutes(api, createTelegramTokenCheck(connectors.telegram), outbound),
    /** The inbound webhooks, which store customer messages through the messages feature. */
    inbound(messages: MessengerInboundDeps['messages'], ratings?: MessengerInboundDeps['ratings']): FeatureModule {
      const inbound = createMessengerInbound({
        ...(ratings ? { ratings } : {}),
        channels: core.channelsStoreOf(core.db),
        connectors: connectors.byKind,
        messages,
        files: core.files,
        clock: core.clock,
        logger: core.logger,
      });
      return {
        async register(app) {
          await app.register(messengerWebhooks, { prefix: '/channels', inbound });
        },
      };
    },
  } satisfies FeatureModule & Record<string, unknown>;
}
