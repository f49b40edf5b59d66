#!/usr/bin/env node
// Builds the server to plain JavaScript for `npm start`: every source file of src/ (tests left out) transpiled by
// esbuild to the same place under dist/, with a source map beside it (`node --enable-source-maps` shows .ts lines),
// and @parley/contracts likewise into packages/contracts/dist/. One file per source file, not one bundle: paths
// read at run time relative to a module (the drizzle folder, the encoder's and parser's worker files, the
// lexicon, the web and widget bundles) stay where they were. Relative `.ts` imports become `.js`, and the server's
// `@parley/contracts` imports point at that build. Last, dist/pglite-template.tar: an empty database with every
// migration applied, made once here so that a server's first start unpacks it instead of running PGlite's initdb
// and the migrations (db/client.ts). Run by scripts/build.mjs (npm install, npm start, npm test); skipped when
// dist/ is newer than every source file and migration. `--check` exits 1 when the build is out of date.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const trees = [
  { src: path.join(here, 'src'), dist: path.join(here, 'dist') },
  { src: path.join(here, '..', 'contracts', 'src'), dist: path.join(here, '..', 'contracts', 'dist') },
];
const stamp = path.join(here, 'dist', '.built');
const migrations = path.join(here, 'drizzle');
const template = path.join(here, 'dist', 'pglite-template.tar');

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? files(full) : [full];
  });
}

const isSource = (file) => !file.endsWith('.test.ts');
const newestSource = Math.max(
  statSync(fileURLToPath(import.meta.url)).mtimeMs,
  ...trees.flatMap(({ src }) => files(src).filter(isSource).map((file) => statSync(file).mtimeMs)),
  ...files(migrations).map((file) => statSync(file).mtimeMs),
);
const current = existsSync(stamp) && statSync(stamp).mtimeMs >= newestSource && trees.every(({ dist }) => existsSync(dist));
if (process.argv.includes('--check')) process.exit(current ? 0 : 1);
if (current) process.exit(0);

const started = performance.now();
const { build } = await import('esbuild');
const contractsEntry = path.join(trees[1].dist, 'index.js');
// The template depends only on the migrations and the PGlite that makes it: kept across builds while it is current.
const pglitePackage = fileURLToPath(import.meta.resolve('@electric-sql/pglite'));
const templateCurrent =
  existsSync(template) &&
  statSync(template).mtimeMs > Math.max(statSync(pglitePackage).mtimeMs, ...files(migrations).map((file) => statSync(file).mtimeMs));
for (const { src, dist } of trees) {
  for (const entry of existsSync(dist) ? readdirSync(dist) : []) {
    if (!(templateCurrent && path.join(dist, entry) === template)) rmSync(path.join(dist, entry), { recursive: true, force: true });
  }
  const sources = files(src).filter(isSource);
  await build({
    entryPoints: sources.filter((file) => file.endsWith('.ts')),
    outdir: dist,
    outbase: src,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'warning',
  });
  for (const file of sources.filter((name) => !name.endsWith('.ts'))) {
    const target = path.join(dist, path.relative(src, file));
    mkdirSync(path.dirname(target), { recursive: true });
    copyFileSync(file, target);
  }
  for (const file of files(dist).filter((name) => name.endsWith('.js'))) {
    // Same length (.ts → .js) keeps every column of the source map; only import lines change otherwise.
    const text = readFileSync(file, 'utf8')
      .replace(/((?:\bfrom|\bimport)\s*\(?\s*)"(\.{1,2}\/[^"\n]*)\.ts"/g, '$1"$2.js"')
      .replace(/((?:\bfrom|\bimport)\s*\(?\s*)"@parley\/contracts"/g, (_, lead) => {
        const relative = path.relative(path.dirname(file), contractsEntry).split(path.sep).join('/');
        return `${lead}"${relative.startsWith('.') ? relative : `./${relative}`}"`;
      });
    writeFileSync(file, text);
    if (/^\s*import\s[^;]*"(\.{1,2}\/[^"]*\.ts|@parley\/[^"]*)"/m.test(text)) {
      console.error(`server build: ${path.relative(here, file)} still imports TypeScript`);
      process.exit(1);
    }
  }
}

// In a child process: initdb holds a second PGlite instance and some 800 MB while it runs.
const code = `
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  const { writeFile } = await import('node:fs/promises');
  const client = await PGlite.create();
  await migrate(drizzle(client), { migrationsFolder: ${JSON.stringify(migrations)} });
  const dump = await client.dumpDataDir('none');
  await client.close();
  await writeFile(${JSON.stringify(`${template}.partial`)}, Buffer.from(await dump.arrayBuffer()));`;
const made = templateCurrent ? { status: 0 } : spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: here, stdio: 'inherit' });
if (made.status !== 0) {
  console.error('server build: the PGlite template could not be made');
  process.exit(1);
}
if (!templateCurrent) renameSync(`${template}.partial`, template);
writeFileSync(stamp, `${new Date().toISOString()}\n`);
process.stderr.write(`server built to packages/server/dist in ${Math.round(performance.now() - started)} ms\n`);
