// SQL of actions and their runs. Every statement is scoped by account: another account's action does not exist here.
// Secret header values are sealed on the way in and opened on the way out (lib/secret-box.ts): the database never
// holds them in clear. Also the two facts a run needs about a chat (its verified identity) and an entry (its action).
import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { actionRuns, actions, channels, knowledgeEntries, type StoredActionHeader } from '../db/schema.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import type { ActionDefinition, ActionFields } from './action-definition.ts';

type ActionRow = typeof actions.$inferSelect;
export type ActionRunRow = typeof actionRuns.$inferSelect;

export function createActionsStore(db: Executor, box: SecretBox) {
  const sealHeaders = (headers: ActionFields['headers']): StoredActionHeader[] =>
    headers.map((header) => ({ name: header.name, value: header.secret ? box.seal(header.value) : header.value, secret: header.secret }));
  const open = (row: ActionRow): ActionDefinition => ({
    ...row,
    kind: row.kind as ActionDefinition['kind'],
    method: row.method as ActionDefinition['method'],
    headers: row.headers.map((header) => ({ ...header, value: header.secret ? box.open(header.value) : header.value })),
  });
  const writable = (fields: ActionFields) => ({ ...fields, headers: sealHeaders(fields.headers), body: fields.body ?? null });

  return {
    async list(accountId: string): Promise<ActionDefinition[]> {
      const rows = await db.select().from(actions).where(eq(actions.accountId, accountId)).orderBy(asc(actions.name));
      return rows.map(open);
    },

    async find(accountId: string, id: string): Promise<ActionDefinition | undefined> {
      const [row] = await db.select().from(actions).where(and(eq(actions.accountId, accountId), eq(actions.id, id)));
      return row && open(row);
    },

    /** The enabled actions of the account among `ids` (a channel's), by name. */
    async enabledAmong(accountId: string, ids: readonly string[]): Promise<ActionDefinition[]> {
      if (ids.length === 0) return [];
      const rows = await db
        .select()
        .from(actions)
        .where(and(eq(actions.accountId, accountId), inArray(actions.id, [...ids]), eq(actions.enabled, true)))
        .orderBy(asc(actions.name));
      return rows.map(open);
    },

    /** The names the account's actions already have. */
    async names(accountId: string): Promise<Set<string>> {
      const rows = await db.select({ name: actions.name }).from(actions).where(eq(actions.accountId, accountId));
      return new Set(rows.map((row) => row.name));
    },

    /** Undefined when the account has an action of this name already. */
    async insert(row: ActionFields & { id: string; accountId: string; now: Date }): Promise<ActionDefinition | undefined> {
      const { now, ...fields } = row;
      try {
        const [inserted] = await db
          .insert(actions)
          .values({ ...writable(fields), id: row.id, accountId: row.accountId, createdAt: now, updatedAt: now })
          .returning();
        return inserted && open(inserted);
      } catch (error) {
        if (isUniqueViolation(error)) return undefined;
        throw error;
      }
    },

    /** 'missing' when the account has no such action; 'taken' when another one has the name. */
    async update(accountId: string, id: string, fields: ActionFields, now: Date): Promise<ActionDefinition | 'missing' | 'taken'> {
      try {
        const [row] = await db
          .update(actions)
          .set({ ...writable(fields), updatedAt: now })
          .where(and(eq(actions.accountId, accountId), eq(actions.id, id)))
          .returning();
        return row ? open(row) : 'missing';
      } catch (error) {
        if (isUniqueViolation(error)) return 'taken';
        throw error;
      }
    },

    /** Deletes the action: its runs go with it, entries lose it by their foreign key. */
    async remove(accountId: string, id: string): Promise<boolean> {
      const deleted = await db
        .delete(actions)
        .where(and(eq(actions.accountId, accountId), eq(actions.id, id)))
        .returning({ id: actions.id });
      return deleted.length > 0;
    },

    /** The account's channels whose agent may use the action, with their list. */
    async channelsUsing(accountId: string, id: string): Promise<{ id: string; actionIds: string[] }[]> {
      return db
        .select({ id: channels.id, actionIds: channels.actionIds })
        .from(channels)
        .where(and(eq(channels.accountId, accountId), sql`${id}::uuid = any(${channels.actionIds})`));
    },

    async insertRun(row: typeof actionRuns.$inferInsert): Promise<void> {
      await db.insert(actionRuns).values(row);
    },

    /** Runs of the account's action, newest first, after the (createdAt, id) of `after`. */
    async listRuns(accountId: string, actionId: string, limit: number, after?: { at: Date; id: string }): Promise<ActionRunRow[]> {
      return db
        .select()
        .from(actionRuns)
        .where(
          and(
            eq(actionRuns.accountId, accountId),
            eq(actionRuns.actionId, actionId),
            after ? sql`(${actionRuns.createdAt}, ${actionRuns.id}) < (${after.at.toISOString()}::timestamptz, ${after.id}::uuid)` : undefined,
          ),
        )
        .orderBy(desc(actionRuns.createdAt), desc(actionRuns.id))
        .limit(limit);
    },

    /** The chat's most recent `limit` runs with their action's name and kind, newest first. */
    async runsOfChat(accountId: string, chatId: string, limit: number) {
      return db
        .select({ run: actionRuns, name: actions.name, kind: actions.kind })
        .from(actionRuns)
        .innerJoin(actions, eq(actions.id, actionRuns.actionId))
        .where(and(eq(actionRuns.accountId, accountId), eq(actionRuns.chatId, chatId)))
        .orderBy(desc(actionRuns.createdAt), desc(actionRuns.id))
        .limit(limit);
    },

    /** The verified identifier of a widget conversation's visitor (set only from a verified identity), or null. */
    async widgetIdentity(channelId: string, conversationId: string): Promise<string | null> {
      const [row] = await queryRows<{ identifier: string | null }>(
        db,
        sql`select v.identifier from widget_conversations c join widget_visitors v on v.id = c.visitor_id
            where c.id = ${conversationId}::uuid and c.channel_id = ${channelId}`,
      );
      return row?.identifier ?? null;
    },

    /** The action of a knowledge entry, or null. */
    async entryActionId(entryId: string): Promise<string | null> {
      const [row] = await db.select({ actionId: knowledgeEntries.actionId }).from(knowledgeEntries).where(eq(knowledgeEntries.id, entryId));
      return row?.actionId ?? null;
    },
  };
}

export type ActionsStore = ReturnType<typeof createActionsStore>;
