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

/** Undefined when ready. */
export function createReadinessCheck(db: Database, migrations: Migration[] = migrationsOf()) {
  return async (): Promise<NotReady | undefined> => {
    try {
      await db.execute(sql`select 1`);
    } catch (cause) {
      return { failed: 'database', detail: 'the database does not answer', cause };
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
}
