// The account's auto-assignment settings and team hours (issue #44): read and set by admins. A change queues an
// assignment run by itself (the accounts trigger of migration 0040).
import type { AssignmentSettings, TeamHours } from '@parley/contracts';
import { diffChanges, recordAudit, type AuditContext } from '../audit/audit-record.ts';
import type { Database } from '../db/client.ts';
import { Errors } from '../errors.ts';
import { createAssignmentStore, type AssignmentRow } from './assignment-store.ts';
import { storedTeamHours, validateTeamHours } from './team-hours.ts';

/** Without team hours: UTC, always open. */
const NO_HOURS: TeamHours = { timezone: 'UTC', weekly: null };

function settingsOf(row: AssignmentRow): AssignmentSettings {
  return { mode: row.mode, capacity: row.capacity, onlyAvailable: row.onlyAvailable };
}

export function createAssignmentService(deps: { db: Database }) {
  const store = createAssignmentStore(deps.db);

  async function row(accountId: string): Promise<AssignmentRow> {
    const found = await store.settings(accountId);
    if (!found) throw Errors.consoleUnauthorized();
    return found;
  }

  return {
    async settings(accountId: string): Promise<AssignmentSettings> {
      return settingsOf(await row(accountId));
    },

    /** Only the fields named change (with their audit event, in one transaction). */
    async update(accountId: string, body: Partial<AssignmentSettings>, audit: AuditContext): Promise<AssignmentSettings> {
      const updated = await deps.db.transaction(async (tx) => {
        const txStore = createAssignmentStore(tx);
        const before = await txStore.settings(accountId);
        const after = await txStore.update(accountId, body);
        if (!before || !after) return undefined;
        const changes = diffChanges(settingsOf(before), settingsOf(after));
        if (Object.keys(changes).length > 0) {
          await recordAudit(tx, audit, { accountId, kind: 'assignment.updated', target: { type: 'account', id: accountId, name: null }, changes });
        }
        return after;
      });
      if (!updated) throw Errors.consoleUnauthorized();
      return settingsOf(updated);
    },

    async hours(accountId: string): Promise<TeamHours> {
      const { teamHours } = await row(accountId);
      return teamHours ?? NO_HOURS;
    },

    /** 400 for an unknown time zone or a range that does not end after it starts. */
    async setHours(accountId: string, body: TeamHours, audit: AuditContext): Promise<TeamHours> {
      validateTeamHours(body);
      const stored = storedTeamHours(body);
      await deps.db.transaction(async (tx) => {
        const txStore = createAssignmentStore(tx);
        const before = (await txStore.settings(accountId))?.teamHours ?? NO_HOURS;
        await txStore.setTeamHours(accountId, stored);
        const changes = diffChanges({ ...before }, { ...stored });
        if (Object.keys(changes).length > 0) {
          await recordAudit(tx, audit, { accountId, kind: 'team_hours.updated', target: { type: 'account', id: accountId, name: null }, changes });
        }
      });
      return stored;
    },
  };
}

export type AssignmentService = ReturnType<typeof createAssignmentService>;
