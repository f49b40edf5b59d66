// Which members have the web account open (issue #33: alert e-mails go out only when no one is there): each process
// keeps a row per member with a live stream (GET /console/v1/live) in member_presence, renewed by a heartbeat, so
// every process, with or without workers, answers "is anyone online?" the same way (alerts-store.ts `online`).
import type { FastifyBaseLogger } from 'fastify';
import { newId } from '../lib/ids.ts';
import type { AlertsStore } from './alerts-store.ts';

/** How often this process renews its members' rows (well within PRESENCE_TTL_MS). */
export const PRESENCE_HEARTBEAT_MS = 20_000;
/**
 * How long after a member's last stream closed one who chose `awayWhenOffline` becomes away (issue #44), unless a
 * stream of theirs opened meanwhile: a page reload or a short network loss is no leaving.
 */
export const AWAY_AFTER_CLOSE_MS = 30_000;

export interface Presence {
  /** A live stream of the member opened; the returned function is called when it closes. */
  connected(accountId: string, memberId: string): () => void;
  start(): void;
  stop(): Promise<void>;
}

export function createPresence(deps: {
  store: Pick<AlertsStore, 'markPresent' | 'markAbsent' | 'awayIfOffline'>;
  logger: FastifyBaseLogger;
  heartbeatMs?: number;
  awayAfterCloseMs?: number;
}): Presence {
  const { store, logger } = deps;
  const processId = newId();
  /** Open streams per member of this process. */
  const open = new Map<string, { accountId: string; streams: number }>();
  let timer: NodeJS.Timeout | undefined;
  /** Members whose last stream here closed, waiting to become away (if they chose so). */
  const leaving = new Map<string, NodeJS.Timeout>();
  const failed = (what: string) => (error: unknown) => logger.warn({ err: error }, `recording presence (${what}) failed`);

  return {
    connected(accountId, memberId) {
      clearTimeout(leaving.get(memberId));
      leaving.delete(memberId);
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
        const away = setTimeout(() => {
          leaving.delete(memberId);
          if (!open.has(memberId)) store.awayIfOffline(memberId).catch(failed('away'));
        }, deps.awayAfterCloseMs ?? AWAY_AFTER_CLOSE_MS);
        away.unref();
        leaving.set(memberId, away);
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
      for (const away of leaving.values()) clearTimeout(away);
      leaving.clear();
      open.clear();
      await store.markAbsent(processId).catch(failed('stop'));
    },
  };
}
