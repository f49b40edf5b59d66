// Processes on one database with separate DATA_DIRs (issue #32, 7): each local file store has an identity, the
// first recorded in the database; a process whose DATA_DIR holds another says so at start.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { localStoreId, objectStoreId, separateDataDirWarning, sharesFileStore, sharesStore, STORE_ID_FILE } from '../src/files/file-store-identity.ts';
import { createServerDatabase, openTestDatabase } from './support/database.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
let tmp: string;
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'parley-store-id-'));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

test('the first store is recorded; the same store again is shared, another is not', async () => {
  const database = await openTestDatabase();
  try {
    const first = path.join(tmp, 'a', 'files');
    const second = path.join(tmp, 'b', 'files');
    assert.equal(await sharesFileStore(database.db, first), true);
    const id = (await readFile(path.join(first, STORE_ID_FILE), 'utf8')).trim();
    assert.match(id, /^[0-9a-f-]{36}$/);
    assert.equal(await localStoreId(first), id, 'kept across starts');
    assert.equal(await sharesFileStore(database.db, first), true);
    assert.equal(await sharesFileStore(database.db, second), false);
    assert.equal(await sharesFileStore(database.db, first), true, 'the first stays the recorded one');

    // Files moved to a bucket (S3_BUCKET): the processes naming it share it whatever their DATA_DIR, and a process
    // left on a local folder is the one told.
    const bucket = objectStoreId({ bucket: 'parley-files', endpoint: 'http://minio:9000' });
    assert.equal(bucket, 's3:http://minio:9000/parley-files');
    assert.equal(await sharesStore(database.db, bucket), true, 'a bucket replaces a recorded folder');
    assert.equal(await sharesStore(database.db, bucket), true);
    assert.equal(await sharesFileStore(database.db, second), false);
    assert.equal(await sharesStore(database.db, objectStoreId({ bucket: 'other' })), false, 'another bucket is not shared');
  } finally {
    await database.close();
  }
});

/** Runs the server until it listens; resolves with its output. */
async function startAndStop(env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'packages/server/src/main.ts'], {
    cwd: root,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env },
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('Server listening at')) resolve();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
  child.kill('SIGTERM');
  assert.equal(await exited, 0);
  return output;
}

test(
  'a second process on the same database with another DATA_DIR warns at start that DATA_DIR must be shared',
  { skip: process.env.DATABASE_URL ? false : 'needs a PostgreSQL server: set DATABASE_URL (with PGlite the database is in DATA_DIR)', timeout: 180_000 },
  async () => {
    const created = await createServerDatabase(process.env.DATABASE_URL ?? '');
    try {
      const first = path.join(tmp, 'one');
      const second = path.join(tmp, 'two');
      const warning = (dataDir: string) => JSON.stringify(separateDataDirWarning(dataDir));
      const env = { DATABASE_URL: created.url, ADMIN_TOKEN: 'a'.repeat(32) };
      assert.ok(!(await startAndStop({ ...env, DATA_DIR: first })).includes('must share DATA_DIR'));
      const output = await startAndStop({ ...env, DATA_DIR: second });
      assert.ok(output.includes(`"msg":${warning(second)}`), output);
      assert.ok(!(await startAndStop({ ...env, DATA_DIR: first })).includes('must share DATA_DIR'), 'the first DATA_DIR is fine');
    } finally {
      await created.drop();
    }
  },
);
