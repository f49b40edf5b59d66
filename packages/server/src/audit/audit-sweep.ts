// The audit log's retention (issue #45, item 4): events older than AUDIT_RETENTION_DAYS go. Each process's timer
// enqueues the keyed job `audit.prune`, so the job queue's key and lease make one process at a time run it (the
// retention sweep's pattern, privacy/retention-sweep.ts).
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/client.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import type { Workers } from '../kernel/module.ts';
import type { Clock } from '../lib/clock.ts';
import type { AuditService } from './audit-service.ts';

export const AUDIT_PRUNE_MS = 60 * 60_000;
const KEY = 'audit.prune';

export interface AuditSweepDeps {
  db: Database;
  clock: Clock;
  jobs: Pick<JobQueue, 'enqueue' | 'handle' | 'wake'>;
  logger: FastifyBaseLogger;
  audit: Pick<AuditService, 'prune'>;
  everyMs?: number;
}

export function createAuditSweep({ db, clock, jobs, logger, audit, everyMs }: AuditSweepDeps) {
  async function sweep(now: Date = clock.now()): Promise<number> {
    const pruned = await audit.prune(now);
    if (pruned > 0) logger.info({ events: pruned }, 'deleted audit events past their retention');
    return pruned;
  }

  jobs.handle('audit.prune', async () => {
    await sweep();
  });

  let timer: NodeJS.Timeout | undefined;
  const enqueue = () =>
    jobs
      .enqueue(db, 'audit.prune', {}, { key: KEY })
      .then(() => jobs.wake())
      .catch((error: unknown) => logger.error({ err: error }, 'the audit prune could not be queued'));

  const workers: Workers = {
    async start() {
      void enqueue();
      timer = setInterval(() => void enqueue(), everyMs ?? AUDIT_PRUNE_MS);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
  return { sweep, workers };
}
