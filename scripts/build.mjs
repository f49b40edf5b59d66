#!/usr/bin/env node
// Builds every packages/<name>/build.mjs (the server's JavaScript, the SDK, the web account, the chat widget) so
// that `npm install` (prepare), `npm start` (prestart) and `npm test` run current builds. Each skips itself when
// its output is newer than its sources, so an unchanged checkout costs only the checks; they run side by side.
// Before those, one check here: when nothing any build reads changed since the last run that built everything
// (a stamp), no build process is started at all (a restart's `npm start` saves their start-up, some 150 ms).
// No network is used.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { upToDate } from './up-to-date.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamp = path.join(root, 'node_modules', '.cache', 'parley', 'builds-current');
const packages = (...names) => names.map((name) => path.join(root, 'packages', name));
// Everything a packages/<name>/build.mjs reads, and what each writes (each build's own check decides what is rebuilt).
const inputs = [
  ...packages('contracts/src', 'sdk/src', 'server/src', 'server/drizzle', 'web/src', 'widget/src'),
  ...packages('sdk/build.mjs', 'server/build.mjs', 'web/build.mjs', 'widget/build.mjs'),
  fileURLToPath(import.meta.url),
  path.join(root, 'scripts', 'up-to-date.mjs'),
  // The server's database template is made by this PGlite.
  fileURLToPath(import.meta.resolve('@electric-sql/pglite')),
];
const outputs = packages('sdk/dist/index.js', 'server/dist/.built', 'server/dist/pglite-template.tar', 'web/dist/index.html', 'widget/dist/loader.js');
if (outputs.every((output) => existsSync(output)) && upToDate([stamp], inputs.filter((input) => existsSync(input)))) process.exit(0);
const started = new Date();

const scripts = readdirSync(path.join(root, 'packages'))
  .sort()
  .map((name) => ({ name, script: path.join(root, 'packages', name, 'build.mjs') }))
  .filter(({ script }) => existsSync(script));
const results = await Promise.all(
  scripts.map(
    ({ name, script }) =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [script], { stdio: 'inherit', cwd: path.dirname(script) });
        child.on('exit', (code) => resolve({ name, code }));
        child.on('error', () => resolve({ name, code: 1 }));
      }),
  ),
);
const failed = results.filter(({ code }) => code !== 0);
for (const { name } of failed) console.error(`build of packages/${name} failed`);
if (failed.length > 0) process.exit(1);
// Dated from the start: a file changed while the builds ran is seen by the next run.
mkdirSync(path.dirname(stamp), { recursive: true });
writeFileSync(stamp, `${started.toISOString()}\n`);
utimesSync(stamp, started, started);
