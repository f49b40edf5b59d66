// Reply suggestions (issue #44): what the Inbox offers above the composer for a chat's last customer message —
// knowledge entries' answers, document passages and saved replies ranked by the agent's retrieval, and a draft of
// the channel's model when it has one.
import { createModelDrafter } from '../agent/engines/model-draft.ts';
import type { ChannelStores } from '../channels/channel-cache.ts';
import { createChatsStore } from '../chats/chats-store.ts';
import type { Kernel } from '../kernel/kernel.ts';
import type { FeatureModule } from '../kernel/module.ts';
import type { createKnowledgeModule } from '../knowledge/module.ts';
import { createMessagesStore } from '../messages/messages-store.ts';
import { createCannedResponsesStore } from '../replies/canned-responses-store.ts';
import { registerSuggestionRoutes } from './suggestions-routes.ts';
import { createSuggestionsService } from './suggestions-service.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type SuggestionsShared = Pick<Kernel, 'closeWithApp' | 'db' | 'logger' | 'urlGuard'> & ChannelStores;

export interface SuggestionsModuleDeps {
  knowledge: Pick<ReturnType<typeof createKnowledgeModule>, 'retriever' | 'baseLanguage'>;
}

export function createSuggestionsModule(core: SuggestionsShared, { knowledge }: SuggestionsModuleDeps) {
  const drafter = createModelDrafter({ guard: core.urlGuard });
  core.closeWithApp(drafter);
  const suggestions = createSuggestionsService({
    db: core.db,
    logger: core.logger,
    chatsStore: createChatsStore,
    messagesStore: createMessagesStore,
    channelsStore: core.channelsStoreOf,
    savedReplies: createCannedResponsesStore(core.db),
    retriever: knowledge.retriever,
    baseLanguage: knowledge.baseLanguage,
    drafter,
  });
  return { consoleRoutes: (api) => registerSuggestionRoutes(api, suggestions) } satisfies FeatureModule;
}
