// Readiness (GET /readyz): the database answers and every migration of packages/server/drizzle is recorded in
// Drizzle's migrations table, so a process is not sent traffic for a schema it was not built for.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { MIGRATIONS_FOLDER, queryRows, type Database } from './client.ts';

/** Not ready: the check that failed, a sentence, the migrations not applied when known, and the error (logged, never sent). */
export interface NotReady {
  failed: 'database' | 'migrations';
  detail: string;
  missing?: string[];
  cause?: unknown;
}

interface Migration {
  tag: string;
  hash: string;
}

/** The migrations of the folder, named by their tags, with the hashes Drizzle's migrator records. */
export function migrationsOf(folder: string = MIGRATIONS_FOLDER): Migration[] {
  const journal = JSON.parse(readFileSync(path.join(folder, 'meta/_journal.json'), 'utf8')) as { entries: { tag: string }[] };
  const files = readMigrationFiles({ migrationsFolder: folder });
  return journal.entries.map((entry, index) => ({ tag: entry.tag, hash: files[index]?.hash ?? '' }));
}

/** A probe answers within this, whatever the database does (a silent one included). */
export const PROBE_TIMEOUT_MS = 1_500;

/** `check`'s answer, or `late` when it has none within `withinMs`. */
export async function within<T>(withinMs: number, check: Promise<T>, late: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(late), withinMs);
  });
  try {
    return await Promise.race([check, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const SILENT: NotReady = { failed: 'database', detail: 'the database does not answer' };

/** Undefined when the database answered `select 1` within `withinMs`; otherwise the error, or the timeout. */
export async function databaseDown(db: Database, withinMs: number = PROBE_TIMEOUT_MS): Promise<unknown> {
  const answer = db.execute(sql`select 1`).then(
    () => undefined,
    (cause: unknown) => cause ?? new Error('the database failed'),
  );
  return within(withinMs, answer, new Error(`no answer within ${withinMs} ms`));
}

/** Undefined when ready; answers within `withinMs` (a check still waiting for the database counts as not ready). */
export function createReadinessCheck(db: Database, migrations: Migration[] = migrationsOf(), withinMs: number = PROBE_TIMEOUT_MS) {
  const check = async (): Promise<NotReady | undefined> => {
    try {
      await db.execute(sql`select 1`);
    } catch (cause) {
      return { ...SILENT, cause };
    }
    let applied: Set<string>;
    try {
      applied = new Set((await queryRows<{ hash: string }>(db, sql`select hash from drizzle.__drizzle_migrations`)).map((row) => row.hash));
    } catch (cause) {
      return { failed: 'migrations', detail: 'the migrations table cannot be read', cause };
    }
    const missing = migrations.filter((migration) => !applied.has(migration.hash)).map((migration) => migration.tag);
    if (missing.length === 0) return undefined;
    return { failed: 'migrations', detail: `${missing.length} of ${migrations.length} migrations are not applied`, missing };
  };
  return (): Promise<NotReady | undefined> => within(withinMs, check(), { ...SILENT, cause: new Error(`no answer within ${withinMs} ms`) });
}
