// Upgrades (docs/operations.md, Upgrades): migrations run at start, and several processes of a new version may start
// at once against one PostgreSQL database that an older version left behind. One of them migrates (an advisory
// lock), the others wait for it; all come up ready and every migration is applied once. The operator CLI's `migrate`
// (compose.scale.yaml runs it once before the replicas) does the same alone and exits.
// Only on a PostgreSQL server (DATABASE_URL): with PGlite one process owns the database.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { MIGRATIONS_FOLDER } from '../src/db/client.ts';
import { createServerDatabase } from './support/database.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const serverUrl = process.env.DATABASE_URL;
const PROCESSES = 3;
/** The older version's database: the migrations up to this one applied. */
const OLDER_VERSION_MIGRATIONS = 12;
const ADMIN_TOKEN = 'upgrade-admin-token-0123456789abcdef0123456789';

interface Journal {
  entries: { idx: number; tag: string }[];
}

function startParley(databaseUrl: string, dataDir: string): { child: ChildProcess; url: Promise<string> } {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    PORT: '0',
    JWT_SECRET: 'upgrade-jwt-secret-0123456789abcdef0123456789',
    SECRETS_KEY: 'upgrade-secrets-key-0123456789abcdef0123456789',
    ADMIN_TOKEN,
    KB_ENCODER: 'off',
  };
  delete env.REDIS_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', 'packages/server/src/main.ts'], { cwd: root, env });
  let output = '';
  const url = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
  });
  return { child, url };
}

const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

test(
  `${PROCESSES} processes of a new version start at once on an older version's database: all ready, each migration applied once`,
  { skip: serverUrl ? false : 'DATABASE_URL is not set (CI runs the suite on PostgreSQL too)', timeout: 240_000 },
  async () => {
    assert.ok(serverUrl);
    const database = await createServerDatabase(serverUrl);
    cleanups.push(database.drop);
    const databaseUrl = new URL(database.url);
    const work = await mkdtemp(path.join(os.tmpdir(), 'parley-upgrade-'));
    cleanups.push(() => rm(work, { recursive: true, force: true }));

    // The older version: its migrations folder is today's with the journal cut after its last migration.
    const journal = JSON.parse(await readFile(path.join(MIGRATIONS_FOLDER, 'meta/_journal.json'), 'utf8')) as Journal;
    assert.ok(journal.entries.length > OLDER_VERSION_MIGRATIONS, 'the new version has migrations the older one lacks');
    const older = path.join(work, 'older-drizzle');
    await cp(MIGRATIONS_FOLDER, older, { recursive: true });
    await writeFile(path.join(older, 'meta/_journal.json'), JSON.stringify({ ...journal, entries: journal.entries.slice(0, OLDER_VERSION_MIGRATIONS) }));
    const pool = new pg.Pool({ connectionString: databaseUrl.toString(), max: 2 });
    cleanups.push(() => pool.end());
    await migrate(drizzle(pool), { migrationsFolder: older });
    const applied = async () => (await pool.query<{ count: string }>('SELECT count(*) FROM drizzle.__drizzle_migrations')).rows[0]?.count;
    assert.equal(await applied(), String(OLDER_VERSION_MIGRATIONS));

    // The new version, started three times at once.
    const processes = Array.from({ length: PROCESSES }, (_, i) => startParley(databaseUrl.toString(), path.join(work, `data-${i}`)));
    for (const { child } of processes) cleanups.push(async () => void child.kill('SIGKILL'));
    const urls = await Promise.all(processes.map((p) => p.url));
    for (const url of urls) {
      const ready = await fetch(`${url}/readyz`);
      assert.equal(ready.status, 200, `${url}/readyz`);
    }
    assert.equal(await applied(), String(journal.entries.length));
    const hashes = await pool.query<{ hash: string }>('SELECT hash FROM drizzle.__drizzle_migrations');
    assert.equal(new Set(hashes.rows.map((row) => row.hash)).size, journal.entries.length, 'no migration recorded twice');

    // Each process serves the upgraded schema: an account made through one signs in through another.
    const created = await fetch(`${urls[0]}/admin/v1/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
      body: JSON.stringify({ email: 'upgrade@example.com', password: 'upgrade-test-pw' }),
    });
    assert.equal(created.status, 201, await created.text());
    const login = await fetch(`${urls[PROCESSES - 1]}/console/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'upgrade@example.com', password: 'upgrade-test-pw' }),
    });
    assert.equal(login.status, 200, await login.text());
  },
);

/** `npm run -s admin -- migrate` with this DATABASE_URL (none: unset): its exit code and its one JSON line. */
function adminMigrate(databaseUrl: string | undefined): { status: number | null; json: unknown } {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.DATABASE_URL;
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'packages/server/src/cli/admin.ts', 'migrate'], { cwd: root, env, encoding: 'utf8' });
  return { status: result.status, json: JSON.parse(result.stdout) };
}

test('admin migrate: an older database gets the missing migrations, once; a second run has nothing to do', { skip: serverUrl ? false : 'DATABASE_URL is not set (CI runs the suite on PostgreSQL too)', timeout: 120_000 }, async () => {
  assert.ok(serverUrl);
  const database = await createServerDatabase(serverUrl);
  cleanups.push(database.drop);
  const journal = JSON.parse(await readFile(path.join(MIGRATIONS_FOLDER, 'meta/_journal.json'), 'utf8')) as Journal;
  const work = await mkdtemp(path.join(os.tmpdir(), 'parley-migrate-'));
  cleanups.push(() => rm(work, { recursive: true, force: true }));
  const older = path.join(work, 'older-drizzle');
  await cp(MIGRATIONS_FOLDER, older, { recursive: true });
  await writeFile(path.join(older, 'meta/_journal.json'), JSON.stringify({ ...journal, entries: journal.entries.slice(0, OLDER_VERSION_MIGRATIONS) }));
  const pool = new pg.Pool({ connectionString: database.url, max: 1 });
  cleanups.push(() => pool.end());
  await migrate(drizzle(pool), { migrationsFolder: older });

  for (let run = 0; run < 2; run += 1) {
    assert.deepEqual(adminMigrate(database.url), { status: 0, json: { database: 'postgres', migrations: journal.entries.length } });
    const hashes = await pool.query<{ hash: string }>('SELECT hash FROM drizzle.__drizzle_migrations');
    assert.equal(hashes.rows.length, journal.entries.length);
    assert.equal(new Set(hashes.rows.map((row) => row.hash)).size, journal.entries.length, 'no migration recorded twice');
  }
});

test('admin migrate without DATABASE_URL: exit 1, the embedded database migrates at the start of its server', () => {
  assert.deepEqual(adminMigrate(undefined), {
    status: 1,
    json: { error: 'DATABASE_URL is not set: the embedded database is migrated by the server at its start' },
  });
});
