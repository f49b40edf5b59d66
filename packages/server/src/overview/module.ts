// The console's overview: counts of the account's chats and replies.
import type { Core } from '../core.ts';
import { registerOverviewRoutes } from '../http/console/overview-routes.ts';
import type { FeatureModule } from '../module.ts';
import { createOverviewService } from './overview-service.ts';
import { createOverviewStore } from './overview-store.ts';

export function createOverviewModule(core: Core) {
  const overview = createOverviewService({ store: createOverviewStore(core.db), clock: core.clock });
  return { consoleRoutes: (api) => registerOverviewRoutes(api, overview) } satisfies FeatureModule;
}
