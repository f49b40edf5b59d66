// Creates a migrated PGlite database and dumps it to the given file (see scripts/test.mjs).
import { rename, writeFile } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { MIGRATIONS_FOLDER } from '../../src/db/client.ts';

const target = process.argv[2];
if (!target) throw new Error('usage: make-pglite-template.ts <file>');
const client = await PGlite.create();
await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
const dump = await client.dumpDataDir('none');
await client.close();
const partial = `${target}.${process.pid}`;
await writeFile(partial, Buffer.from(await dump.arrayBuffer()));
await rename(partial, target); // atomic: a parallel run never reads half a template
