import { v7 } from 'uuid';

/** Time-ordered UUIDv7, generated here rather than in SQL so PostgreSQL 15 and PGlite run the same statements. */
export function newId(): string {
  return v7();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** IDs from outside are checked before they reach a uuid column (a malformed one is simply not found). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
