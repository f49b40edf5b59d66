// Chats: the public API's list, read/unread, done/undone (the change itself a job) and ban; the console's Inbox
// uses the same service.
import type { Kernel } from '../kernel/kernel.ts';
import type { CrmSyncHook } from '../crm/crm-service.ts';
import type { EventsCommitted } from '../events/outbox.ts';
import { registerChatRoutes } from '../http/public/chats-routes.ts';
import type { FeatureModule } from '../module.ts';
import { createChatsService } from './chats-service.ts';
import { createChatsStore } from './chats-store.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type ChatsShared = Pick<Kernel, 'channelsStoreOf' | 'clock' | 'db' | 'jobs'>;

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
  return { chats, publicRoutes: (api) => registerChatRoutes(api, chats) } satisfies FeatureModule & Record<string, unknown>;
}
