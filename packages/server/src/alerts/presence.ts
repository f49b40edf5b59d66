// Which members have the web account open (issue #33: alert e-mails go out only when no one is there): each process
// keeps a row per member with a live stream (GET /console/v1/live) in member_presence, renewed by a heartbeat, so
// every process, with or without workers, answers "is anyone online?" the same way (alerts-store.ts `online`).
import type { FastifyBaseLogger } from 'fastify';
import { newId } from '../lib/ids.ts';
import type { AlertsStore } from './alerts-store.ts';

/** How often this process renews its members' rows (well within PRESENCE_TTL_MS). */
export const PRESENCE_HEARTBEAT_MS = 20_000;

export interface Presence {
  /** A live stream of the member opened; the returned function is called when it closes. */
  connected(accountId: string, memberId: string): () => void;
  start(): void;
  stop(): Promise<void>;
}

export function createPresence(deps: {
  store: Pick<AlertsStore, 'markPresent' | 'markAbsent'>;
  logger: FastifyBaseLogger;
  heartbeatMs?: number;
}): Presence {
  const { store, logger } = deps;
  const processId = newId();
  /** Open streams per member of this process. */
  const open = new Map<string, { accountId: string; streams: number }>();
  let timer: NodeJS.Timeout | undefined;
  const failed = (what: string) => (error: unknown) => logger.warn({ err: error }, `recording presence (${what}) failed`);

  return {
    connected(accountId, memberId) {
      const entry = open.get(memberId) ?? { accountId, streams: 0 };
      entry.streams += 1;
      open.set(memberId, entry);
      if (entry.streams === 1) store.markPresent(processId, [{ memberId, accountId }]).catch(failed('connect'));
      let closed = false;
      return () => {
        if (closed) return;
        closed = true;
        entry.streams -= 1;
        if (entry.streams > 0 || open.get(memberId) !== entry) return;
        open.delete(memberId);
        store.markAbsent(processId, memberId).catch(failed('close'));
      };
    },
    start() {
      timer ??= setInterval(() => {
        const members = [...open].map(([memberId, { accountId }]) => ({ memberId, accountId }));
        store.markPresent(processId, members).catch(failed('heartbeat'));
      }, deps.heartbeatMs ?? PRESENCE_HEARTBEAT_MS);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      open.clear();
      await store.markAbsent(processId).catch(failed('stop'));
    },
  };
}
