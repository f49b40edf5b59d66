// A fresh, migrated database for one test file: PGlite in memory (from the template scripts/test.mjs
// made), or, when DATABASE_URL is set, a new database on that PostgreSQL server, dropped afterwards.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.ts';
import type { StatementCounter } from '../../src/db/statement-counter.ts';
import type { DatabaseTimeouts } from '../../src/config.ts';

/** `timeouts`: a PostgreSQL server's connection timeouts, when a test needs others than the defaults. */
export async function openTestDatabase(options: { statementCounter?: StatementCounter; timeouts?: DatabaseTimeouts } = {}): Promise<DatabaseHandle> {
  const { statementCounter, timeouts } = options;
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const template = process.env.PARLEY_TEST_PGLITE_TEMPLATE;
    const loadDataDir = template ? new Blob([await readFile(template)]) : undefined;
    return openDatabase({ kind: 'pglite', ...(loadDataDir ? { loadDataDir } : {}), statementCounter });
  }
  // A copy of the migrated template scripts/test.mjs made, when it made one (else migrated as it opens).
  const created = await createServerDatabase(serverUrl, process.env.PARLEY_TEST_PG_TEMPLATE);
  const handle = await openDatabase({ kind: 'postgres', url: created.url, poolSize: 5, statementCounter, ...(timeouts ? { timeouts } : {}) });
  return {
    ...handle,
    async close() {
      await handle.close();
      await created.drop();
    },
  };
}

/**
 * A new database on the PostgreSQL server of `serverUrl`, empty or a copy of `template`: its URL, and `drop` (forced)
 * for the end.
 */
export async function createServerDatabase(serverUrl: string, template?: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = new URL(serverUrl);
  const name = `${base.pathname.slice(1) || 'parley'}_t${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(template ? `CREATE DATABASE "${name}" TEMPLATE "${template}"` : `CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const dropper = new pg.Client({ connectionString: serverUrl });
      await dropper.connect();
      try {
        await dropper.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    },
  };
}
