// Browser tests without Chromium (issue #23, item 11): outside CI they are skipped with one line saying how to
// enable them, and npm test repeats that line once after its report; under CI they run and fail. A real browser
// test file is run by the test runner in a child process with CHROMIUM_PATH naming a file that does not exist.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { browserSkipNotice } from './support/chromium.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const FILE = 'packages/server/test/web-account.test.ts';
const MISSING = '/nonexistent/parley-test/chromium';
const REASON = `browser tests skipped: no Chromium at ${MISSING}; to run them, install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH to a Chromium binary`;

/** The environment of a run on a machine without Chromium, CI set or not. */
function envWithout(ci: string | undefined): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env, CHROMIUM_PATH: MISSING, CI: ci };
  if (ci === undefined) delete env.CI;
  // It would make the child report to this runner instead of printing its own spec report.
  delete env.NODE_TEST_CONTEXT;
  return env;
}

/** Runs `FILE` the way scripts/test.mjs does (without its bundle build, which other test files are serving). */
function runBrowserTestFile(env: Record<string, string | undefined>): Promise<{ status: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', FILE], { cwd: root, env });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, output }));
  });
}

test('without Chromium and outside CI the browser tests are skipped with how to enable them; under CI they fail', { timeout: 120_000 }, async () => {
  const [outside, ci] = await Promise.all([runBrowserTestFile(envWithout(undefined)), runBrowserTestFile(envWithout('true'))]);

  assert.equal(outside.status, 0, outside.output);
  assert.ok(outside.output.includes(`﹣ web account in Chromium`), outside.output);
  assert.ok(outside.output.includes(`# ${REASON}\n`), outside.output);
  assert.match(outside.output, /^ℹ pass 0$/m);
  assert.match(outside.output, /^ℹ fail 0$/m);
  // npm test prints the line once more after its report, for the files that use the browser only.
  assert.equal(browserSkipNotice([FILE, 'packages/server/test/tags.test.ts'], envWithout(undefined)), REASON);
  assert.equal(browserSkipNotice(['packages/server/test/tags.test.ts'], envWithout(undefined)), undefined);
  assert.equal(browserSkipNotice([FILE], envWithout('true')), undefined);

  assert.equal(ci.status, 1, ci.output);
  assert.ok(ci.output.includes(`no Chromium at ${MISSING} (CI is set, so the browser tests must run)`), ci.output);
});
