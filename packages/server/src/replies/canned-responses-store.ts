// SQL of saved replies (issue #25).
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { cannedResponses } from '../db/schema.ts';

const columns = { id: cannedResponses.id, shortCode: cannedResponses.shortCode, text: cannedResponses.text };
export type CannedResponseRow = { id: string; shortCode: string; text: string };

export function createCannedResponsesStore(db: Executor) {
  return {
    async list(accountId: string): Promise<CannedResponseRow[]> {
      return db.select(columns).from(cannedResponses).where(eq(cannedResponses.accountId, accountId)).orderBy(asc(cannedResponses.shortCode));
    },

    /** Undefined when the account has a reply of this short code already. */
    async insert(row: CannedResponseRow & { accountId: string }): Promise<CannedResponseRow | undefined> {
      try {
        const [inserted] = await db.insert(cannedResponses).values(row).returning(columns);
        return inserted;
      } catch (error) {
        if (isUniqueViolation(error)) return undefined;
        throw error;
      }
    },

    /** 'missing' when the account has no such reply; 'taken' when another one has the short code. */
    async update(accountId: string, id: string, changes: { shortCode: string; text: string }): Promise<CannedResponseRow | 'missing' | 'taken'> {
      try {
        const [row] = await db
          .update(cannedResponses)
          .set({ ...changes, updatedAt: sql`now()` })
          .where(and(eq(cannedResponses.accountId, accountId), eq(cannedResponses.id, id)))
          .returning(columns);
        return row ?? 'missing';
      } catch (error) {
        if (isUniqueViolation(error)) return 'taken';
        throw error;
      }
    },

    async remove(accountId: string, id: string): Promise<boolean> {
      const rows = await db
        .delete(cannedResponses)
        .where(and(eq(cannedResponses.accountId, accountId), eq(cannedResponses.id, id)))
        .returning({ id: cannedResponses.id });
      return rows.length > 0;
    },
  };
}

export type CannedResponsesStore = ReturnType<typeof createCannedResponsesStore>;
