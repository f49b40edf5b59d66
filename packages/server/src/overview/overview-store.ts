// SQL of the overview: each figure is read from an index over the window (migration 0009) or from counters.
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.ts';

export function createOverviewStore(db: Executor) {
  return {
    async conversationsPerDay(accountId: string, since: Date): Promise<{ day: string; count: number }[]> {
      return queryRows<{ day: string; count: number }>(
        db,
        sql`select to_char(date_trunc('day', created_at at time zone 'UTC'), 'YYYY-MM-DD') as day, count(*)::int as count
            from chats where account_id = ${accountId} and created_at >= ${since.toISOString()}::timestamptz
            group by 1 order by 1`,
      );
    },

    async agentReplies(accountId: string, since: Date): Promise<{ answered: number; fellBack: number }> {
      const [row] = await queryRows<{ answered: number; fell_back: number }>(
        db,
        sql`select count(*) filter (where not fallback)::int as answered, count(*) filter (where fallback)::int as fell_back
            from messages where account_id = ${accountId} and origin = 'agent' and created_at >= ${since.toISOString()}::timestamptz`,
      );
      return { answered: row?.answered ?? 0, fellBack: row?.fell_back ?? 0 };
    },

    async corrections(accountId: string, since: Date): Promise<number> {
      const [row] = await queryRows<{ count: number }>(
        db,
        sql`select count(*)::int as count from knowledge_entries e join knowledge_bases b on b.id = e.knowledge_base_id
            where b.account_id = ${accountId} and e.source = 'correction' and e.created_at >= ${since.toISOString()}::timestamptz`,
      );
      return row?.count ?? 0;
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
