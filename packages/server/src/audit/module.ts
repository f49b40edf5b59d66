// The audit log (issue #45, item 4): the list and CSV of an account's events, and their prune. Features record events
// through audit-record.ts (recordAudit, inside the transaction of their change).
import type { Kernel } from '../kernel/kernel.ts';
import type { FeatureModule } from '../kernel/module.ts';
import { registerAuditRoutes } from './audit-routes.ts';
import { createAuditService } from './audit-service.ts';
import { createAuditSweep } from './audit-sweep.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type AuditShared = Pick<Kernel, 'clock' | 'config' | 'db' | 'jobs' | 'logger'>;

export const DEFAULT_AUDIT_RETENTION_DAYS = 365;

export function createAuditModule(core: AuditShared, options: { pruneMs?: number } = {}) {
  const audit = createAuditService({ db: core.db, retentionDays: core.config.auditRetentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS });
  const prune = createAuditSweep({ db: core.db, clock: core.clock, jobs: core.jobs, logger: core.logger, audit, everyMs: options.pruneMs });
  return {
    audit,
    auditSweep: prune.sweep,
    workers: prune.workers,
    consoleRoutes: (api) => registerAuditRoutes(api, audit),
  } satisfies FeatureModule & Record<string, unknown>;
}
