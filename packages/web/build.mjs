#!/usr/bin/env node
// Builds the web account (src/main.tsx, Preact) into dist/: hashed, minified assets and an index.html that
// loads them. Runs inside `npm install` (prepare), `npm start` (prestart) and `npm test` (scripts/build.mjs);
// skipped when dist/ is newer than every source file.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { upToDate } from '../../scripts/up-to-date.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, 'dist');
const BUDGET = 80 * 1024;

const inputs = [path.join(here, 'src'), path.join(here, '..', 'contracts', 'src'), fileURLToPath(import.meta.url)];
if (upToDate([path.join(dist, 'index.html')], inputs)) process.exit(0);
const esbuild = await import('esbuild');

await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });
const result = await esbuild.build({
  entryPoints: [path.join(here, 'src/main.tsx')],
  outdir: path.join(dist, 'assets'),
  entryNames: '[name]-[hash]',
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2022'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});

const outputs = Object.keys(result.metafile.outputs).map((file) => path.relative(dist, path.resolve(file)).split(path.sep).join('/'));
const script = outputs.find((file) => file.endsWith('.js'));
const style = outputs.find((file) => file.endsWith('.css'));
const template = await readFile(path.join(here, 'src/index.html'), 'utf8');
const html = template
  .replace('<!--style-->', style ? `<link rel="stylesheet" href="/${style}">` : '')
  .replace('<!--script-->', `<script type="module" src="/${script}"></script>`);
await writeFile(path.join(dist, 'index.html'), html);

let gzipped = 0;
for (const file of [...outputs, 'index.html']) gzipped += gzipSync(await readFile(path.join(dist, file))).length;
console.log(`web account built: ${outputs.join(', ')} — ${(gzipped / 1024).toFixed(1)} kB gzipped (budget 80 kB)`);
if (gzipped > BUDGET) {
  console.error('web account bundle is over its 80 kB gzipped budget');
  process.exit(1);
}
