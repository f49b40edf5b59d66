// Privacy (issue #45): a customer's data exported or erased on request, and the account's retention of conversations.
import type { Kernel } from '../kernel/kernel.ts';
import type { FeatureModule } from '../kernel/module.ts';
import { createCustomerDataService } from './customer-data-service.ts';
import { registerPrivacyRoutes } from './privacy-routes.ts';
import { createRetentionSweep } from './retention-sweep.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type PrivacyShared = Pick<Kernel, 'clock' | 'db' | 'files' | 'jobs' | 'logger'>;

export function createPrivacyModule(core: PrivacyShared, options: { retentionSweepMs?: number } = {}) {
  const customers = createCustomerDataService({
    db: core.db,
    files: core.files.storage,
    publicUrl: core.files.publicUrl,
    clock: core.clock,
    logger: core.logger,
  });
  const retention = createRetentionSweep({
    db: core.db,
    clock: core.clock,
    jobs: core.jobs,
    files: core.files.storage,
    publicUrl: core.files.publicUrl,
    logger: core.logger,
    everyMs: options.retentionSweepMs,
  });
  return {
    customers,
    retentionSweep: retention.sweep,
    workers: retention.workers,
    consoleRoutes: (api) => registerPrivacyRoutes(api, customers),
  } satisfies FeatureModule & Record<string, unknown>;
}
