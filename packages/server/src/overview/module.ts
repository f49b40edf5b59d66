// The console's overview: counts of the account's chats and replies.
import type { Kernel } from '../kernel/kernel.ts';
import { registerOverviewRoutes } from './overview-routes.ts';
import type { FeatureModule } from '../kernel/module.ts';
import { createOverviewService } from './overview-service.ts';
import { createOverviewStore } from './overview-store.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type OverviewShared = Pick<Kernel, 'clock' | 'db'>;

export function createOverviewModule(core: OverviewShared) {
  const overview = createOverviewService({ store: createOverviewStore(core.db), clock: core.clock });
  return { consoleRoutes: (api) => registerOverviewRoutes(api, overview) } satisfies FeatureModule;
}
