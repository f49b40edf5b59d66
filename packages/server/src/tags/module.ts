// Tags: the public API's tag endpoints, and the Inbox's tags of a chat through the same service.
import type { Kernel } from '../kernel/kernel.ts';
import { registerInboxTagRoutes, type InboxTagDeps } from './inbox-tag-routes.ts';
import { preparedQuery } from '../db/client.ts';
import { notifyChatChanged } from '../events/live-feed.ts';
import { registerTagRoutes } from './tags-routes.ts';
import type { FeatureModule } from '../kernel/module.ts';
import { createTagsService } from './tags-service.ts';
import { createTagsStore } from './tags-store.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type TagsShared = Pick<Kernel, 'db'>;

export function createTagsModule(core: TagsShared, deps: Pick<InboxTagDeps, 'chats'>) {
  const tags = createTagsService({
    store: createTagsStore(core.db, preparedQuery(core.db)),
    chatChanged: (accountId, chatId) => notifyChatChanged(core.db, accountId, chatId),
  });
  return {
    tags,
    publicRoutes: (api) => registerTagRoutes(api, tags),
    consoleRoutes: (api) => registerInboxTagRoutes(api, { chats: deps.chats, tags }),
  } satisfies FeatureModule & Record<string, unknown>;
}
