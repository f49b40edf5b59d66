// The assigner (issue #44, auto-assignment): gives an account's waiting chats (flagged as needing a person,
// unassigned, not done) to its members, oldest first: each to an active member (available, with `onlyAvailable`)
// with fewer open assigned chats than their capacity — round robin: the one assigned least recently; least busy:
// the fewest open. None → the chat waits. Outside team hours nothing is assigned; the sweep assigns at opening.
// Runs are the keyed job `assignment.run` of the account, which database triggers queue whenever a chat may be given
// to someone (migration 0040); the account's row is held for the run's transaction, so runs of one account never
// overlap whichever process runs them. An assignment writes what the Inbox's manual one writes (the chat's assignee,
// the console notice every open Inbox hears, in the same transaction) and alerts the member as `mine`: the live
// Inbox's browser notification, and their e-mail after ALERT_EMAIL_DELAY_SECONDS while they are offline.
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/client.ts';
import { notifyChatChanged } from '../events/live-feed.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import type { Workers } from '../kernel/module.ts';
import type { Clock } from '../lib/clock.ts';
import { createAssignmentStore, type Candidate } from './assignment-store.ts';
import { teamOpen } from './team-hours.ts';
import type { AssignmentMode } from '@parley/contracts';

export const ASSIGNMENT_SWEEP_MS = 60_000;
/** Waiting chats one run looks at (a run with more left is queued again). */
const BATCH = 200;
const SWEEP_KEY = 'assignment.sweep';

export interface AssignerDeps {
  db: Database;
  clock: Clock;
  jobs: Pick<JobQueue, 'enqueue' | 'handle' | 'wake'>;
  logger: FastifyBaseLogger;
  /** ALERT_EMAIL_DELAY_SECONDS in ms: the member's e-mail waits that long (and goes only while they are offline). */
  emailDelayMs: number;
  everyMs?: number | undefined;
}

const time = (at: Date | string | null): number => (at === null ? -Infinity : new Date(at).getTime());

/** The member a chat goes to, among those under capacity; undefined: none. */
export function pickMember(mode: Exclude<AssignmentMode, 'off'>, candidates: Candidate[], accountCapacity: number): Candidate | undefined {
  const free = candidates.filter((member) => member.open < (member.capacity ?? accountCapacity));
  const byRecency = (a: Candidate, b: Candidate) => time(a.lastAssignedAt) - time(b.lastAssignedAt);
  free.sort(mode === 'least_busy' ? (a, b) => a.open - b.open || byRecency(a, b) : byRecency);
  return free[0];
}

export function createAssigner(deps: AssignerDeps) {
  const { db, clock, jobs, logger } = deps;

  /** One run for an account: the chats it assigned, in order, each with its member. */
  async function run(accountId: string): Promise<{ chatId: string; memberId: string }[]> {
    const now = clock.now();
    let more = false;
    const assigned = await db.transaction(async (tx) => {
      const store = createAssignmentStore(tx);
      const settings = await store.lockSettings(accountId);
      if (!settings || settings.mode === 'off' || !teamOpen(settings.teamHours, now)) return [];
      const candidates = await store.candidates(accountId, settings.onlyAvailable);
      if (!pickMember(settings.mode, candidates, settings.capacity)) return [];
      const waiting = await store.waiting(accountId, BATCH);
      more = waiting.length === BATCH;
      const done: { chatId: string; memberId: string }[] = [];
      for (const chat of waiting) {
        const member = pickMember(settings.mode, candidates, settings.capacity);
        if (!member) {
          more = false;
          break;
        }
        // Each assignment of a run a millisecond later: round robin keeps their order.
        const at = new Date(now.getTime() + done.length);
        await store.assign(chat.id, member.id, at);
        member.open += 1;
        member.lastAssignedAt = at;
        await notifyChatChanged(tx, accountId, chat.id);
        await jobs.enqueue(tx, 'alerts.email', { accountId, chatId: chat.id, memberId: member.id, assigned: true }, { delayMs: deps.emailDelayMs });
        done.push({ chatId: chat.id, memberId: member.id });
      }
      return done;
    });
    if (more) {
      await jobs.enqueue(db, 'assignment.run', { accountId }, { key: `assignment.run:${accountId}` });
      jobs.wake();
    }
    if (assigned.length > 0) logger.debug({ accountId, assigned: assigned.length }, 'chats auto-assigned');
    return assigned;
  }

  /** Every account with waiting chats, once (team hours that opened; anything a run missed). */
  async function sweep(): Promise<void> {
    for (const accountId of await createAssignmentStore(db).accountsWithWaiting()) await run(accountId);
  }

  jobs.handle('assignment.run', async ({ accountId }) => {
    await run(accountId);
  });
  jobs.handle('assignment.sweep', sweep);

  let timer: NodeJS.Timeout | undefined;
  const enqueueSweep = () =>
    jobs
      .enqueue(db, 'assignment.sweep', {}, { key: SWEEP_KEY })
      .then(() => jobs.wake())
      .catch((error: unknown) => logger.error({ err: error }, 'the assignment sweep could not be queued'));

  const workers: Workers = {
    async start() {
      void enqueueSweep();
      timer = setInterval(() => void enqueueSweep(), deps.everyMs ?? ASSIGNMENT_SWEEP_MS);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };

  return { run, sweep, workers };
}
