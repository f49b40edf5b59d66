// SQL of CRM connections and of the chats they synced (crm_connections, crm_links). Every query is scoped by
// account, except the job's own lookups by the ids of its payload. The token is sealed here on the way in and
// opened on the way out (lib/secret-box.ts): the database never holds it in clear.
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { chats, crmConnections, crmLinks } from '../db/schema.ts';
import type { SecretBox } from '../lib/secret-box.ts';

export type CrmConnectionRow = typeof crmConnections.$inferSelect;
export type CrmLinkRow = typeof crmLinks.$inferSelect;
/** A link with the chat's name, as the console lists it. */
export interface CrmLinkView {
  link: CrmLinkRow;
  dialogName: string;
}

const MAX_ERROR = 2000;

export function createCrmStore(db: Executor, box: SecretBox) {
  const open = (row: CrmConnectionRow): CrmConnectionRow => ({ ...row, token: box.open(row.token) });
  const linkColumns = { link: crmLinks, dialogName: chats.dialogName };

  return {
    async insertConnection(row: typeof crmConnections.$inferInsert): Promise<CrmConnectionRow> {
      const [created] = await db
        .insert(crmConnections)
        .values({ ...row, token: box.seal(row.token) })
        .returning();
      if (!created) throw new Error('crm connection insert returned nothing');
      return open(created);
    },

    async findConnection(accountId: string, id: string): Promise<CrmConnectionRow | undefined> {
      const [row] = await db
        .select()
        .from(crmConnections)
        .where(and(eq(crmConnections.accountId, accountId), eq(crmConnections.id, id)));
      return row && open(row);
    },

    async listConnections(accountId: string): Promise<CrmConnectionRow[]> {
      const rows = await db
        .select()
        .from(crmConnections)
        .where(eq(crmConnections.accountId, accountId))
        .orderBy(asc(crmConnections.createdAt), asc(crmConnections.id));
      return rows.map(open);
    },

    /** The connections a chat of this channel is synced to (`channel_ids` null = every channel). */
    async connectionsForChannel(accountId: string, channelId: string): Promise<Pick<CrmConnectionRow, 'id'>[]> {
      return db
        .select({ id: crmConnections.id })
        .from(crmConnections)
        .where(
          and(
            eq(crmConnections.accountId, accountId),
            sql`(${crmConnections.channelIds} IS NULL OR ${crmConnections.channelIds} @> jsonb_build_array(${channelId}::text))`,
          ),
        );
    },

    async setChannels(accountId: string, id: string, channelIds: string[] | null, at: Date): Promise<CrmConnectionRow | undefined> {
      const [row] = await db
        .update(crmConnections)
        .set({ channelIds, updatedAt: at })
        .where(and(eq(crmConnections.accountId, accountId), eq(crmConnections.id, id)))
        .returning();
      return row && open(row);
    },

    async deleteConnection(accountId: string, id: string): Promise<boolean> {
      const rows = await db
        .delete(crmConnections)
        .where(and(eq(crmConnections.accountId, accountId), eq(crmConnections.id, id)))
        .returning({ id: crmConnections.id });
      return rows.length > 0;
    },

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

export type CrmStore = ReturnType<typeof createCrmStore>;
