#!/usr/bin/env node
// Builds the browser parts (every packages/<name>/build.mjs: the web account, the chat widget) so that
// `npm install` (prepare), `npm start` (prestart) and `npm test` serve current bundles. No network is used.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
for (const name of readdirSync(path.join(root, 'packages')).sort()) {
  const script = path.join(root, 'packages', name, 'build.mjs');
  if (!existsSync(script)) continue;
  const result = spawnSync(process.execPath, [script], { stdio: 'inherit', cwd: path.dirname(script) });
  if (result.status !== 0) {
    console.error(`build of packages/${name} failed`);
    process.exit(result.status ?? 1);
  }
}
