// The audit log's reading (issue #45, item 4): the filters (an actor's id or kind, a kind or its first part, the UTC
// days of reports), the keyset cursor, newest first; the CSV; and the prune past AUDIT_RETENTION_DAYS.
import { AUDIT_ACTOR_KINDS, AUDIT_LIMIT_DEFAULT, type AuditCsvQuery, type AuditEvent, type AuditQuery } from '@parley/contracts';
import type { Executor } from '../db/client.ts';
import { Errors } from '../errors.ts';
import { csvCell } from '../lib/csv.ts';
import { isUuid } from '../lib/ids.ts';
import type { AuditActorKind } from './audit-record.ts';
import { createAuditStore, type AuditFilter, type AuditRow } from './audit-store.ts';

const DAY_MS = 24 * 60 * 60_000;
/** Rows of one CSV page read from the database. */
const CSV_PAGE = 500;

export const AUDIT_CSV_COLUMNS = ['id', 'at', 'actorKind', 'actorId', 'actorName', 'address', 'kind', 'targetType', 'targetId', 'targetName', 'changes'] as const;

/** A `YYYY-MM-DD` that is a real day (as reports read `from`/`to`). */
function dayOf(value: string, field: string): Date {
  const date = new Date(`${value}T00:00:00.000Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value) throw Errors.reportDateInvalid(field);
  return date;
}

/** The opaque cursor of a page: base64url of `<at ISO>|<id>` of its last event. */
function encodeCursor(row: AuditRow): string {
  return Buffer.from(`${row.at.toISOString()}|${row.id}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): { at: Date; id: string } {
  const [at, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const after = { at: new Date(at ?? ''), id: id ?? '' };
  if (rest.length > 0 || Number.isNaN(after.at.getTime()) || !isUuid(after.id)) throw Errors.invalidCursor();
  return after;
}

export function auditEventOf(row: AuditRow): AuditEvent {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actor: { kind: row.actorKind as AuditActorKind, id: row.actorId, name: row.actorName },
    address: row.address,
    kind: row.kind,
    target: { type: row.targetType, id: row.targetId, name: row.targetName },
    changes: row.changes,
  };
}

function csvRowOf(row: AuditRow): string {
  const cells = [
    row.id,
    row.at.toISOString(),
    row.actorKind,
    row.actorId,
    row.actorName,
    row.address,
    row.kind,
    row.targetType,
    row.targetId,
    row.targetName,
    JSON.stringify(row.changes),
  ];
  return `${cells.map(csvCell).join(',')}\r\n`;
}

function filterOf(accountId: string, query: AuditCsvQuery): AuditFilter {
  const from = query.from !== undefined ? dayOf(query.from, 'from') : undefined;
  const to = query.to !== undefined ? dayOf(query.to, 'to') : undefined;
  if (from && to && to < from) throw Errors.reportRangeReversed();
  const filter: AuditFilter = { accountId };
  if (from) filter.from = from;
  if (to) filter.before = new Date(to.getTime() + DAY_MS);
  if (query.actor !== undefined) {
    filter.actor = (AUDIT_ACTOR_KINDS as readonly string[]).includes(query.actor) ? { kind: query.actor } : { id: query.actor };
  }
  if (query.kind !== undefined) filter.kind = query.kind.includes('.') ? { exact: query.kind } : { prefix: query.kind };
  return filter;
}

export interface AuditServiceDeps {
  db: Executor;
  retentionDays: number;
}

export function createAuditService({ db, retentionDays }: AuditServiceDeps) {
  const store = createAuditStore(db);
  return {
    /** One page of the account's events, newest first. */
    async list(accountId: string, query: AuditQuery): Promise<{ events: AuditEvent[]; nextCursor: string | null }> {
      const filter = filterOf(accountId, query);
      if (query.cursor !== undefined) filter.after = decodeCursor(query.cursor);
      const limit = query.limit ?? AUDIT_LIMIT_DEFAULT;
      const rows = await store.page(filter, limit + 1);
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return { events: page.map(auditEventOf), nextCursor: rows.length > limit && last ? encodeCursor(last) : null };
    },

    /** The CSV, header first, read a page at a time (filters checked before the first byte). */
    csv(accountId: string, query: AuditCsvQuery): AsyncIterable<string> {
      const filter = filterOf(accountId, query);
      return (async function* rows() {
        yield `${AUDIT_CSV_COLUMNS.join(',')}\r\n`;
        for (;;) {
          const page = await store.page(filter, CSV_PAGE);
          if (page.length > 0) yield page.map(csvRowOf).join('');
          const last = page.at(-1);
          if (page.length < CSV_PAGE || !last) return;
          filter.after = { at: last.at, id: last.id };
        }
      })();
    },

    /** Deletes events older than the retention, in batches; how many went. */
    async prune(now: Date): Promise<number> {
      const before = new Date(now.getTime() - retentionDays * DAY_MS);
      let pruned = 0;
      for (;;) {
        const batch = await store.prune(before, 1000);
        pruned += batch;
        if (batch < 1000) return pruned;
      }
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
