// The retention sweep (issue #45, item 6; DESIGN "Security and privacy"): an account's conversations ended more than
// `retentionDays` ago are deleted with their messages and files, in batches, the reports' rollup kept. Each process's
// timer enqueues the keyed job `retention.sweep`, so the job queue's key and lease make one process at a time run it.
// Files go from the store after each batch commits.
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/client.ts';
import type { StoredAttachment } from '../db/schema.ts';
import { fileKeyOf, type FileStorage } from '../files/file-storage.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import type { Workers } from '../kernel/module.ts';
import type { Clock } from '../lib/clock.ts';
import { createRetentionStore } from './retention-store.ts';

export const RETENTION_SWEEP_MS = 10 * 60_000;
export const RETENTION_BATCH = 500;
const KEY = 'retention.sweep';

export interface RetentionSweepDeps {
  db: Database;
  clock: Clock;
  jobs: Pick<JobQueue, 'enqueue' | 'handle' | 'wake'>;
  files: Pick<FileStorage, 'remove'>;
  publicUrl: string;
  logger: FastifyBaseLogger;
  everyMs?: number;
}

export function createRetentionSweep(deps: RetentionSweepDeps) {
  const { db, clock, jobs, files, publicUrl, logger } = deps;

  async function removeFiles(attachments: StoredAttachment[]): Promise<void> {
    for (const attachment of attachments) {
      const key = fileKeyOf(publicUrl, attachment.url);
      if (key) await files.remove(key).catch((error: unknown) => logger.warn({ err: error, key }, 'removing a file past retention failed'));
    }
  }

  /** One sweep at `now`: how many chats and conversations went. */
  async function sweep(now: Date = clock.now()): Promise<{ chats: number; conversations: number }> {
    let chats = 0;
    let conversations = 0;
    for (;;) {
      const batch = await db.transaction((tx) => createRetentionStore(tx).deleteOldChats(now, RETENTION_BATCH));
      chats += batch.chats;
      await removeFiles(batch.attachments);
      if (batch.chats < RETENTION_BATCH) break;
    }
    for (;;) {
      const batch = await db.transaction((tx) => createRetentionStore(tx).deleteOldConversations(now, RETENTION_BATCH));
      conversations += batch.conversations;
      await removeFiles(batch.attachments);
      if (batch.conversations < RETENTION_BATCH) break;
    }
    if (chats + conversations > 0) logger.info({ chats, conversations }, 'deleted conversations past their retention');
    return { chats, conversations };
  }

  jobs.handle('retention.sweep', async () => {
    await sweep();
  });

  let timer: NodeJS.Timeout | undefined;
  const enqueue = () =>
    jobs
      .enqueue(db, 'retention.sweep', {}, { key: KEY })
      .then(() => jobs.wake())
      .catch((error: unknown) => logger.error({ err: error }, 'the retention sweep could not be queued'));

  const workers: Workers = {
    async start() {
      void enqueue();
      timer = setInterval(() => void enqueue(), deps.everyMs ?? RETENTION_SWEEP_MS);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };

  return { sweep, workers };
}
