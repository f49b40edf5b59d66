// Search (issue #44, 1): the Inbox's full-text search over the account's messages, notes and chats.
import type { Kernel } from '../kernel/kernel.ts';
import type { FeatureModule } from '../kernel/module.ts';
import { registerSearchRoutes } from './search-routes.ts';
import { createSearchService } from './search-service.ts';
import { createSearchStore } from './search-store.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type SearchShared = Pick<Kernel, 'db'>;

export function createSearchModule(core: SearchShared) {
  const search = createSearchService({ db: core.db, searchStore: createSearchStore });
  return { consoleRoutes: (api) => registerSearchRoutes(api, search) } satisfies FeatureModule;
}
