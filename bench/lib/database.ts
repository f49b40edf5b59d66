// The database under a benchmark: a fresh one per scenario, PGlite in a folder or a database of its own on a
// PostgreSQL server (DATABASE_URL, else the machine's on 127.0.0.1:5432, else a throwaway one).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import { openDatabase, pgliteDir, type Database } from '../../packages/server/src/db/client.ts';
import { DEFAULT_DATABASE_TIMEOUTS } from '../../packages/server/src/config.ts';
import { ROOT } from './processes.ts';

const run = promisify(execFile);

export type DatabaseKind = 'pglite' | 'postgres';

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2500 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface PostgresServer {
  /** URL of the server's maintenance database; scenario databases are made beside it. */
  url: string;
  stop(): Promise<void>;
}

/** The server `--db postgres` runs on: DATABASE_URL, the machine's, or a throwaway one in `workDir`. */
export async function findPostgres(workDir: string, log: (line: string) => void): Promise<PostgresServer> {
  const given = process.env.DATABASE_URL;
  if (given) {
    if (!(await answers(given))) throw new Error('DATABASE_URL does not answer');
    return { url: given, stop: async () => {} };
  }
  const local = 'postgres://postgres@127.0.0.1:5432/postgres';
  if (await answers(local)) return { url: local, stop: async () => {} };
  log('no PostgreSQL server answers on 127.0.0.1:5432: starting a throwaway one');
  const dir = `${workDir}/postgres`;
  const script = `${ROOT}scripts/ci/throwaway-postgres.sh`;
  const { stdout } = await run('bash', [script, 'start', dir, '55433']);
  return { url: stdout.trim(), stop: async () => void (await run('bash', [script, 'stop', dir])) };
}

function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function admin(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** One scenario's database. */
export interface ScenarioDatabase {
  /** For the server: DATABASE_URL, or undefined for PGlite in `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  /**
   * Direct access for bulk seeding, with the schema migrated. PGlite has one owner: call it while the server is
   * stopped.
   */
  use<T>(work: (db: Database) => Promise<T>): Promise<T>;
  drop(): Promise<void>;
}

export async function scenarioDatabase(
  kind: DatabaseKind,
  postgres: PostgresServer | undefined,
  dataDir: string,
  name: string,
): Promise<ScenarioDatabase> {
  if (kind === 'pglite') {
    return {
      databaseUrl: undefined,
      dataDir,
      async use(work) {
        const handle = await openDatabase({ kind: 'pglite', dataDir: pgliteDir(dataDir) });
        try {
          return await work(handle.db);
        } finally {
          await handle.close();
        }
      },
      drop: async () => {},
    };
  }
  if (!postgres) throw new Error('no PostgreSQL server');
  const database = `parley_bench_${process.pid}_${name.replaceAll(/[^a-z0-9]/g, '_')}`;
  await admin(postgres.url, `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  await admin(postgres.url, `CREATE DATABASE "${database}"`);
  const url = databaseUrl(postgres.url, database);
  return {
    databaseUrl: url,
    dataDir,
    async use(work) {
      // A bulk load's statements run longer than the server's statement timeout allows a request.
      const timeouts = { ...DEFAULT_DATABASE_TIMEOUTS, statementMs: 3_600_000 };
      const handle = await openDatabase({ kind: 'postgres', url, poolSize: 2, timeouts });
      try {
        return await work(handle.db);
      } finally {
        await handle.close();
      }
    },
    drop: () => admin(postgres.url, `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`),
  };
}
