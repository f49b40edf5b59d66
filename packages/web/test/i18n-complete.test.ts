// Every text the web account passes to t() as a literal has its Russian text (a missing one shows English in the
// Russian account, which no browser test notices).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ru } from '../src/i18n/ru.ts';

const SRC = path.join(path.dirname(fileURLToPath(import.meta.url)), '../src');
/** t('…') or t("…") with a literal text (escaped quotes allowed). */
const LITERAL = /\bt\(\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'i18n' ? [] : sources(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

test('every literal text given to t() has a Russian text', () => {
  const missing: string[] = [];
  for (const file of sources(SRC)) {
    for (const match of readFileSync(file, 'utf8').matchAll(LITERAL)) {
      const text = (match[1] ?? match[2] ?? '').replace(/\\(.)/g, '$1');
      if (!(text in ru)) missing.push(`${path.relative(SRC, file)}: ${text}`);
    }
  }
  assert.deepEqual(missing, []);
});
