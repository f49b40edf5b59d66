// SQLSTATE checks: node-postgres and PGlite both expose the code as `code`; Drizzle wraps it in `cause`.
function hasSqlState(error: unknown, state: string): boolean {
  for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === state) return true;
  }
  return false;
}

export const isUniqueViolation = (error: unknown): boolean => hasSqlState(error, '23505');
export const isForeignKeyViolation = (error: unknown): boolean => hasSqlState(error, '23503');
