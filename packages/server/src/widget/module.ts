// The chat widget: the loader and frame assets, the visitor API and its live stream.
import { createHmac } from 'node:crypto';
import type { WebSocket } from 'ws';
import type { Kernel } from '../kernel/kernel.ts';
import type { ChannelStores } from '../channels/channel-cache.ts';
import type { LiveFeed } from '../events/live-feed.ts';
import { widgetPlugin } from './widget-plugin.ts';
import type { MessagesService } from '../messages/messages-service.ts';
import type { FeatureModule } from '../kernel/module.ts';
import { createTypingFeed } from '../events/typing.ts';
import type { Csat } from '../conversations/csat.ts';
import { createVisitorTokens } from './visitor-token.ts';
import { createWidgetService } from './widget-service.ts';
import { createWidgetStore } from './widget-store.ts';
import { createEmbedAttempts, createEmbedAttemptsStore } from './embed-attempts.ts';
import { registerEmbedAttemptRoutes } from './embed-attempt-routes.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The chat widget's open live connections. */
    widgetConnections: ReadonlySet<WebSocket>;
  }
}

/** The shared pieces this feature uses (made by the composition root). */
export type WidgetShared = Pick<Kernel, 'app' | 'clock' | 'config' | 'db' | 'files' | 'listen'> & ChannelStores;

export function createWidgetModule(core: WidgetShared, deps: { messages: MessagesService; liveFeed: LiveFeed; csat?: Csat }): FeatureModule {
  const { jwtSecret } = core.config;
  const store = createWidgetStore(core.db, core.channelsStoreOf(core.db));
  const ipKeySecret = createHmac('sha256', jwtSecret).update('parley widget ip key').digest();
  const widget = createWidgetService({
    db: core.db,
    store,
    tokens: createVisitorTokens(jwtSecret),
    messages: deps.messages,
    clock: core.clock,
    ...(deps.csat ? { csat: deps.csat } : {}),
    ipKey: (ip) => createHmac('sha256', ipKeySecret).update(ip).digest('hex').slice(0, 32),
  });
  const embedAttempts = createEmbedAttempts({ store: createEmbedAttemptsStore(core.db), clock: core.clock });
  // The typing indicator, heard from the reply jobs of every process (agent/module.ts sends it).
  const typing = createTypingFeed(core.listen);
  core.app.addHook('onReady', () => typing.start());
  core.app.addHook('preClose', () => typing.stop());
  return {
    consoleRoutes: (api) => registerEmbedAttemptRoutes(api, embedAttempts),
    async register(app) {
      const connections = new Set<WebSocket>();
      app.decorate('widgetConnections', connections);
      await app.register(widgetPlugin, {
        widget,
        embedAttempts,
        store,
        liveFeed: deps.liveFeed,
        typing,
        connections,
        publicUrl: core.config.publicUrl,
        readUploads: core.files.readUploads,
      });
    },
  };
}
