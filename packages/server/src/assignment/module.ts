// Auto-assignment and team hours (issue #44, item 2): the account's settings and hours, the assigner (runs queued by
// database triggers, a sweep for hours that open), and what the agent's handoff says outside team hours.
import type { Kernel } from '../kernel/kernel.ts';
import type { FeatureModule } from '../kernel/module.ts';
import { createAssigner } from './assigner.ts';
import { registerAssignmentRoutes } from './assignment-routes.ts';
import { createAssignmentService } from './assignment-service.ts';
import { createAssignmentStore } from './assignment-store.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type AssignmentShared = Pick<Kernel, 'clock' | 'db' | 'jobs' | 'logger'>;

export function createAssignmentModule(core: AssignmentShared, options: { emailDelayMs: number; sweepMs?: number | undefined }) {
  const assignment = createAssignmentService({ db: core.db });
  const assigner = createAssigner({
    db: core.db,
    clock: core.clock,
    jobs: core.jobs,
    logger: core.logger,
    emailDelayMs: options.emailDelayMs,
    everyMs: options.sweepMs,
  });
  const store = createAssignmentStore(core.db);
  return {
    assigner,
    /** The account's team hours (null: always open), for the handoff's message. */
    teamHours: async (accountId: string) => (await store.settings(accountId))?.teamHours ?? null,
    workers: assigner.workers,
    consoleRoutes: (api) => registerAssignmentRoutes(api, assignment),
  } satisfies FeatureModule & Record<string, unknown>;
}
