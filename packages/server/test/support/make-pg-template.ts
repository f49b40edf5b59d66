// Makes a migrated database on a PostgreSQL server for the test files to copy (see scripts/test.mjs), unless the
// server has it already. Made under a temporary name and renamed when complete: a copy is never taken of half a
// template, and runs that race each make their own and one rename wins.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase } from '../../src/db/client.ts';

const [serverUrl, name] = process.argv.slice(2);
if (!serverUrl || !name) throw new Error('usage: make-pg-template.ts <server url> <template name>');

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const exists = await admin(async (client) => (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1);
if (!exists) {
  const building = `${name}_b${randomBytes(4).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE "${building}"`));
  const url = new URL(serverUrl);
  url.pathname = `/${building}`;
  const handle = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 1 });
  await handle.close();
  await admin(async (client) => {
    try {
      await client.query(`ALTER DATABASE "${building}" RENAME TO "${name}"`);
    } catch (error) {
      // Another run made it first (42P04: duplicate database): its template serves.
      if ((error as { code?: string }).code !== '42P04') throw error;
      await client.query(`DROP DATABASE "${building}" WITH (FORCE)`);
    }
  });
}
