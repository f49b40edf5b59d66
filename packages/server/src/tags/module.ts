// Tags: the public API's tag endpoints; the Inbox tags chats through the same service.
import type { Core } from '../core.ts';
import { preparedQuery } from '../db/client.ts';
import { registerTagRoutes } from '../http/public/tags-routes.ts';
import type { FeatureModule } from '../module.ts';
import { createTagsService } from './tags-service.ts';
import { createTagsStore } from './tags-store.ts';

export function createTagsModule(core: Core) {
  const tags = createTagsService({ store: createTagsStore(core.db, preparedQuery(core.db)) });
  return { tags, publicRoutes: (api) => registerTagRoutes(api, tags) } satisfies FeatureModule & Record<string, unknown>;
}
