#!/usr/bin/env node
// Lint gate of the import graph (docs/architecture.md, "Arrows point one way" and "A house in layers"): no import
// cycle between the source files of packages/*/src (type-only imports count: they tie files together as much), no
// file in a feature folder of the server imports its composition root (src/app.ts, src/core.ts, src/main.ts), and
// no two top-level folders of packages/server/src (each root file counts as one) import each other both ways.
// Imports are read by TypeScript's own pre-processor; test files are left out. Exits 1 naming each cycle, climb and
// two-way pair.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const packages = path.join(root, 'packages');
const SOURCE = /\.(ts|tsx|mts|js|mjs)$/;
const SKIPPED = /\.(test|spec)\.[a-z]+$|\.d\.ts$/;

function sourcesIn(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourcesIn(full);
    return SOURCE.test(entry.name) && !SKIPPED.test(entry.name) ? [full] : [];
  });
}

const files = readdirSync(packages)
  .map((name) => path.join(packages, name, 'src'))
  .filter((dir) => existsSync(dir))
  .flatMap(sourcesIn);
const known = new Set(files);

/** The project files a file imports (relative specifiers only; packages are outside the graph). */
function importsOf(file) {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const out = new Set();
  for (const { fileName } of importedFiles) {
    if (!fileName.startsWith('.')) continue;
    const target = path.resolve(path.dirname(file), fileName);
    const hit = [target, target.replace(/\.js$/, '.ts'), `${target}.ts`, `${target}.tsx`, path.join(target, 'index.ts')].find((c) => known.has(c));
    if (hit && hit !== file) out.add(hit);
  }
  return out;
}
const graph = new Map(files.map((file) => [file, importsOf(file)]));

// Strongly connected components (Tarjan): each of more than one file is a cycle.
const order = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const cycles = [];
let next = 0;
function visit(file) {
  order.set(file, next);
  low.set(file, next);
  next += 1;
  stack.push(file);
  onStack.add(file);
  for (const target of graph.get(file)) {
    if (!order.has(target)) {
      visit(target);
      low.set(file, Math.min(low.get(file), low.get(target)));
    } else if (onStack.has(target)) {
      low.set(file, Math.min(low.get(file), order.get(target)));
    }
  }
  if (low.get(file) !== order.get(file)) return;
  const component = [];
  let member;
  do {
    member = stack.pop();
    onStack.delete(member);
    component.push(member);
  } while (member !== file);
  if (component.length > 1) cycles.push(component);
}
for (const file of files) if (!order.has(file)) visit(file);

const serverSrc = path.join(packages, 'server', 'src');
const rootFiles = new Set(['app.ts', 'core.ts', 'main.ts'].map((name) => path.join(serverSrc, name)));
const climbs = [];
for (const [file, targets] of graph) {
  if (!file.startsWith(serverSrc + path.sep) || path.dirname(file) === serverSrc) continue;
  for (const target of targets) if (rootFiles.has(target)) climbs.push([file, target]);
}

// Layers: the top-level folder (or root file) of each server file, and the imports between two of them.
const folderOf = (file) => path.relative(serverSrc, file).split(path.sep)[0];
const folderImports = new Map();
for (const [file, targets] of graph) {
  if (!file.startsWith(serverSrc + path.sep)) continue;
  for (const target of targets) {
    if (!target.startsWith(serverSrc + path.sep) || folderOf(file) === folderOf(target)) continue;
    const key = `${folderOf(file)} → ${folderOf(target)}`;
    if (!folderImports.has(key)) folderImports.set(key, []);
    folderImports.get(key).push(`${path.relative(serverSrc, file)} → ${path.relative(serverSrc, target)}`);
  }
}
const pairs = [];
for (const key of folderImports.keys()) {
  const [from, to] = key.split(' → ');
  if (from < to && folderImports.has(`${to} → ${from}`)) pairs.push([from, to]);
}
pairs.sort((a, b) => a.join().localeCompare(b.join()));

const rel = (file) => path.relative(root, file);
for (const component of cycles) console.error(`import cycle: ${component.map(rel).sort().join(' ⇄ ')}`);
for (const [file, target] of climbs) console.error(`a feature imports the composition root: ${rel(file)} → ${rel(target)}`);
for (const [a, b] of pairs) {
  const example = (from, to) => folderImports.get(`${from} → ${to}`)[0];
  console.error(`folders import each other: ${a} ⇄ ${b} (${example(a, b)}; ${example(b, a)})`);
}
if (cycles.length > 0 || climbs.length > 0 || pairs.length > 0) {
  console.error(
    `${cycles.length} import cycles, ${climbs.length} imports of the root, ${pairs.length} two-way folder pairs: arrows point one way (docs/architecture.md)`,
  );
  process.exit(1);
}
