// SQLSTATE checks: node-postgres and PGlite both expose the code as `code`; Drizzle wraps it in `cause`.
function hasSqlState(error: unknown, state: string): boolean {
  for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === state) return true;
  }
  return false;
}

export const isUniqueViolation = (error: unknown): boolean => hasSqlState(error, '23505');
export const isForeignKeyViolation = (error: unknown): boolean => hasSqlState(error, '23503');
/**
 * Text the database cannot hold (NUL, invalid UTF-8, `\u0000` in JSON): input that slipped past
 * validation. The request is answered 400 rather than 500.
 */
export const isUnstorableText = (error: unknown): boolean => hasSqlState(error, '22021') || hasSqlState(error, '22P05');

/**
 * SQLSTATEs of a server that cannot serve now: a statement or an idle transaction that ran out of time
 * (DATABASE_STATEMENT_TIMEOUT_MS, DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS), a server shutting down or starting,
 * too many connections, a lost connection (class 08).
 */
const UNAVAILABLE_STATES = new Set(['57014', '25P03', '57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08004', '08006']);
/** node-postgres's own errors when the server does not answer in time or the connection is gone. */
const UNAVAILABLE_MESSAGES = [
  'Query read timeout',
  'timeout exceeded when trying to connect',
  'Connection terminated due to connection timeout',
  'Connection terminated unexpectedly',
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
];
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE']);

/** The database did not answer (in time): the request can be tried again, so 503 rather than 500. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (UNAVAILABLE_STATES.has(code) || UNAVAILABLE_CODES.has(code))) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.includes(message)) return true;
  }
  return false;
}
