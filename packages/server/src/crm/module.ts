// CRM connections: a chat whose task is done goes to the account's CRMs as a durable job.
import { createChatsStore } from '../chats/chats-store.ts';
import { DEFAULT_CRM_APIS } from '../config.ts';
import type { Kernel } from '../kernel/kernel.ts';
import type { ChannelStores } from '../channels/channel-cache.ts';
import { registerCrmRoutes } from './crm-routes.ts';
import { createMessagesStore } from '../messages/messages-store.ts';
import type { FeatureModule } from '../kernel/module.ts';
import { createCrmConnectors } from './connectors/index.ts';
import { createCrmService, CRM_SYNC_RETRY } from './crm-service.ts';
import { createCrmStore } from './crm-store.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type CrmShared = Pick<Kernel, 'apiHttp' | 'clock' | 'db' | 'jobs' | 'logger' | 'secretBox'> & ChannelStores;

export function createCrmModule(core: CrmShared, options: { apis?: typeof DEFAULT_CRM_APIS }) {
  const crm = createCrmService({
    db: core.db,
    clock: core.clock,
    logger: core.logger,
    queue: core.jobs,
    connectors: createCrmConnectors(core.apiHttp, options.apis ?? DEFAULT_CRM_APIS),
    crmStore: (executor) => createCrmStore(executor, core.secretBox),
    channelsStore: core.channelsStoreOf,
    chatsStore: createChatsStore,
    messagesStore: createMessagesStore,
  });
  core.jobs.handle('crm.sync', (payload, run) => crm.sync(payload, run), CRM_SYNC_RETRY);
  return {
    /** Follows task status changes (chats, agent) in their transactions. */
    sync: crm,
    consoleRoutes: (api) => registerCrmRoutes(api, crm),
  } satisfies FeatureModule & Record<string, unknown>;
}
