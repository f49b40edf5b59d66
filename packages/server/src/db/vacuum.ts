// PGlite runs no autovacuum worker: without a VACUUM its tables keep their dead row versions and never get the
// visibility map that index-only scans rely on (the chat list's deep offsets read the table for every skipped row
// instead). A process that owns its PGlite database vacuums it now and then, as autovacuum would.
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from './client.ts';

export const VACUUM_EVERY_MS = 60 * 60_000;

export interface Vacuum {
  /** One `VACUUM (ANALYZE)` of the whole database (PGlite blocks every other query meanwhile). */
  runOnce(): Promise<void>;
  stop(): void;
}

export function startVacuum({ db, logger, everyMs = VACUUM_EVERY_MS }: { db: Database; logger: FastifyBaseLogger; everyMs?: number }): Vacuum {
  let running: Promise<void> | undefined;
  async function vacuum(): Promise<void> {
    const started = Date.now();
    await db.execute(sql`VACUUM (ANALYZE)`);
    logger.info({ ms: Date.now() - started }, 'database vacuumed');
  }
  const runOnce = (): Promise<void> => {
    running ??= vacuum().finally(() => {
      running = undefined;
    });
    return running;
  };
  const timer = setInterval(() => {
    runOnce().catch((error: unknown) => logger.error({ err: error }, 'vacuum failed'));
  }, everyMs);
  timer.unref();
  return { runOnce, stop: () => clearInterval(timer) };
}
