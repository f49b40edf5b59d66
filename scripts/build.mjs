#!/usr/bin/env node
// Builds every packages/<name>/build.mjs (the server's JavaScript, the SDK, the web account, the chat widget) so
// that `npm install` (prepare), `npm start` (prestart) and `npm test` run current builds. Each skips itself when
// its output is newer than its sources, so an unchanged checkout costs only the checks; they run side by side.
// No network is used.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
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
