// SQL of the agent: the customer messages waiting for it, the chat's history before them, failures.
import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { agentFailures, chats, messages } from '../db/schema.ts';
import type { MessageRow } from '../messages/messages-store.ts';

export type AgentFailureRow = typeof agentFailures.$inferSelect;

export function createAgentStore(db: Executor) {
  return {
    /** The chat's customer messages the agent has not answered yet, oldest first. */
    async waiting(chatId: string): Promise<MessageRow[]> {
      return db
        .select()
        .from(messages)
        .where(and(eq(messages.chatId, chatId), eq(messages.awaitingAgent, true)))
        .orderBy(asc(messages.createdAt), asc(messages.id));
    },

    /** Up to `limit` messages before `first`, oldest first. */
    async before(chatId: string, first: MessageRow, limit: number): Promise<MessageRow[]> {
      const rows = await db
        .select()
        .from(messages)
        .where(
          and(
            eq(messages.chatId, chatId),
            sql`(${messages.createdAt}, ${messages.id}) < (${first.createdAt.toISOString()}::timestamptz, ${first.id}::uuid)`,
          ),
        )
        .orderBy(desc(messages.createdAt), desc(messages.id))
        .limit(limit);
      return rows.reverse();
    },

    /** Marks the messages handled; returns the ids that were still waiting (another run may have taken the rest). */
    async settle(messageIds: readonly string[]): Promise<string[]> {
      if (messageIds.length === 0) return [];
      const rows = await db
        .update(messages)
        .set({ awaitingAgent: false })
        .where(and(inArray(messages.id, [...messageIds]), eq(messages.awaitingAgent, true)))
        .returning({ id: messages.id });
      return rows.map((row) => row.id);
    },

    async markAutoReplied(chatId: string, at: Date): Promise<void> {
      await db.update(chats).set({ autoReplyAt: at }).where(eq(chats.id, chatId));
    },

    async insertFailure(row: typeof agentFailures.$inferInsert): Promise<void> {
      await db.insert(agentFailures).values(row);
    },

    async listFailures(accountId: string, filter: { channelId?: string; limit: number }): Promise<AgentFailureRow[]> {
      return db
        .select()
        .from(agentFailures)
        .where(
          and(
            eq(agentFailures.accountId, accountId),
            filter.channelId === undefined ? undefined : eq(agentFailures.channelId, filter.channelId),
          ),
        )
        .orderBy(desc(agentFailures.createdAt), desc(agentFailures.id))
        .limit(filter.limit);
    },
  };
}

export type AgentStore = ReturnType<typeof createAgentStore>;
