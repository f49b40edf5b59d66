// The overview of the web account's first page: conversations per day, answered vs fell back, corrections,
// tasks done. Days are UTC days; the window ends today.
import type { Overview } from '@parley/contracts';
import type { Clock } from '../lib/clock.ts';
import type { OverviewStore } from './overview-store.ts';

const DAY_MS = 24 * 60 * 60_000;

export function createOverviewService({ store, clock }: { store: OverviewStore; clock: Clock }) {
  return {
    async overview(accountId: string, days = 14): Promise<Overview> {
      const today = Math.floor(clock.now().getTime() / DAY_MS) * DAY_MS;
      const since = new Date(today - (days - 1) * DAY_MS);
      const [perDay, agentReplies, corrections, totals] = await Promise.all([
        store.conversationsPerDay(accountId, since),
        store.agentReplies(accountId, since),
        store.corrections(accountId, since),
        store.chatTotals(accountId),
      ]);
      const counts = new Map(perDay.map((row) => [row.day, row.count]));
      const conversationsPerDay = Array.from({ length: days }, (_, i) => {
        const date = new Date(since.getTime() + i * DAY_MS).toISOString().slice(0, 10);
        return { date, conversations: counts.get(date) ?? 0 };
      });
      return { days, conversationsPerDay, agentReplies, corrections, tasksDone: totals.done, chats: totals.chats };
    },
  };
}

export type OverviewService = ReturnType<typeof createOverviewService>;
