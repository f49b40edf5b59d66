// The overview of the web account's first page: new chats per day, the agent's replies answered / after a choice /
// clarified / fell back / handed off per day, corrections, tasks done. Days are UTC days; the window ends today.
import type { Overview } from '@parley/contracts';
import type { Clock } from '../lib/clock.ts';
import type { OverviewStore } from './overview-store.ts';

const DAY_MS = 24 * 60 * 60_000;

export function createOverviewService({ store, clock }: { store: OverviewStore; clock: Clock }) {
  return {
    async overview(accountId: string, days = 14): Promise<Overview> {
      const today = Math.floor(clock.now().getTime() / DAY_MS) * DAY_MS;
      const dates = Array.from({ length: days }, (_, i) => new Date(today - (days - 1 - i) * DAY_MS).toISOString().slice(0, 10));
      const [rows, totals] = await Promise.all([store.days(accountId, dates[0] ?? ''), store.chatTotals(accountId)]);
      const byDay = new Map(rows.map((row) => [row.day, row]));
      const sum = (pick: (row: (typeof rows)[number]) => number) => rows.reduce((total, row) => total + pick(row), 0);
      return {
        days,
        conversationsPerDay: dates.map((date) => ({ date, conversations: byDay.get(date)?.conversations ?? 0 })),
        agentReplies: {
          answered: sum((row) => row.answered),
          answeredAfterChoice: sum((row) => row.answeredAfterChoice),
          clarified: sum((row) => row.clarified),
          fellBack: sum((row) => row.fellBack),
          handedOff: sum((row) => row.handedOff),
        },
        agentRepliesPerDay: dates.map((date) => {
          const row = byDay.get(date);
          return {
            date,
            answered: row?.answered ?? 0,
            answeredAfterChoice: row?.answeredAfterChoice ?? 0,
            clarified: row?.clarified ?? 0,
            fellBack: row?.fellBack ?? 0,
            handedOff: row?.handedOff ?? 0,
          };
        }),
        corrections: sum((row) => row.corrections),
        tasksDone: totals.done,
        chats: totals.chats,
      };
    },
  };
}

export type OverviewService = ReturnType<typeof createOverviewService>;
