#!/usr/bin/env node
// `npm test [-- files...]`: Node's built-in test runner over every *.test.ts, TypeScript through tsx.
// On PGlite (no DATABASE_URL) a migrated database template is made once per migration set, so each
// test file starts from a copy in under a second instead of creating a cluster (about 4 s).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { browserSkipNotice } from '../packages/server/test/support/chromium.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);

function findTests(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...findTests(full));
    else if (entry.name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

const args = process.argv.slice(2);
const files = args.length > 0 ? args : findTests(path.join(root, 'packages')).map((f) => path.relative(root, f)).sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}

// The browser bundles the tests serve are built from the current sources first (esbuild: well under a second).
const built = spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);

const env = { ...process.env };
if (!env.DATABASE_URL) {
  const cacheDir = path.join(root, 'node_modules/.cache/parley');
  mkdirSync(cacheDir, { recursive: true });
  const template = path.join(cacheDir, `pglite-template-${migrationHash().slice(0, 16)}.tar`);
  if (!existsSync(template)) {
    const made = spawnSync(process.execPath, ['--import', 'tsx', 'packages/server/test/support/make-pglite-template.ts', template], {
      stdio: 'inherit',
    });
    if (made.status !== 0) process.exit(made.status ?? 1);
  }
  env.PARLEY_TEST_PGLITE_TEMPLATE = template;
} else {
  // On a PostgreSQL server each test file copies a database migrated once (CREATE DATABASE … TEMPLATE) rather than
  // migrating its own: faster, and no file holds a transaction of many seconds open. The server's oldest open
  // transaction holds back the event feed of every database on it (the feed shows what is older than it), so
  // another file's migration made the feed tests of the files beside it wait.
  const base = new URL(env.DATABASE_URL);
  const name = `${base.pathname.slice(1) || 'parley'}_tpl${migrationHash().slice(0, 12)}`;
  const made = spawnSync(process.execPath, ['--import', 'tsx', 'packages/server/test/support/make-pg-template.ts', env.DATABASE_URL, name], {
    stdio: 'inherit',
  });
  if (made.status !== 0) process.exit(made.status ?? 1);
  env.PARLEY_TEST_PG_TEMPLATE = name;
}

/** The hash of the migration files: a new migration set gets a new template. */
function migrationHash() {
  const hash = createHash('sha256');
  for (const file of findFiles(path.join(root, 'packages/server/drizzle'))) hash.update(file).update(readFileSync(file));
  return hash.digest('hex');
}

function findFiles(dir) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name);
      return statSync(full).isDirectory() ? findFiles(full) : [full];
    });
}

const concurrency = Math.max(2, os.availableParallelism());
// A file that hangs fails after PARLEY_TEST_FILE_TIMEOUT_MS (default 15 minutes; the slowest file takes about 3 on
// a loaded 2-core machine) with its name in the report, instead of holding the whole run until CI's own limit.
const fileTimeout = Number(process.env.PARLEY_TEST_FILE_TIMEOUT_MS ?? 15 * 60_000);
// --test-force-exit: a file whose tests have all ended exits even if one left a server open (a failed assertion
// before its close): the failure is reported at once rather than as the file's timeout 15 minutes later.
const result = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    '--test-force-exit',
    `--test-concurrency=${concurrency}`,
    `--test-timeout=${fileTimeout}`,
    '--test-reporter=spec',
    ...files,
  ],
  { stdio: 'inherit', env },
);
// The browser tests skip themselves without Chromium (outside CI); say so once, after the report.
const skipped = browserSkipNotice(files);
if (skipped) console.log(`\n${skipped}`);
process.exit(result.status ?? 1);
