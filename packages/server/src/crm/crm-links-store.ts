// SQL of the chats synced to CRM connections (crm_links): the sync's requests, tries, outcome and failures. The
// job's own lookups go by the ids of its payload; the console's list is scoped by account. Part of the CRM store
// (crm-store.ts), which spreads these queries into its own.
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { chats, crmConnections, crmLinks } from '../db/schema.ts';

export type CrmLinkRow = typeof crmLinks.$inferSelect;
/** A link with the chat's name, as the console lists it. */
export interface CrmLinkView {
  link: CrmLinkRow;
  dialogName: string;
}

const MAX_ERROR = 2000;

export function createCrmLinksStore(db: Executor) {
  const linkColumns = { link: crmLinks, dialogName: chats.dialogName };

  return {
    /** The chat's task became done: its sync to this connection is pending again (ids kept, tries from zero). */
    async requestSync(row: { connectionId: string; chatId: string; accountId: string; at: Date }): Promise<void> {
      await db
        .insert(crmLinks)
        .values({ ...row, status: 'pending', requestedAt: row.at, updatedAt: row.at })
        .onConflictDoUpdate({
          target: [crmLinks.connectionId, crmLinks.chatId],
          set: { status: 'pending', attempts: 0, lastError: null, requestedAt: row.at, updatedAt: row.at },
        });
    },

    async findLink(connectionId: string, chatId: string): Promise<CrmLinkRow | undefined> {
      const [row] = await db
        .select()
        .from(crmLinks)
        .where(and(eq(crmLinks.connectionId, connectionId), eq(crmLinks.chatId, chatId)));
      return row;
    },

    async countAttempt(connectionId: string, chatId: string): Promise<void> {
      await db
        .update(crmLinks)
        .set({ attempts: sql`${crmLinks.attempts} + 1` })
        .where(and(eq(crmLinks.connectionId, connectionId), eq(crmLinks.chatId, chatId)));
    },

    /** The CRM's ids, kept as soon as they are known (a retry after a failure finds them). */
    async setIds(connectionId: string, chatId: string, ids: { contactId?: string; dealId?: string }): Promise<void> {
      await db
        .update(crmLinks)
        .set(ids)
        .where(and(eq(crmLinks.connectionId, connectionId), eq(crmLinks.chatId, chatId)));
    },

    async noteError(connectionId: string, chatId: string, error: string, at: Date): Promise<void> {
      await db
        .update(crmLinks)
        .set({ lastError: error.slice(0, MAX_ERROR), updatedAt: at })
        .where(and(eq(crmLinks.connectionId, connectionId), eq(crmLinks.chatId, chatId)));
    },

    /**
     * The sync ended. Only a pending link whose request is the one synced (`requestedAt`) is changed: a completion
     * that came meanwhile stays pending for the job's next run.
     */
    async finish(
      connectionId: string,
      chatId: string,
      requestedAt: Date,
      outcome: { status: 'synced' } | { status: 'failed'; error: string },
      at: Date,
    ): Promise<void> {
      await db
        .update(crmLinks)
        .set(
          outcome.status === 'synced'
            ? { status: 'synced', lastError: null, syncedAt: at, updatedAt: at }
            : { status: 'failed', lastError: outcome.error.slice(0, MAX_ERROR), updatedAt: at },
        )
        .where(
          and(
            eq(crmLinks.connectionId, connectionId),
            eq(crmLinks.chatId, chatId),
            sql`${crmLinks.status} = 'pending'`,
            eq(crmLinks.requestedAt, requestedAt),
          ),
        );
    },

    /** The connection's most recently changed sync. */
    async lastLink(connectionId: string): Promise<CrmLinkView | undefined> {
      const [row] = await db
        .select(linkColumns)
        .from(crmLinks)
        .innerJoin(chats, eq(chats.id, crmLinks.chatId))
        .where(eq(crmLinks.connectionId, connectionId))
        .orderBy(desc(crmLinks.updatedAt), desc(crmLinks.chatId))
        .limit(1);
      return row;
    },

    async countFailed(connectionId: string): Promise<number> {
      const [row] = await db
        .select({ count: sql<number>`count(*)::int` })
        .from(crmLinks)
        .where(and(eq(crmLinks.connectionId, connectionId), sql`${crmLinks.status} = 'failed'`));
      return row?.count ?? 0;
    },

    async listFailures(accountId: string, filter: { connectionId?: string | undefined; limit: number }) {
      return db
        .select({ ...linkColumns, kind: crmConnections.kind })
        .from(crmLinks)
        .innerJoin(chats, eq(chats.id, crmLinks.chatId))
        .innerJoin(crmConnections, eq(crmConnections.id, crmLinks.connectionId))
        .where(
          and(
            eq(crmLinks.accountId, accountId),
            sql`${crmLinks.status} = 'failed'`,
            filter.connectionId === undefined ? undefined : eq(crmLinks.connectionId, filter.connectionId),
          ),
        )
        .orderBy(desc(crmLinks.updatedAt), desc(crmLinks.chatId))
        .limit(filter.limit);
    },
  };
}
