// What the agent's engines use of actions (agent/engines/action-turns.ts): a channel's usable actions, a chat's verified
// identity, a knowledge entry's action, and the runner. A chat's verified identity is the widget visitor's `identifier`
// (set only when verified with `identifierHash`) or a messenger chat's user id (a one-to-one chat's id); an API
// channel's chat, a group or an anonymous visitor has none.
import { isMessengerKind } from '@parley/contracts';
import type { Executor } from '../db/client.ts';
import { isUuid } from '../lib/ids.ts';
import type { ActionDefinition } from './action-definition.ts';
import type { ActionRunner } from './action-runner.ts';
import type { ActionsStore } from './actions-store.ts';

/** The facts of a chat its identity comes from. */
export interface IdentityChat {
  channelId: string;
  channelKind: string;
  externalChatId: string;
  isGroup: boolean;
}

export function createAgentActions({ db, store, runner }: { db: Executor; store: (executor: Executor) => ActionsStore; runner: Pick<ActionRunner, 'run' | 'decline'> }) {
  return {
    /** The enabled actions of the account among a channel's `actionIds`. */
    forChannel: (accountId: string, actionIds: readonly string[]): Promise<ActionDefinition[]> => store(db).enabledAmong(accountId, actionIds),

    async identityOf(chat: IdentityChat): Promise<string | null> {
      if (chat.channelKind === 'widget') return isUuid(chat.externalChatId) ? store(db).widgetIdentity(chat.channelId, chat.externalChatId) : null;
      if (isMessengerKind(chat.channelKind) && !chat.isGroup) return chat.externalChatId;
      return null;
    },

    entryActionId: (entryId: string): Promise<string | null> => store(db).entryActionId(entryId),

    run: runner.run,
    decline: runner.decline,
  };
}

export type AgentActions = ReturnType<typeof createAgentActions>;
