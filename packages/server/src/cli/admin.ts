// Operator CLI: `npm run -s admin -- <command> [options]`. Talks to the running server's operator API
// (so it also works while PGlite is owned by that server) and prints one JSON object on stdout. `backup` asks the
// running server (it holds the database) or, when none runs on DATA_DIR, opens it itself; `restore` needs no server.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BackupError, pgDumpCommand, restoreBackup, writeBackup } from '../backup/backup.ts';
import { sql } from 'drizzle-orm';
import { openDatabase, pgliteDir, queryRows } from '../db/client.ts';
import { DataDirLockedError, lockDataDir } from '../db/data-dir-lock.ts';

const USAGE = `usage: npm run -s admin -- <command> [options]     (--help: this text)
  create-account   --email E [--password P] [--name N]  (password read from stdin when omitted; N: the owner's name)
  create-key       --account ID [--scopes a,b,...]
  list-keys        --account ID
  deactivate-key   --key ID
  set-subscription --account ID --active true|false
  list-members     --account ID
  remove-member    --member ID                     (every session of theirs ends at once; not the owner)
  reset-password   --email E                       (a one-time link to set that member's password, valid 1 h)
  backup           --out FILE                      (embedded database and DATA_DIR's files; a new file)
  restore          --in FILE                       (into an empty or new DATA_DIR; no server running on it)
  migrate                                          (DATABASE_URL's migrations, then exit; servers also migrate at start)
options: --url URL (default PARLEY_URL or http://HOST:PORT), token from ADMIN_TOKEN or DATA_DIR/admin-token`;

function print(value: unknown, exitCode: number): never {
  process.stdout.write(`${JSON.stringify(value)}\n`);
  process.exit(exitCode);
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

async function adminToken(): Promise<string> {
  if (process.env.ADMIN_TOKEN) return process.env.ADMIN_TOKEN;
  const dataDir = path.resolve(process.env.DATA_DIR ?? './data');
  try {
    return (await readFile(path.join(dataDir, 'admin-token'), 'utf8')).trim();
  } catch {
    return print({ error: `no ADMIN_TOKEN set and no ${dataDir}/admin-token found` }, 2);
  }
}

function baseUrl(flag: string | undefined): string {
  if (flag) return flag;
  if (process.env.PARLEY_URL) return process.env.PARLEY_URL;
  const host = process.env.HOST ?? '127.0.0.1';
  return `http://${host.includes(':') ? `[${host}]` : host}:${process.env.PORT ?? '3000'}`;
}

function required(value: string | undefined, name: string): string {
  if (!value) return print({ error: `--${name} is required`, usage: USAGE }, 2);
  return value;
}

function parse() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        email: { type: 'string' },
        name: { type: 'string' },
        password: { type: 'string' },
        account: { type: 'string' },
        key: { type: 'string' },
        member: { type: 'string' },
        scopes: { type: 'string' },
        active: { type: 'string' },
        url: { type: 'string' },
        out: { type: 'string' },
        in: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    // An unknown option or a missing value: say which, with the usage, not a stack trace.
    return print({ error: (error as Error).message, usage: USAGE }, 2);
  }
}

async function main(): Promise<void> {
  const { positionals, values } = parse();
  const [command] = positionals;
  if (values.help || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  if (command === 'backup' || command === 'restore') return backupCommand(command, values);
  if (command === 'migrate') return migrateCommand();
  let request: { method: string; path: string; body?: unknown };
  switch (command) {
    case 'create-account':
      request = {
        method: 'POST',
        path: '/accounts',
        body: {
          email: required(values.email, 'email'),
          password: values.password ?? (await readStdin()),
          ...(values.name !== undefined ? { name: values.name } : {}),
        },
      };
      break;
    case 'create-key':
      request = {
        method: 'POST',
        path: `/accounts/${encodeURIComponent(required(values.account, 'account'))}/api-keys`,
        body: values.scopes ? { scopes: values.scopes.split(',').map((s) => s.trim()) } : {},
      };
      break;
    case 'list-keys':
      request = { method: 'GET', path: `/accounts/${encodeURIComponent(required(values.account, 'account'))}/api-keys` };
      break;
    case 'deactivate-key':
      request = { method: 'POST', path: `/api-keys/${encodeURIComponent(required(values.key, 'key'))}/deactivate` };
      break;
    case 'list-members':
      request = { method: 'GET', path: `/accounts/${encodeURIComponent(required(values.account, 'account'))}/members` };
      break;
    case 'reset-password':
      request = { method: 'POST', path: '/password-resets', body: { email: required(values.email, 'email') } };
      break;
    case 'remove-member':
      request = { method: 'DELETE', path: `/members/${encodeURIComponent(required(values.member, 'member'))}` };
      break;
    case 'set-subscription': {
      const active = required(values.active, 'active');
      if (active !== 'true' && active !== 'false') print({ error: '--active must be true or false' }, 2);
      request = {
        method: 'PUT',
        path: `/accounts/${encodeURIComponent(required(values.account, 'account'))}/subscription`,
        body: { active: active === 'true' },
      };
      break;
    }
    default:
      print({ error: command ? `unknown command ${command}` : 'no command given', usage: USAGE }, 2);
  }

  await send(request, values.url);
}

async function send(request: { method: string; path: string; body?: unknown }, url: string | undefined): Promise<never> {
  const token = await adminToken();
  let response: Response;
  try {
    response = await fetch(`${baseUrl(url)}/admin/v1${request.path}`, {
      method: request.method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    });
  } catch (error) {
    return print({ error: `cannot reach the server: ${(error as Error).message}` }, 1);
  }
  const body: unknown = await response.json().catch(() => ({}));
  if (!response.ok) print({ error: body, status: response.status }, 1);
  return print(body, 0);
}

const dataDirOf = () => path.resolve(process.env.DATA_DIR ?? './data');

/**
 * backup: with DATABASE_URL, the pg_dump command to run instead (exit 1); with a server running on DATA_DIR, that
 * server writes it (`POST /admin/v1/backup`: it holds the database); else this process opens the database itself.
 * restore: into an empty or new DATA_DIR.
 */
async function backupCommand(command: 'backup' | 'restore', values: { out?: string; in?: string; url?: string }): Promise<never> {
  const databaseUrl = process.env.DATABASE_URL;
  const dataDir = dataDirOf();
  try {
    if (command === 'restore') {
      const archive = required(values.in, 'in');
      if (databaseUrl) {
        return print({ error: 'DATABASE_URL is a PostgreSQL server: restore it with pg_restore; this command restores the embedded database' }, 1);
      }
      return print(await restoreBackup(archive, dataDir, pgliteDir(dataDir)), 0);
    }
    const out = path.resolve(required(values.out, 'out'));
    if (databaseUrl) {
      return print(
        {
          error: `DATABASE_URL is a PostgreSQL server: back it up with pg_dump, and ${dataDir} (its files and secrets) with it`,
          command: pgDumpCommand(databaseUrl, out),
        },
        1,
      );
    }
    if (!existsSync(path.join(pgliteDir(dataDir), 'PG_VERSION'))) return print({ error: `no Parley database in DATA_DIR ${dataDir}` }, 1);
    let release: () => void;
    try {
      release = await lockDataDir(dataDir, 0); // a running server makes the backup itself: no wait
    } catch (error) {
      if (error instanceof DataDirLockedError) return send({ method: 'POST', path: '/backup', body: { file: out } }, values.url);
      throw error;
    }
    let written: { file: string; bytes: number };
    try {
      const database = await openDatabase({ kind: 'pglite', dataDir: pgliteDir(dataDir) });
      try {
        if (!database.dumpWithFiles) throw new Error('no PGlite dump');
        written = await writeBackup(dataDir, out, database.dumpWithFiles);
      } finally {
        await database.close();
      }
    } finally {
      release();
    }
    return print(written, 0);
  } catch (error) {
    if (error instanceof BackupError) return print({ error: error.message }, 1);
    throw error;
  }
}

/**
 * migrate: applies DATABASE_URL's missing migrations (under the same advisory lock as a starting server) and exits,
 * so that a deployment can migrate once before its processes start (compose.scale.yaml's `migrate` service).
 */
async function migrateCommand(): Promise<never> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) return print({ error: 'DATABASE_URL is not set: the embedded database is migrated by the server at its start' }, 1);
  let database;
  try {
    database = await openDatabase({ kind: 'postgres', url: databaseUrl, poolSize: 2 }); // the migration lock holds one
  } catch (error) {
    // pg's message names the cause (refused, authentication, unknown database), never the password.
    return print({ error: `migrating failed: ${(error as Error).message}` }, 1);
  }
  try {
    const [row] = await queryRows<{ count: number }>(database.db, sql`SELECT count(*)::int AS count FROM drizzle.__drizzle_migrations`);
    return print({ database: 'postgres', migrations: row?.count ?? 0 }, 0);
  } finally {
    await database.close();
  }
}

void main();
