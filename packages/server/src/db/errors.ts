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
