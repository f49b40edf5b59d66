#!/usr/bin/env node
// `pg-admin.mjs SERVER_URL create NAME` | `pg-admin.mjs SERVER_URL drop-prefix PREFIX`
// Creates the CI run's database, and drops it with every per-test-file database named after it.
import pg from 'pg';

const [url, command, name] = process.argv.slice(2);
if (!url || !name || !/^[a-z0-9_]+$/.test(name)) {
  console.error('usage: pg-admin.mjs SERVER_URL create|drop-prefix NAME');
  process.exit(2);
}
const client = new pg.Client({ connectionString: url });
await client.connect();
try {
  if (command === 'create') {
    await client.query(`CREATE DATABASE "${name}"`);
  } else if (command === 'drop-prefix') {
    const { rows } = await client.query('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${name}%`]);
    for (const row of rows) await client.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
  } else {
    throw new Error(`unknown command ${command}`);
  }
} finally {
  await client.end();
}
