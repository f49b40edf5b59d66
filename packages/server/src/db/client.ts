// Database client: embedded PGlite in DATA_DIR by default, a PostgreSQL server when DATABASE_URL is set.
// Both run the same Drizzle schema and the same migration folder.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { promisify } from 'node:util';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import type { ExtractTablesWithRelations, SQL } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { pgliteDumper, type DumpWithFiles } from '../backup/backup.ts';
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from '../config.ts';
import * as schema from './schema.ts';
import type { StatementCounter } from './statement-counter.ts';

/** The client waits this much longer than `statement_timeout`: the server's own error comes first when it can answer. */
const READ_TIMEOUT_MARGIN_MS = 1_000;

const execFileAsync = promisify(execFile);

export type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
export type Transaction = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Anything that runs queries: the database or an open transaction. */
export type Executor = Database | Transaction;

/**
 * Calls `onNotify` with the payload of every NOTIFY of `channel` (from any process on the database) until the
 * returned stop. After a lost connection is made again it is called once with `undefined`: NOTIFYs may have been
 * missed.
 */
export type Listen = (channel: string, onNotify: (payload: string | undefined) => void) => Promise<() => Promise<void>>;

export interface DatabaseHandle {
  readonly db: Database;
  readonly kind: 'pglite' | 'postgres';
  /** PGlite only: its dump, taken between two passes of a copy of the files (backup/backup.ts). */
  dumpWithFiles?: DumpWithFiles;
  listen: Listen;
  close(): Promise<void>;
}

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url));
/**
 * An empty database with every migration applied, made by the production build (packages/server/build.mjs) as
 * dist/pglite-template.tar; absent when the server runs from its sources (a new data folder is then made by initdb).
 */
export const PGLITE_TEMPLATE = fileURLToPath(new URL('../pglite-template.tar', import.meta.url));
// Any constant works; it only has to be the same in every process that migrates this database.
const MIGRATION_LOCK_ID = 7_411_902_337;

export type DatabaseOptions = (
  | { kind: 'postgres'; url: string; poolSize?: number; timeouts?: DatabaseTimeouts }
  /**
   * `dataDir` undefined = in memory; `loadDataDir` starts from a dump (tests use a migrated template);
   * `sharedBuffers`: PostgreSQL's `shared_buffers` (PGLITE_SHARED_BUFFERS; PGlite's own default, 160 MB, when unset).
   */
  | { kind: 'pglite'; dataDir?: string; loadDataDir?: Blob; sharedBuffers?: string | undefined }
) & {
  /** Counts every statement sent (the benchmark's PARLEY_COUNT_STATEMENTS); none by default. */
  statementCounter?: StatementCounter | undefined;
};

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.kind === 'postgres') {
    return openPostgres(options.url, options.poolSize ?? 10, options.timeouts ?? DEFAULT_DATABASE_TIMEOUTS, options.statementCounter);
  }
  return openPglite(options, options.statementCounter);
}

/**
 * A new data folder is made by a short-lived child process: PGlite's initdb runs a second, in-memory PGlite and
 * unpacks its dump, which would add some 400 MB to the server's peak memory for the rest of its life. With the
 * build's template the child unpacks that instead (about 3 s sooner, half the memory, the migrations done).
 */
async function initializeDataDir(dataDir: string): Promise<void> {
  if (existsSync(path.join(dataDir, 'PG_VERSION'))) return;
  const pglite = import.meta.resolve('@electric-sql/pglite');
  const template = existsSync(PGLITE_TEMPLATE) ? PGLITE_TEMPLATE : null;
  const code = `const { PGlite } = await import(${JSON.stringify(pglite)});
    const { readFile } = await import('node:fs/promises');
    const template = ${JSON.stringify(template)};
    const options = template ? { loadDataDir: new Blob([await readFile(template)], { type: 'application/x-tar' }) } : {};
    const db = await PGlite.create(${JSON.stringify(dataDir)}, options);
    await db.close();`;
  await execFileAsync(process.execPath, ['--input-type=module', '-e', code]);
}

async function openPglite(
  options: { dataDir?: string; loadDataDir?: Blob; sharedBuffers?: string | undefined },
  statementCounter: StatementCounter | undefined,
): Promise<DatabaseHandle> {
  const { dataDir, loadDataDir, sharedBuffers } = options;
  if (dataDir) await mkdir(dataDir, { recursive: true });
  if (dataDir && !loadDataDir) await initializeDataDir(dataDir);
  const client = await PGlite.create(dataDir, {
    ...(loadDataDir ? { loadDataDir } : {}),
    ...(sharedBuffers ? { startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffers}`] } : {}),
  });
  statementCounter?.watchPglite(client);
  const db = drizzlePglite(client, { schema });
  try {
    await migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER });
  } catch (error) {
    await client.close();
    throw error;
  }
  const listen: Listen = async (channel, onNotify) => {
    const stop = await client.listen(channel, (payload) => onNotify(payload));
    return async () => {
      if (!client.closed) await stop();
    };
  };
  return { db, kind: 'pglite', listen, close: () => client.close(), dumpWithFiles: pgliteDumper(client) };
}

async function openPostgres(
  url: string,
  poolSize: number,
  timeouts: DatabaseTimeouts,
  statementCounter: StatementCounter | undefined,
): Promise<DatabaseHandle> {
  // A server that stops answering (a network partition, a stuck server) must fail queries, not hang them: the
  // server ends long statements and idle transactions, the client ends waits for a connection and for an answer.
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: timeouts.connectMs,
    statement_timeout: timeouts.statementMs,
    query_timeout: timeouts.statementMs + READ_TIMEOUT_MARGIN_MS,
    idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
  });
  statementCounter?.watchPool(pool);
  // An idle client that loses its server must not crash the process; the next query reports it.
  pool.on('error', () => {});
  const db = drizzlePg(pool, { schema });
  try {
    await migrateOnce(url, timeouts.connectMs);
  } catch (error) {
    await pool.end();
    throw error;
  }
  const listen: Listen = (channel, onNotify) => listenPostgres(url, timeouts.connectMs, channel, onNotify);
  return { db, kind: 'postgres', listen, close: () => pool.end() };
}

/**
 * Several processes may start at once against one server: one migrates, the others wait for it. On a connection
 * of its own without the pool's statement timeouts: a migration, or the wait for another process's, may be long.
 */
async function migrateOnce(url: string, connectMs: number): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectMs });
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    await migratePg(drizzlePg(client, { schema }), { migrationsFolder: MIGRATIONS_FOLDER });
  } finally {
    await client.end().catch(() => undefined);
  }
}

const RELISTEN_AFTER_MS = 1_000;

/**
 * LISTEN on a connection of its own (a pooled one would be handed to queries). A lost connection is made again
 * after a second; NOTIFYs sent meanwhile are missed, so listeners keep a slow poll as well.
 */
async function listenPostgres(
  url: string,
  connectMs: number,
  channel: string,
  onNotify: (payload: string | undefined) => void,
): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const reconnect = (): void => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      connect().catch(reconnect);
    }, RELISTEN_AFTER_MS);
    retry.unref();
  };
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectMs });
    next.on('notification', (message) => onNotify(message.payload ?? ''));
    next.on('error', () => {
      if (client !== next) return;
      client = undefined;
      void next.end().catch(() => undefined);
      reconnect();
    });
    client = next;
    await next.connect();
    await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    // Anything committed while the connection was being made was not heard.
    onNotify(undefined);
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end().catch(() => undefined);
  };
}

/** Folder of the embedded database inside DATA_DIR. */
export function pgliteDir(dataDir: string): string {
  return path.join(dataDir, 'pglite');
}

/** A fixed SQL text of a hot path, run without Drizzle's query building (see `preparedQuery`). */
export interface PreparedStatement {
  /** Unique per text: node-postgres prepares it once per connection under this name. */
  name: string;
  text: string;
}

export type PreparedQuery = <T>(statement: PreparedStatement, values: readonly unknown[]) => Promise<T[]>;

/**
 * Runs fixed statements straight on the driver: a named prepared statement on node-postgres (parsed and planned
 * once per connection), the extended protocol on PGlite (which waits for a transaction in progress, like any query).
 * For hot paths whose SQL never changes shape; Drizzle builds the rest.
 */
export function preparedQuery(db: Database): PreparedQuery {
  const client = (db as unknown as { $client: unknown }).$client;
  if (client instanceof PGlite) return pglitePrepared(client);
  if (client instanceof pg.Pool) {
    return async <T>(statement: PreparedStatement, values: readonly unknown[]) =>
      (await client.query<T & pg.QueryResultRow>({ name: statement.name, text: statement.text, values: [...values] })).rows;
  }
  throw new Error('preparedQuery: the database is neither PGlite nor a node-postgres pool');
}

/** Names prepared on each PGlite instance (its one session keeps them until it closes). */
const preparedOnPglite = new WeakMap<PGlite, Map<string, Promise<void>>>();

/** A value as an SQL literal: quoted (standard_conforming_strings, checked at PREPARE), typed by the statement. */
function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  return `'${literalText(value).replaceAll("'", "''")}'`;
}

/** A value's text as node-postgres would send it: arrays as PostgreSQL arrays, other objects as JSON. */
function literalText(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) {
    const items = value.map((item: unknown) =>
      item === null || item === undefined ? 'NULL' : `"${literalText(item).replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`,
    );
    return `{${items.join(',')}}`;
  }
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/**
 * PGlite has no named statements in its API and parses and plans every query anew, several milliseconds for the
 * hot paths' statements. So each is made a session prepared statement once (`PREPARE`, its parameter types
 * inferred as for any query) and run as `EXECUTE name(literals…)`, which only binds values to the stored plan.
 */
function pglitePrepared(client: PGlite): PreparedQuery {
  let prepared = preparedOnPglite.get(client);
  if (!prepared) preparedOnPglite.set(client, (prepared = new Map()));
  const names = prepared;
  const prepare = (statement: PreparedStatement): Promise<void> => {
    let done = names.get(statement.name);
    if (!done) {
      done = (async () => {
        const [setting] = (await client.query<{ standard_conforming_strings: string }>('SHOW standard_conforming_strings')).rows;
        if (setting?.standard_conforming_strings !== 'on') throw new Error('standard_conforming_strings must be on');
        await client.exec(`PREPARE ${statement.name} AS ${statement.text}`);
      })();
      done.catch(() => names.delete(statement.name));
      names.set(statement.name, done);
    }
    return done;
  };
  return async <T>(statement: PreparedStatement, values: readonly unknown[]) => {
    await prepare(statement);
    const args = values.length === 0 ? '' : `(${values.map(sqlLiteral).join(', ')})`;
    return (await client.query<T>(`EXECUTE ${statement.name}${args}`)).rows;
  };
}

/** How many statements the database runs at once for this process: PGlite one, a pool its size. */
export function statementSlots(db: Database): number {
  const pool = poolOf(db);
  return pool ? pool.options.max ?? 10 : 1;
}

/** The node-postgres pool under the database; undefined on PGlite. */
export function poolOf(db: Database): pg.Pool | undefined {
  const client = (db as unknown as { $client: unknown }).$client;
  return client instanceof pg.Pool ? client : undefined;
}

/** Rows of a raw SQL query; PGlite and node-postgres both answer `{ rows }`. */
export async function queryRows<T>(db: Executor, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}
