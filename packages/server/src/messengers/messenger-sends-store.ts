// SQL of replies going out to messenger chats (messenger_sends).
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { channels, messengerSends } from '../db/schema.ts';

export type MessengerSendRow = typeof messengerSends.$inferSelect;

export function createMessengerSendsStore(db: Executor) {
  return {
    async insert(row: typeof messengerSends.$inferInsert): Promise<void> {
      await db.insert(messengerSends).values(row);
    },

    async find(id: string): Promise<MessengerSendRow | undefined> {
      const [row] = await db.select().from(messengerSends).where(eq(messengerSends.id, id));
      return row;
    },

    /** One more try began. */
    async countAttempt(id: string): Promise<void> {
      await db.update(messengerSends).set({ attempts: sql`${messengerSends.attempts} + 1` }).where(eq(messengerSends.id, id));
    },

    async setPartsSent(id: string, partsSent: number, lastError: string | null = null): Promise<void> {
      await db.update(messengerSends).set({ partsSent, lastError }).where(eq(messengerSends.id, id));
    },

    async noteError(id: string, error: string): Promise<void> {
      await db.update(messengerSends).set({ lastError: error.slice(0, 2000) }).where(eq(messengerSends.id, id));
    },

    async finish(id: string, outcome: { status: 'sent' } | { status: 'failed'; error: string }, at: Date): Promise<void> {
      await db
        .update(messengerSends)
        .set({ status: outcome.status, finishedAt: at, ...(outcome.status === 'failed' ? { lastError: outcome.error.slice(0, 2000) } : {}) })
        .where(eq(messengerSends.id, id));
    },

    async listFailures(accountId: string, filter: { channelId?: string | undefined; limit: number }) {
      return db
        .select({ send: messengerSends, channelKind: channels.kind })
        .from(messengerSends)
        .innerJoin(channels, eq(channels.id, messengerSends.channelId))
        .where(
          and(
            eq(messengerSends.accountId, accountId),
            sql`${messengerSends.status} = 'failed'`,
            filter.channelId === undefined ? undefined : eq(messengerSends.channelId, filter.channelId),
          ),
        )
        .orderBy(desc(messengerSends.finishedAt), desc(messengerSends.id))
        .limit(filter.limit);
    },
  };
}

export type MessengerSendsStore = ReturnType<typeof createMessengerSendsStore>;
