// SQL of the overview: the daily counters of overview_days (migration 0009) and the chat list's counters, so a
// window of days is a sum over a few rows however many chats and messages the account has.
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.ts';

export interface OverviewDay {
  day: string;
  conversations: number;
  answered: number;
  answeredAfterChoice: number;
  clarified: number;
  fellBack: number;
  handedOff: number;
  corrections: number;
}

export function createOverviewStore(db: Executor) {
  return {
    /** Days of the window that have figures, oldest first (`since` is a UTC date, YYYY-MM-DD). */
    async days(accountId: string, since: string): Promise<OverviewDay[]> {
      return queryRows<OverviewDay>(
        db,
        sql`select to_char(day, 'YYYY-MM-DD') as day, sum(conversations)::int as conversations, sum(answered)::int as answered,
                   sum(answered_after_choice)::int as "answeredAfterChoice", sum(clarified)::int as clarified,
                   sum(fell_back)::int as "fellBack", sum(handed_off)::int as "handedOff", sum(corrections)::int as corrections
            from overview_days where account_id = ${accountId} and day >= ${since}::date
            group by day order by day`,
      );
    },

    /** From the sharded counters of the chat list (migration 0008): a sum over a few rows. */
    async chatTotals(accountId: string): Promise<{ chats: number; done: number }> {
      const [row] = await queryRows<{ chats: number; done: number }>(
        db,
        sql`select coalesce(sum(chats), 0)::int as chats, coalesce(sum(done_chats), 0)::int as done
            from chat_counts where account_id = ${accountId}`,
      );
      return { chats: row?.chats ?? 0, done: row?.done ?? 0 };
    },
  };
}

export type OverviewStore = ReturnType<typeof createOverviewStore>;
