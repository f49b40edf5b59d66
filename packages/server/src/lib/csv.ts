// One CSV cell (RFC 4180: a cell holding a quote, comma or line break quoted, quotes doubled) with spreadsheet formula
// injection guarded: a text cell starting with = + - @ (or a tab or carriage return) gets a leading apostrophe, so a
// customer's name is never run as a formula. The reports' ledger and the audit log use it.

/** One cell: empty for null, numbers as they are, text guarded against formulas and quoted when it must be. */
export function csvCell(value: string | number | boolean | null): string {
  if (value === null) return '';
  if (typeof value !== 'string') return String(value);
  const guarded = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(guarded) ? `"${guarded.replaceAll('"', '""')}"` : guarded;
}
