// The project's docs stand alone: a reader of the repository has only what is in it, so every local link of
// README.md and docs/ resolves to a file here, and nothing sends the reader outside (to a folder beside the clone).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const root = path.resolve(import.meta.dirname, '../../..');
const pages = ['README.md', ...readdirSync(path.join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

test('README and docs/ link only to files of the repository', () => {
  const broken: string[] = [];
  for (const page of pages) {
    // Code spans are text, not links (a regular expression may look like one).
    const text = readFileSync(path.join(root, page), 'utf8').replace(/`[^`\n]*`/g, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!target || /^[a-z]+:/i.test(target) || target.startsWith('#')) continue;
      const file = path.resolve(path.dirname(path.join(root, page)), target.split('#')[0] ?? '');
      if (!file.startsWith(root + path.sep) || !existsSync(file)) broken.push(`${page} → ${target}`);
    }
  }
  assert.deepEqual(broken, []);
});

test('README and docs/ never send the reader outside the repository', () => {
  const outside = pages.filter((page) => /\.\.\/shared|DESIGN\.md/.test(readFileSync(path.join(root, page), 'utf8')));
  assert.deepEqual(outside, []);
});

test('docs/architecture.md names the module of every feature folder that has one', () => {
  const architecture = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');
  const src = path.join(root, 'packages/server/src');
  const modules = readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((file) => /(^|\/)[a-z-]*module\.ts$/.test(file) && file !== 'module.ts')
    .map((file) => file.split(path.sep).join('/'));
  assert.ok(modules.length > 10, `modules found: ${modules.join(', ')}`);
  assert.deepEqual(
    modules.filter((file) => !architecture.includes(`\`${file}\``)),
    [],
  );
});
