#!/usr/bin/env node
// Builds @parley/sdk into dist/: index.js (one ES module; esbuild drops the type-only imports of @parley/contracts,
// so nothing but the platform is needed at run time) and the .d.ts files (tsc). Run by scripts/build.mjs (npm
// install, npm start, npm test); skipped when dist/ is newer than every source file.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, 'dist');
const contracts = path.join(here, '..', 'contracts', 'src');

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
  }
  return latest;
}

const outputs = ['index.js', 'index.d.ts'].map((file) => path.join(dist, file));
const sources = Math.max(newest(path.join(here, 'src')), newest(contracts), statSync(fileURLToPath(import.meta.url)).mtimeMs);
if (outputs.every((file) => existsSync(file) && statSync(file).mtimeMs > sources)) process.exit(0);
const { build } = await import('esbuild');

rmSync(dist, { recursive: true, force: true });
await build({
  entryPoints: [path.join(here, 'src/index.ts')],
  outfile: path.join(dist, 'index.js'),
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  legalComments: 'none',
  logLevel: 'warning',
});
const bundle = readFileSync(path.join(dist, 'index.js'), 'utf8');
if (/^\s*import\s/m.test(bundle)) {
  console.error('sdk: dist/index.js imports a module; it must need nothing at run time');
  process.exit(1);
}
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const types = spawnSync(process.execPath, [tsc, '-p', path.join(here, 'tsconfig.build.json')], { stdio: 'inherit' });
if (types.status !== 0) {
  console.error('sdk: declarations failed');
  process.exit(types.status ?? 1);
}
console.log(`sdk built: dist/index.js ${(bundle.length / 1024).toFixed(1)} kB and its .d.ts`);
