// Answer feedback (spec, Agent reply rating): like and dislike of agent replies from the public API and the Inbox; a
// correction is saved in the channel's knowledge base in the rating's transaction.
import type { ChannelStores } from '../channels/channel-cache.ts';
import { createChatsStore } from '../chats/chats-store.ts';
import type { Executor } from '../db/client.ts';
import type { Kernel } from '../kernel/kernel.ts';
import type { FeatureModule } from '../kernel/module.ts';
import type { KnowledgeService } from '../knowledge/knowledge-service.ts';
import { createMessagesStore } from '../messages/messages-store.ts';
import { registerFeedbackRoutes, registerInboxFeedbackRoutes } from './feedback-routes.ts';
import { createFeedbackService } from './feedback-service.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type FeedbackShared = Pick<Kernel, 'db'> & ChannelStores;

export function createFeedbackModule(core: FeedbackShared, deps: { knowledge: { serviceOf(executor: Executor): KnowledgeService } }) {
  const feedback = createFeedbackService({
    db: core.db,
    messagesStore: createMessagesStore,
    chatsStore: createChatsStore,
    channelsStore: core.channelsStoreOf,
    knowledge: deps.knowledge.serviceOf,
  });
  return {
    publicRoutes: (api) => registerFeedbackRoutes(api, feedback),
    consoleRoutes: (api) => registerInboxFeedbackRoutes(api, feedback),
  } satisfies FeatureModule;
}
