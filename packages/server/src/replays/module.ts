// Replay and knowledge gaps (issue #37): past customer questions answered again by a channel's agent as configured
// now, sending nothing (the `replay.run` job), and the questions the agent could not answer, grouped by meaning.
import type { AgentService } from '../agent/agent-service.ts';
import { registerReplayRoutes } from './replay-routes.ts';
import type { Kernel } from '../kernel/kernel.ts';
import type { ChannelStores } from '../channels/channel-cache.ts';
import type { createKnowledgeModule } from '../knowledge/module.ts';
import type { FeatureModule } from '../kernel/module.ts';
import { createAgreement } from './agreement.ts';
import { createGapsService } from './gaps-service.ts';
import { createReplaysService } from './replays-service.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type ReplaysShared = Pick<Kernel, 'clock' | 'db' | 'files' | 'jobs' | 'logger'> & ChannelStores;

export interface ReplaysModuleDeps {
  agent: Pick<AgentService, 'evaluate'>;
  knowledge: Pick<ReturnType<typeof createKnowledgeModule>, 'retriever' | 'baseLanguage' | 'primeQuestions' | 'embedTexts'>;
}

export function createReplaysModule(core: ReplaysShared, { agent, knowledge }: ReplaysModuleDeps) {
  const replays = createReplaysService({
    db: core.db,
    clock: core.clock,
    logger: core.logger,
    jobs: core.jobs,
    channelsStore: core.channelsStoreOf,
    agent,
    agreement: createAgreement({ retriever: knowledge.retriever }),
    baseLanguage: knowledge.baseLanguage,
    primeQuestions: knowledge.primeQuestions,
  });
  core.jobs.handle('replay.run', (payload, run) => replays.run(payload, run));
  const gaps = createGapsService({ db: core.db, clock: core.clock, baseLanguage: knowledge.baseLanguage, embedTexts: knowledge.embedTexts });
  return { consoleRoutes: (api) => registerReplayRoutes(api, replays, gaps, core.files.storage) } satisfies FeatureModule;
}
