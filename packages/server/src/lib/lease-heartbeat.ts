// Renews the leases of work claimed by this process until it is recorded: while the process lives, another
// process never takes that work over; once it dies, the leases run out and the work is taken again.
import type { FastifyBaseLogger } from 'fastify';

export interface LeaseHeartbeatOptions {
  /** Extends the leases of these ids, each with the token its claim gave ('' where there is none), in one statement. */
  renew: (held: [id: string, token: string][]) => Promise<void>;
  everyMs: number;
  logger: FastifyBaseLogger;
  /** Names the work in the log line of a failed renewal. */
  what: string;
}

export function createLeaseHeartbeat({ renew, everyMs, logger, what }: LeaseHeartbeatOptions) {
  /** Held here, each with its lease token. */
  const held = new Map<string, string>();
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
    hold(id: string, token = ''): void {
      held.set(id, token);
    },
    holds(id: string): boolean {
      return held.has(id);
    },
    get size(): number {
      return held.size;
    },
    release(id: string): void {
      held.delete(id);
    },
    /** Stops renewing every lease held and says which they were (they are to be given back). */
    releaseAll(): [id: string, token: string][] {
      const all = [...held];
      held.clear();
      return all;
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
