// SQL of channels. Every query is scoped by account: another account's channel does not exist here.
// Secrets (webhook signing secret, model API key, every messenger credential, the widget identity secret) are
// sealed here on the way in and opened on the way out (lib/secret-box.ts): the rest of the code sees plain
// values, the database never does.
import { and, asc, eq, inArray, isNotNull, notLike, or, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { actions, channels, knowledgeBases } from '../db/schema.ts';
import type { SecretBox } from '../lib/secret-box.ts';

export type ChannelRow = typeof channels.$inferSelect;
export type NewChannelRow = typeof channels.$inferInsert;
export type ChannelChanges = Partial<Omit<NewChannelRow, 'id' | 'accountId' | 'kind' | 'createdAt'>>;

type SecretFields = Pick<ChannelRow, 'webhookSecret' | 'agentApiKey' | 'credentials' | 'widgetIdentitySecret'>;

function mapSecrets<T extends Partial<SecretFields>>(row: T, map: (value: string) => string): T {
  const out = { ...row };
  if (typeof out.webhookSecret === 'string') out.webhookSecret = map(out.webhookSecret);
  if (typeof out.agentApiKey === 'string') out.agentApiKey = map(out.agentApiKey);
  if (typeof out.widgetIdentitySecret === 'string') out.widgetIdentitySecret = map(out.widgetIdentitySecret);
  if (out.credentials) out.credentials = Object.fromEntries(Object.entries(out.credentials).map(([k, v]) => [k, map(v)]));
  return out;
}

export function createChannelsStore(db: Executor, box: SecretBox) {
  const seal = <T extends Partial<SecretFields>>(row: T): T => mapSecrets(row, (value) => box.seal(value));
  const open = (row: ChannelRow): ChannelRow => mapSecrets(row, (value) => box.open(value));

  return {
    async insert(row: NewChannelRow): Promise<ChannelRow> {
      const [created] = await db.insert(channels).values(seal(row)).returning();
      if (!created) throw new Error('channel insert returned nothing');
      return open(created);
    },

    async find(accountId: string, id: string): Promise<ChannelRow | undefined> {
      const [row] = await db
        .select()
        .from(channels)
        .where(and(eq(channels.accountId, accountId), eq(channels.id, id)));
      return row && open(row);
    },

    /**
     * The one lookup by id alone: a messenger's inbound webhook names only the channel (its signature or secret,
     * checked next with these credentials, is what proves the request).
     */
    async findForInbound(id: string): Promise<ChannelRow | undefined> {
      const [row] = await db.select().from(channels).where(eq(channels.id, id));
      return row && open(row);
    },

    /** The messenger connector's last error (null clears it), shown on the channel in the console. */
    async setConnectorError(id: string, message: string | null, at: Date): Promise<void> {
      await db
        .update(channels)
        .set({ connectorError: message === null ? null : message.slice(0, 2000), connectorErrorAt: message === null ? null : at })
        .where(eq(channels.id, id));
    },

    async list(accountId: string): Promise<ChannelRow[]> {
      const rows = await db.select().from(channels).where(eq(channels.accountId, accountId)).orderBy(asc(channels.createdAt), asc(channels.id));
      return rows.map(open);
    },

    async update(accountId: string, id: string, changes: ChannelChanges): Promise<ChannelRow | undefined> {
      const [row] = await db
        .update(channels)
        .set(seal(changes))
        .where(and(eq(channels.accountId, accountId), eq(channels.id, id)))
        .returning();
      return row && open(row);
    },

    /** Seals secrets stored in clear before encryption existed; run at start. Returns the channels changed. */
    async sealStoredSecrets(): Promise<number> {
      const clear = await db
        .select({
          id: channels.id,
          webhookSecret: channels.webhookSecret,
          agentApiKey: channels.agentApiKey,
          credentials: channels.credentials,
          widgetIdentitySecret: channels.widgetIdentitySecret,
        })
        .from(channels)
        .where(
          or(
            and(isNotNull(channels.webhookSecret), notLike(channels.webhookSecret, 'enc:v1:%')),
            and(isNotNull(channels.agentApiKey), notLike(channels.agentApiKey, 'enc:v1:%')),
            and(isNotNull(channels.widgetIdentitySecret), notLike(channels.widgetIdentitySecret, 'enc:v1:%')),
            sql`EXISTS (SELECT 1 FROM jsonb_each_text(${channels.credentials}) AS c WHERE c.value NOT LIKE 'enc:v1:%')`,
          ),
        );
      for (const row of clear) {
        const sealed = mapSecrets(row, (value) => (box.isSealed(value) ? value : box.seal(value)));
        await db
          .update(channels)
          .set({
            webhookSecret: sealed.webhookSecret,
            agentApiKey: sealed.agentApiKey,
            credentials: sealed.credentials,
            widgetIdentitySecret: sealed.widgetIdentitySecret,
          })
          .where(eq(channels.id, row.id));
      }
      return clear.length;
    },

    async delete(accountId: string, id: string): Promise<boolean> {
      const rows = await db
        .delete(channels)
        .where(and(eq(channels.accountId, accountId), eq(channels.id, id)))
        .returning({ id: channels.id });
      return rows.length > 0;
    },

    /** Which of `ids` are the account's actions (a channel lists only its own account's). */
    async ownActionIds(accountId: string, ids: readonly string[]): Promise<Set<string>> {
      const rows = await db
        .select({ id: actions.id })
        .from(actions)
        .where(and(eq(actions.accountId, accountId), inArray(actions.id, [...ids])));
      return new Set(rows.map((row) => row.id));
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
