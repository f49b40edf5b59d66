// SQL of auto-assignment (issue #44): the account's settings and team hours, the members who may get a chat with
// their open chats, the waiting chats (flagged, unassigned, not done: oldest first), and an assignment.
import { sql } from 'drizzle-orm';
import type { AssignmentMode } from '@parley/contracts';
import { queryRows, type Executor } from '../db/client.ts';
import type { StoredTeamHours } from '../db/schema.ts';

export interface AssignmentRow {
  mode: AssignmentMode;
  capacity: number;
  onlyAvailable: boolean;
  teamHours: StoredTeamHours | null;
}

export interface Candidate {
  id: string;
  /** Their own capacity, or null (the account's). */
  capacity: number | null;
  /** Open (not done) chats assigned to them. */
  open: number;
  lastAssignedAt: Date | null;
}

const SETTINGS = sql`assignment_mode AS mode, assignment_capacity AS capacity, assignment_only_available AS "onlyAvailable",
                     team_hours AS "teamHours"`;

export function createAssignmentStore(db: Executor) {
  return {
    async settings(accountId: string): Promise<AssignmentRow | undefined> {
      const [row] = await queryRows<AssignmentRow>(db, sql`SELECT ${SETTINGS} FROM accounts WHERE id = ${accountId}`);
      return row;
    },

    /** The settings, the account's row held until the commit: one assignment run of an account at a time. */
    async lockSettings(accountId: string): Promise<AssignmentRow | undefined> {
      const [row] = await queryRows<AssignmentRow>(db, sql`SELECT ${SETTINGS} FROM accounts WHERE id = ${accountId} FOR NO KEY UPDATE`);
      return row;
    },

    async update(accountId: string, changes: { mode?: AssignmentMode; capacity?: number; onlyAvailable?: boolean }): Promise<AssignmentRow | undefined> {
      const [row] = await queryRows<AssignmentRow>(
        db,
        sql`UPDATE accounts SET assignment_mode = coalesce(${changes.mode ?? null}, assignment_mode),
                                assignment_capacity = coalesce(${changes.capacity ?? null}::int, assignment_capacity),
                                assignment_only_available = coalesce(${changes.onlyAvailable ?? null}::boolean, assignment_only_available),
                                updated_at = now()
            WHERE id = ${accountId} RETURNING ${SETTINGS}`,
      );
      return row;
    },

    async setTeamHours(accountId: string, hours: StoredTeamHours): Promise<void> {
      await db.execute(sql`UPDATE accounts SET team_hours = ${JSON.stringify(hours)}::jsonb, updated_at = now() WHERE id = ${accountId}`);
    },

    /** Active members (available ones only, with `onlyAvailable`) and their open assigned chats. */
    candidates(accountId: string, onlyAvailable: boolean): Promise<Candidate[]> {
      return queryRows<Candidate>(
        db,
        sql`SELECT m.id, m.capacity, m.last_assigned_at AS "lastAssignedAt",
                   (SELECT count(*)::int FROM chats c WHERE c.account_id = m.account_id AND c.assignee_id = m.id AND NOT c.task_done) AS open
            FROM members m
            WHERE m.account_id = ${accountId} AND m.status = 'active' ${onlyAvailable ? sql`AND m.availability = 'available'` : sql``}
            ORDER BY m.created_at, m.id`,
      );
    },

    /** The chats waiting for a member, oldest first, locked (ones another transaction holds are skipped). */
    waiting(accountId: string, limit: number): Promise<{ id: string }[]> {
      return queryRows<{ id: string }>(
        db,
        sql`SELECT id FROM chats
            WHERE account_id = ${accountId} AND needs_human AND assignee_id IS NULL AND NOT task_done AND NOT banned
            ORDER BY needs_human_at NULLS FIRST, id
            LIMIT ${limit} FOR UPDATE SKIP LOCKED`,
      );
    },

    async assign(chatId: string, memberId: string, at: Date): Promise<void> {
      await db.execute(sql`UPDATE chats SET assignee_id = ${memberId}, updated_at = ${at.toISOString()} WHERE id = ${chatId}`);
      await db.execute(sql`UPDATE members SET last_assigned_at = ${at.toISOString()} WHERE id = ${memberId}`);
    },

    /** Accounts assigning chats with chats waiting (the sweep's). */
    async accountsWithWaiting(): Promise<string[]> {
      const rows = await queryRows<{ id: string }>(
        db,
        sql`SELECT a.id FROM accounts a
            WHERE a.assignment_mode <> 'off'
              AND EXISTS (SELECT 1 FROM chats c WHERE c.account_id = a.id AND c.needs_human AND c.assignee_id IS NULL
                          AND NOT c.task_done AND NOT c.banned)`,
      );
      return rows.map((row) => row.id);
    },
  };
}

export type AssignmentStore = ReturnType<typeof createAssignmentStore>;
