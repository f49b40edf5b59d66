// The reports of Outcomes and reports (docs/architecture.md): the summary, the ledger (JSON pages and CSV rows) and
// the account's resolution time. Windows are UTC days, `from` and `to` included. The summary reads the daily rollup
// (migration 0029) and the open conversations; the ledger reads the conversations table.
import {
  REPORT_RANGE_DAYS_MAX,
  RESOLUTION_QUIET_MINUTES_DEFAULT,
  type AccountSettings,
  type MemberRole,
  type LedgerConversation,
  type LedgerFigure,
  type ReportSummary,
} from '@parley/contracts';
import type { Database } from '../db/client.ts';
import { diffChanges, recordAudit, type AuditContext } from '../audit/audit-record.ts';
import { Errors } from '../errors.ts';
import { isUuid } from '../lib/ids.ts';
import { createConversationsStore, type LedgerRow, type ReportScope } from './conversations-store.ts';
import { composeSummary, namedIds } from './summary.ts';

const DAY_MS = 24 * 60 * 60_000;

export interface ReportQuery {
  from: string;
  to: string;
  channelId?: string;
  memberId?: string;
}

/** A YYYY-MM-DD that names a real UTC day (2026-02-30 does not). */
export function dayOf(value: string, field: string): Date {
  const date = new Date(`${value}T00:00:00.000Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value) {
    throw Errors.reportDateInvalid(field);
  }
  return date;
}

/** The scope of a report: [from, to + 1 day), validated. */
export function reportScope(accountId: string, query: ReportQuery): ReportScope {
  const from = dayOf(query.from, 'from');
  const to = dayOf(query.to, 'to');
  if (to < from) throw Errors.reportRangeReversed();
  if ((to.getTime() - from.getTime()) / DAY_MS + 1 > REPORT_RANGE_DAYS_MAX) throw Errors.reportRangeTooLong(REPORT_RANGE_DAYS_MAX);
  return {
    accountId,
    from,
    until: new Date(to.getTime() + DAY_MS),
    ...(query.channelId !== undefined ? { channelId: query.channelId } : {}),
    ...(query.memberId !== undefined ? { memberId: query.memberId } : {}),
  };
}

/** The opaque cursor of a ledger page: base64url of `<startedAt ISO>|<id>`. */
export function encodeLedgerCursor(row: { startedAt: Date; id: string }): string {
  return Buffer.from(`${row.startedAt.toISOString()}|${row.id}`, 'utf8').toString('base64url');
}

export function decodeLedgerCursor(cursor: string): { startedAt: Date; id: string } {
  const [at, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const startedAt = new Date(at ?? '');
  if (rest.length > 0 || id === undefined || !isUuid(id) || Number.isNaN(startedAt.getTime())) throw Errors.invalidCursor();
  return { startedAt, id };
}

export function ledgerItem(row: LedgerRow): LedgerConversation {
  return {
    id: row.id,
    chatId: row.chatId,
    channelId: row.channelId,
    customerName: row.customerName,
    startedAt: row.startedAt.toISOString(),
    endedAt: row.endedAt?.toISOString() ?? null,
    outcome: (row.outcome ?? 'open') as LedgerConversation['outcome'],
    confirmed: row.confirmed,
    durable: row.durable,
    handoffReason: row.handoffReason as LedgerConversation['handoffReason'],
    firstAgentResponseSeconds: row.firstAgentResponseSeconds,
    firstTeamResponseSeconds: row.firstTeamResponseSeconds,
    assignee: row.assigneeId ? { id: row.assigneeId, name: row.assigneeName ?? '' } : null,
    csat: row.csat,
    messages: row.messages,
    state: row.state as LedgerConversation['state'],
    endsAt: row.endsAt?.toISOString() ?? null,
  };
}

async function settingsOf(store: ReturnType<typeof createConversationsStore>, accountId: string): Promise<AccountSettings> {
  return {
    resolutionQuietMinutes: (await store.quietMinutes(accountId)) ?? RESOLUTION_QUIET_MINUTES_DEFAULT,
    retentionDays: await store.retentionDays(accountId),
    requireTwoFactor: await store.requireTwoFactor(accountId),
  };
}

export function createReportsService({ db }: { db: Database }) {
  const store = createConversationsStore(db);

  return {
    /**
     * The summary: the rollup's rows of the window and the open conversations (on PostgreSQL side by side), then the
     * names of the channels and members it lists. No read grows with the number of ended conversations.
     */
    async summary(accountId: string, query: ReportQuery): Promise<ReportSummary> {
      const scope = reportScope(accountId, query);
      const [rollup, memberRollup, open] = await Promise.all([store.rollup(scope), store.memberRollup(scope), store.open(scope)]);
      const ids = namedIds({ rollup, memberRollup, open }, scope.memberId);
      const [channelNames, memberNames] = await Promise.all([
        store.channelNames(accountId, ids.channels),
        store.memberNames(accountId, ids.members),
      ]);
      return composeSummary(scope, { rollup, memberRollup, open, channelNames, memberNames });
    },

    /** A page of the ledger; `nextCursor` null on the last page. */
    async ledger(
      accountId: string,
      query: ReportQuery & { outcome?: string; only?: LedgerFigure; limit?: number; cursor?: string },
    ): Promise<{ conversations: LedgerConversation[]; nextCursor: string | null }> {
      const scope = reportScope(accountId, query);
      const after = query.cursor !== undefined ? decodeLedgerCursor(query.cursor) : undefined;
      const limit = query.limit ?? 50;
      const rows = await store.ledger(scope, {
        limit: limit + 1,
        ...(query.outcome !== undefined ? { outcome: query.outcome } : {}),
        ...(query.only !== undefined ? { only: query.only } : {}),
        ...(after ? { after } : {}),
      });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return { conversations: page.map(ledgerItem), nextCursor: rows.length > limit && last ? encodeLedgerCursor(last) : null };
    },

    /**
     * Every conversation of the window, in pages read one after the other (the CSV download streams them). The
     * window is validated before the first page is asked for, so a bad query is a 400, not a broken download.
     */
    ledgerPages(accountId: string, query: ReportQuery & { outcome?: string; only?: LedgerFigure }): AsyncGenerator<LedgerConversation[]> {
      const scope = reportScope(accountId, query);
      return (async function* pages() {
        let after: { startedAt: Date; id: string } | undefined;
        for (;;) {
          const rows = await store.ledger(scope, {
            limit: 1000,
            ...(query.outcome !== undefined ? { outcome: query.outcome } : {}),
            ...(query.only !== undefined ? { only: query.only } : {}),
            ...(after ? { after } : {}),
          });
          if (rows.length > 0) yield rows.map(ledgerItem);
          const last = rows.at(-1);
          if (rows.length < 1000 || !last) return;
          after = { startedAt: last.startedAt, id: last.id };
        }
      })();
    },

    async settings(accountId: string): Promise<AccountSettings> {
      return settingsOf(store, accountId);
    },

    /** `requireTwoFactor` is the owner's alone (403 for an admin, nothing changed); the change is audited. */
    async updateSettings(accountId: string, role: MemberRole, change: Partial<AccountSettings>, audit: AuditContext): Promise<AccountSettings> {
      if (change.requireTwoFactor !== undefined && role !== 'owner') throw Errors.forbiddenForRole();
      return db.transaction(async (tx) => {
        const txStore = createConversationsStore(tx);
        const before = await settingsOf(txStore, accountId);
        if (change.resolutionQuietMinutes !== undefined) await txStore.setQuietMinutes(accountId, change.resolutionQuietMinutes);
        if (change.retentionDays !== undefined) await txStore.setRetentionDays(accountId, change.retentionDays);
        if (change.requireTwoFactor !== undefined) await txStore.setRequireTwoFactor(accountId, change.requireTwoFactor);
        const after = await settingsOf(txStore, accountId);
        const changes = diffChanges(before, after);
        if (Object.keys(changes).length > 0) {
          await recordAudit(tx, audit, { accountId, kind: 'account.settings_updated', target: { type: 'account', id: accountId, name: null }, changes });
        }
        return after;
      });
    },
  };
}

export type ReportsService = ReturnType<typeof createReportsService>;
