// Tags: the public API's tag endpoints; the Inbox tags chats through the same service.
import type { Kernel } from '../kernel/kernel.ts';
import { preparedQuery } from '../db/client.ts';
import { registerTagRoutes } from '../http/public/tags-routes.ts';
import type { FeatureModule } from '../module.ts';
import { createTagsService } from './tags-service.ts';
import { createTagsStore } from './tags-store.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type TagsShared = Pick<Kernel, 'db'>;

export function createTagsModule(core: TagsShared) {
  const tags = createTagsService({ store: createTagsStore(core.db, preparedQuery(core.db)) });
  return { tags, publicRoutes: (api) => registerTagRoutes(api, tags) } satisfies FeatureModule & Record<string, unknown>;
}
