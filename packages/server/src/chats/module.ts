// Chats: the public API's list, read/unread, done/undone (the change itself a job) and ban, and the console's Inbox
// of the account's chats through the same service.
import type { Kernel } from '../kernel/kernel.ts';
import type { ChannelStores } from '../channels/channel-cache.ts';
import type { EventsCommitted } from '../events/outbox.ts';
import { registerChatRoutes } from './chats-routes.ts';
import type { FeatureModule } from '../kernel/module.ts';
import { createChatsService, type CrmSyncHook } from './chats-service.ts';
import { createChatsStore } from './chats-store.ts';
import { registerInboxRoutes } from './inbox-routes.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type ChatsShared = Pick<Kernel, 'clock' | 'db' | 'jobs'> & ChannelStores;

export function createChatsModule(core: ChatsShared, deps: { eventsCommitted: EventsCommitted; crmSync: CrmSyncHook }) {
  const chats = createChatsService({
    db: core.db,
    chatsStore: createChatsStore,
    channelsStore: core.channelsStoreOf,
    queue: core.jobs,
    clock: core.clock,
    eventsCommitted: deps.eventsCommitted,
    crmSync: deps.crmSync,
  });
  core.jobs.handle('chat.setTaskStatus', async ({ accountId, chatId, done }) => {
    await chats.applyTaskStatus(accountId, chatId, done, { type: 'api', operatorEmail: null });
  });
  return {
    chats,
    publicRoutes: (api) => registerChatRoutes(api, chats),
    consoleRoutes: (api) => registerInboxRoutes(api, chats),
  } satisfies FeatureModule & Record<string, unknown>;
}
