// `npm run lint` (after ESLint): the OpenAPI documents, generated from the contracts exactly as the server
// serves them (no server needed), checked by Redocly's published linter with redocly.yaml beside the root.
// Quiet when clean; prints Redocly's report and exits non-zero otherwise. `--keep DIR` writes the documents
// to DIR (to read them, or to lint them with other tools).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { adminApiDocument, consoleApiDocument, demoApiDocument, publicApiDocument } from '../../packages/server/src/http/docs.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const keepAt = process.argv.indexOf('--keep');
const dir = keepAt >= 0 ? path.resolve(process.argv[keepAt + 1] ?? 'openapi') : mkdtempSync(path.join(os.tmpdir(), 'parley-openapi-'));
mkdirSync(dir, { recursive: true });

const documents = {
  'public.json': publicApiDocument(),
  'console.json': consoleApiDocument(),
  'admin.json': adminApiDocument(),
  'demo.json': demoApiDocument(),
};
const files = Object.entries(documents).map(([name, document]) => {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify(document, null, 2));
  return file;
});

const result = spawnSync(
  process.execPath,
  [path.join(root, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', '--config', path.join(root, 'redocly.yaml'), ...files],
  {
    cwd: root,
    encoding: 'utf8',
    // No telemetry, no update check: the only network this project uses is the npm registry, at install.
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' },
  },
);
if (keepAt < 0) rmSync(dir, { recursive: true, force: true });
if (result.status !== 0) {
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  console.error(`OpenAPI lint failed (${files.length} documents; \`node --import tsx scripts/openapi/lint.ts --keep openapi\` keeps them)`);
  process.exit(result.status ?? 1);
}
