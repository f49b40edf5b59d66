// SQL of the audit log (issue #45, item 4): an account's events newest first by keyset (at, id), and the prune past
// the retention. Every read is scoped by account.
import { and, desc, eq, gte, like, lt, or, sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.ts';
import { auditEvents } from '../db/schema.ts';

export type AuditRow = typeof auditEvents.$inferSelect;

export interface AuditFilter {
  accountId: string;
  /** A member's or key's id, or an actor kind. */
  actor?: { id: string } | { kind: string };
  /** An exact kind, or its first part (`channel`: every `channel.*`). */
  kind?: { exact: string } | { prefix: string };
  from?: Date;
  /** Exclusive. */
  before?: Date;
  after?: { at: Date; id: string };
}

export function createAuditStore(db: Executor) {
  return {
    async page(filter: AuditFilter, limit: number): Promise<AuditRow[]> {
      const conditions: (SQL | undefined)[] = [eq(auditEvents.accountId, filter.accountId)];
      if (filter.actor) {
        conditions.push('id' in filter.actor ? eq(auditEvents.actorId, filter.actor.id) : eq(auditEvents.actorKind, filter.actor.kind));
      }
      if (filter.kind) {
        conditions.push(
          'exact' in filter.kind
            ? eq(auditEvents.kind, filter.kind.exact)
            : like(auditEvents.kind, `${filter.kind.prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}.%`),
        );
      }
      if (filter.from) conditions.push(gte(auditEvents.at, filter.from));
      if (filter.before) conditions.push(lt(auditEvents.at, filter.before));
      if (filter.after) {
        const { at, id } = filter.after;
        conditions.push(or(lt(auditEvents.at, at), and(eq(auditEvents.at, at), lt(auditEvents.id, id))));
      }
      return db
        .select()
        .from(auditEvents)
        .where(and(...conditions))
        .orderBy(desc(auditEvents.at), desc(auditEvents.id))
        .limit(limit);
    },

    /** Deletes up to `limit` events older than `before` (every account); how many went. */
    async prune(before: Date, limit: number): Promise<number> {
      const rows = await queryRows<{ id: string }>(
        db,
        sql`delete from audit_events where id in (
              select id from audit_events where at < ${before}::timestamptz limit ${limit} for update skip locked
            ) returning id`,
      );
      return rows.length;
    },
  };
}
