// The ledger as CSV (GET /console/v1/reports/conversations.csv): RFC 4180 (CRLF line ends, a cell holding a quote,
// comma or line break quoted, quotes doubled) with spreadsheet formula injection guarded: a text cell starting with
// = + - @ (or a tab or carriage return) gets a leading apostrophe, so a customer's name is never run as a formula.
import type { LedgerConversation } from '@parley/contracts';
import { csvCell } from '../lib/csv.ts';

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
  'state',
  'endsAt',
] as const;

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
    row.state,
    row.endsAt,
  ];
  return `${cells.map(csvCell).join(',')}\r\n`;
}
