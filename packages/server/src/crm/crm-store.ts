// SQL of CRM connections and of the chats they synced (crm_connections, crm_links). Every query is scoped by
// account, except the job's own lookups by the ids of its payload. The token is sealed here on the way in and
// opened on the way out (lib/secret-box.ts): the database never holds it in clear.
// The queries of the synced chats are in crm-links-store.ts, spread here.
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { crmConnections } from '../db/schema.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import { createCrmLinksStore } from './crm-links-store.ts';

export type { CrmLinkRow, CrmLinkView } from './crm-links-store.ts';

export type CrmConnectionRow = typeof crmConnections.$inferSelect;

export function createCrmStore(db: Executor, box: SecretBox) {
  const open = (row: CrmConnectionRow): CrmConnectionRow => ({ ...row, token: box.open(row.token) });

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

    ...createCrmLinksStore(db),
  };
}

export type CrmStore = ReturnType<typeof createCrmStore>;
