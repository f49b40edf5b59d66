// Committed events as streams: the public API's event feed, and the live feed that open Inboxes and widget
// frames follow in every process (workers or not).
import { MEMBER_NOTICE, type Kernel } from '../kernel/kernel.ts';
import { registerLiveRoutes, type InboxLiveReads, type LivePresence } from './live-routes.ts';
import { registerEventRoutes } from './events-routes.ts';
import type { FeatureModule } from '../kernel/module.ts';
import { createFeedService } from './feed-service.ts';
import { createFeedStore } from './feed-store.ts';
import { createLiveFeed } from './live-feed.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type EventsShared = Pick<Kernel, 'app' | 'db' | 'listen' | 'logger' | 'onCacheNotice'>;

export function createEventsModule(core: EventsShared, deps: { presence: LivePresence; inboxReads: InboxLiveReads }) {
  const liveFeed = createLiveFeed({ db: core.db, listen: core.listen, logger: core.logger });
  core.app.addHook('onReady', () => liveFeed.start());
  core.app.addHook('preClose', () => liveFeed.stop());
  const feed = createFeedService({ store: createFeedStore(core.db) });
  return {
    liveFeed,
    publicRoutes: (api) => registerEventRoutes(api, feed),
    consoleRoutes: (api) => {
      const live = registerLiveRoutes(api, liveFeed, deps.presence, deps.inboxReads);
      // A member removed (or whose role, password or sign-out ended their sessions) stops hearing the account's
      // events at once: their open streams end, in every process (the member notice).
      core.onCacheNotice((payload) => {
        if (payload?.startsWith(MEMBER_NOTICE)) live.closeMember(payload.slice(MEMBER_NOTICE.length));
      });
    },
  } satisfies FeatureModule & Record<string, unknown>;
}
