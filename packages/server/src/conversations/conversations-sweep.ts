// The conversations sweep (docs/architecture.md, Outcomes and reports): conversations quiet for their account's
// resolution time end by quiet time, and ended ones 7 days old with no new conversation in their chat become
// durable. Each process's timer enqueues the keyed job `conversations.sweep`, so the job queue's key and lease
// make one process at a time run it however many run workers; the statements skip rows another transaction holds.
// Each sweep also asks messenger customers whose conversation ended (by either) for a rating (csat-messenger.ts).
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/client.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import type { Clock } from '../lib/clock.ts';
import type { Workers } from '../kernel/module.ts';
import { createConversationsStore, type EndedConversation } from './conversations-store.ts';

export const CONVERSATION_SWEEP_MS = 60_000;
const BATCH = 2000;
const KEY = 'conversations.sweep';

export interface ConversationsSweepDeps {
  db: Database;
  clock: Clock;
  jobs: Pick<JobQueue, 'enqueue' | 'handle' | 'wake'>;
  logger: FastifyBaseLogger;
  everyMs?: number;
  /** Told of each conversation the sweep ended (after its commit): the widget and messengers ask for a rating. */
  onEnded?: (ended: EndedConversation[]) => Promise<void>;
  /** After each sweep: messenger conversations that ended (done or quiet) are asked `How did we do?` (csat-messenger.ts). */
  askCsat?: (now: Date) => Promise<number>;
}

export function createConversationsSweep(deps: ConversationsSweepDeps) {
  const { db, clock, jobs, logger } = deps;
  const store = createConversationsStore(db);

  /** One sweep at `now`: what it ended. */
  async function sweep(now: Date = clock.now()): Promise<EndedConversation[]> {
    const ended: EndedConversation[] = [];
    for (;;) {
      const batch = await store.endQuiet(now, BATCH);
      ended.push(...batch);
      if (batch.length > 0 && deps.onEnded) await deps.onEnded(batch);
      if (batch.length < BATCH) break;
    }
    while ((await store.settleDurable(now, BATCH)) === BATCH);
    if (deps.askCsat) await deps.askCsat(now);
    return ended;
  }

  jobs.handle('conversations.sweep', async () => {
    await sweep();
  });

  let timer: NodeJS.Timeout | undefined;
  const enqueue = () =>
    jobs
      .enqueue(db, 'conversations.sweep', {}, { key: KEY })
      .then(() => jobs.wake())
      .catch((error: unknown) => logger.error({ err: error }, 'the conversations sweep could not be queued'));

  const workers: Workers = {
    async start() {
      void enqueue();
      timer = setInterval(() => void enqueue(), deps.everyMs ?? CONVERSATION_SWEEP_MS);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };

  return { sweep, workers };
}
