#!/usr/bin/env node
// Builds the chat widget into dist/: loader.js (served at /widget.js; plain TypeScript, budget 10 kB gzipped) and
// frame.js + frame.css (the frame app, Preact; budget 40 kB gzipped). Run by scripts/build.mjs; skipped when dist/
// is newer than every source file.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { upToDate } from '../../scripts/up-to-date.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, 'dist');
const outputs = ['loader.js', 'frame.js', 'frame.css'].map((file) => path.join(dist, file));
if (upToDate(outputs, [path.join(here, 'src'), path.join(here, '..', 'contracts', 'src'), fileURLToPath(import.meta.url)])) process.exit(0);
const { build } = await import('esbuild');
mkdirSync(dist, { recursive: true });

const common = { bundle: true, minify: true, format: 'iife', target: 'es2020', legalComments: 'none', logLevel: 'warning' };
await build({ ...common, entryPoints: { loader: path.join(here, 'src/loader.ts') }, outdir: dist });
await build({
  ...common,
  entryPoints: { frame: path.join(here, 'src/frame/main.tsx') },
  outdir: dist,
  jsx: 'automatic',
  jsxImportSource: 'preact',
});

const budgets = [
  { name: 'loader', files: ['loader.js'], limit: 10 * 1024 },
  { name: 'frame', files: ['frame.js', 'frame.css'], limit: 40 * 1024 },
];
let over = false;
for (const { name, files, limit } of budgets) {
  const size = files.reduce((sum, file) => sum + gzipSync(readFileSync(path.join(dist, file))).length, 0);
  console.log(`widget ${name}: ${(size / 1024).toFixed(1)} kB gzipped (budget ${limit / 1024} kB)`);
  if (size > limit) over = true;
}
if (over) {
  console.error('widget bundle over budget');
  process.exit(1);
}
