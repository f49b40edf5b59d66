// The actions of one agent turn (engine.ts `TurnActions`): in a chat, runs recorded with the chat and the chat's verified
// identity; in a replay, no identity, a `write` never run and a `read` run only when the replay was asked to — what
// was not run is listed as the item's `wouldCall`.
import type { ActionDefinition } from '../actions/action-definition.ts';
import type { AgentActions } from '../actions/agent-actions.ts';
import type { TurnActions } from './engine.ts';

function entryActionOf(port: Pick<AgentActions, 'entryActionId'>, list: readonly ActionDefinition[]) {
  return async (entryId: string): Promise<ActionDefinition | undefined> => {
    const id = await port.entryActionId(entryId);
    return id === null ? undefined : list.find((action) => action.id === id);
  };
}

/** A chat's turn: `identity` is its verified identity (null: none). */
export function chatTurnActions(port: AgentActions, accountId: string, chatId: string, list: readonly ActionDefinition[], identity: string | null): TurnActions {
  const context = { accountId, chatId, source: { kind: 'chat' as const, identity } };
  return {
    list,
    identity,
    ofEntry: entryActionOf(port, list),
    run: (action, given) => port.run(action, given, context),
    decline: (action, values) => port.decline(action, values, context),
  };
}

/** A replayed question's turn; each action it would have called but did not is added to `wouldCall`. */
export function replayTurnActions(
  port: AgentActions,
  accountId: string,
  list: readonly ActionDefinition[],
  callReadActions: boolean,
  wouldCall: string[],
): TurnActions {
  const context = { accountId, chatId: null, source: { kind: 'chat' as const, identity: null } };
  return {
    list,
    identity: null,
    ofEntry: entryActionOf(port, list),
    async run(action, given) {
      if (action.kind === 'write' || !callReadActions) {
        wouldCall.push(action.name);
        return { outcome: 'skipped' };
      }
      return port.run(action, given, context);
    },
    async decline() {},
  };
}
