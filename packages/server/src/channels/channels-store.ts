// SQL of channels. Every query is scoped by account: another account's channel does not exist here.
import { and, asc, eq } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { channels, knowledgeBases } from '../db/schema.ts';

export type ChannelRow = typeof channels.$inferSelect;
export type NewChannelRow = typeof channels.$inferInsert;
export type ChannelChanges = Partial<Omit<NewChannelRow, 'id' | 'accountId' | 'kind' | 'createdAt'>>;

export function createChannelsStore(db: Executor) {
  return {
    async insert(row: NewChannelRow): Promise<ChannelRow> {
      const [created] = await db.insert(channels).values(row).returning();
      if (!created) throw new Error('channel insert returned nothing');
      return created;
    },

    async find(accountId: string, id: string): Promise<ChannelRow | undefined> {
      const [row] = await db
        .select()
        .from(channels)
        .where(and(eq(channels.accountId, accountId), eq(channels.id, id)));
      return row;
    },

    /**
     * The one lookup by id alone: a messenger's inbound webhook names only the channel (its signature or secret,
     * checked next with these credentials, is what proves the request).
     */
    async findForInbound(id: string): Promise<ChannelRow | undefined> {
      const [row] = await db.select().from(channels).where(eq(channels.id, id));
      return row;
    },

    /** The messenger connector's last error (null clears it), shown on the channel in the console. */
    async setConnectorError(id: string, message: string | null, at: Date): Promise<void> {
      await db
        .update(channels)
        .set({ connectorError: message === null ? null : message.slice(0, 2000), connectorErrorAt: message === null ? null : at })
        .where(eq(channels.id, id));
    },

    async list(accountId: string): Promise<ChannelRow[]> {
      return db.select().from(channels).where(eq(channels.accountId, accountId)).orderBy(asc(channels.createdAt), asc(channels.id));
    },

    async update(accountId: string, id: string, changes: ChannelChanges): Promise<ChannelRow | undefined> {
      const [row] = await db
        .update(channels)
        .set(changes)
        .where(and(eq(channels.accountId, accountId), eq(channels.id, id)))
        .returning();
      return row;
    },

    async delete(accountId: string, id: string): Promise<boolean> {
      const rows = await db
        .delete(channels)
        .where(and(eq(channels.accountId, accountId), eq(channels.id, id)))
        .returning({ id: channels.id });
      return rows.length > 0;
    },

    async knowledgeBaseExists(accountId: string, knowledgeBaseId: string): Promise<boolean> {
      const rows = await db
        .select({ id: knowledgeBases.id })
        .from(knowledgeBases)
        .where(and(eq(knowledgeBases.accountId, accountId), eq(knowledgeBases.id, knowledgeBaseId)));
      return rows.length > 0;
    },
  };
}

export type ChannelsStore = ReturnType<typeof createChannelsStore>;
