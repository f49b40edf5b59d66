// Agent actions (issue #43; docs/architecture.md, Agent actions): the account's HTTP calls to its own systems, their
// console routes, the runner both engines, the test call and replay share, and each chat's runs for its history.
import type { Kernel } from '../kernel/kernel.ts';
import type { ChannelStores } from '../channels/channel-cache.ts';
import type { FeatureModule } from '../kernel/module.ts';
import { createActionClient } from './action-client.ts';
import { createActionRunner } from './action-runner.ts';
import { registerActionRoutes } from './actions-routes.ts';
import { createActionsService } from './actions-service.ts';
import { createActionsStore } from './actions-store.ts';
import { createAgentActions } from './agent-actions.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type ActionsShared = Pick<Kernel, 'clock' | 'closeWithApp' | 'config' | 'db' | 'logger' | 'metrics' | 'secretBox' | 'urlGuard'> & ChannelStores;

export function createActionsModule(core: ActionsShared) {
  const { db, clock } = core;
  const store = (executor: Parameters<typeof createActionsStore>[0]) => createActionsStore(executor, core.secretBox);
  const client = createActionClient(core.urlGuard);
  core.closeWithApp(client);
  const runner = createActionRunner({ store, db, client, clock, metrics: core.metrics, logger: core.logger });
  const actions = createActionsService({
    db,
    store,
    channels: core.channelsStoreOf,
    runner,
    clock,
    allowHttp: core.config.webhookAllowPrivateNetworks,
  });
  return {
    actions,
    /** What the agent's engines use (agent/module.ts). */
    agentActions: createAgentActions({ db, store, runner }),
    /** A chat's runs for its console history (messages/notes-service.ts). */
    historyOf: actions.historyOf,
    consoleRoutes: (api) => registerActionRoutes(api, actions),
  } satisfies FeatureModule & Record<string, unknown>;
}
