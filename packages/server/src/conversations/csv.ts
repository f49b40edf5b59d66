// The ledger as CSV (GET /console/v1/reports/conversations.csv): RFC 4180 (CRLF line ends, a cell holding a quote,
// comma or line break quoted, quotes doubled) with spreadsheet formula injection guarded: a text cell starting with
// = + - @ (or a tab or carriage return) gets a leading apostrophe, so a customer's name is never run as a formula.
import type { LedgerConversation } from '@parley/contracts';

export const LEDGER_CSV_COLUMNS = [
  'id',
  'chatId',
  'channelId',
  'customerName',
  'startedAt',
  'endedAt',
  'outcome',
  'confirmed',
  'durable',
  'handoffReason',
  'firstAgentResponseSeconds',
  'firstTeamResponseSeconds',
  'assignee',
  'csat',
  'messages',
] as const;

/** One cell: empty for null, numbers as they are, text guarded against formulas and quoted when it must be. */
export function csvCell(value: string | number | boolean | null): string {
  if (value === null) return '';
  if (typeof value !== 'string') return String(value);
  const guarded = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(guarded) ? `"${guarded.replaceAll('"', '""')}"` : guarded;
}

export function csvHeader(): string {
  return `${LEDGER_CSV_COLUMNS.join(',')}\r\n`;
}

export function csvRow(row: LedgerConversation): string {
  const cells: (string | number | boolean | null)[] = [
    row.id,
    row.chatId,
    row.channelId,
    row.customerName,
    row.startedAt,
    row.endedAt,
    row.outcome,
    row.confirmed,
    row.durable,
    row.handoffReason,
    row.firstAgentResponseSeconds,
    row.firstTeamResponseSeconds,
    row.assignee?.name ?? null,
    row.csat,
    row.messages,
  ];
  return `${cells.map(csvCell).join(',')}\r\n`;
}
