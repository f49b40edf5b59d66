// Renews the leases of work claimed by this process until it is recorded: while the process lives, another
// process never takes that work over; once it dies, the leases run out and the work is taken again.
import type { FastifyBaseLogger } from 'fastify';

export interface LeaseHeartbeatOptions {
  /** Extends the leases of these ids (one statement). */
  renew: (ids: string[]) => Promise<void>;
  everyMs: number;
  logger: FastifyBaseLogger;
  /** Names the work in the log line of a failed renewal. */
  what: string;
}

export function createLeaseHeartbeat({ renew, everyMs, logger, what }: LeaseHeartbeatOptions) {
  const held = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let renewing = false;

  async function renewAll(): Promise<void> {
    if (renewing || held.size === 0) return;
    renewing = true;
    try {
      await renew([...held]);
    } catch (error) {
      logger.warn({ err: error }, `renewing ${what} leases failed`);
    } finally {
      renewing = false;
    }
  }

  return {
    hold(id: string): void {
      held.add(id);
    },
    release(id: string): void {
      held.delete(id);
    },
    /** Stops renewing every lease held and says which they were (they are to be given back). */
    releaseAll(): string[] {
      const ids = [...held];
      held.clear();
      return ids;
    },
    start(): void {
      timer = setInterval(() => void renewAll(), everyMs);
      timer.unref();
    },
    stop(): void {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
