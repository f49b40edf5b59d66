// The production build as `npm start` runs it: plain node on packages/server/dist (no TypeScript loader), its
// start logged with how long it took, and stack traces mapped back to the .ts sources. Timings are the bench's
// (`npm run bench -- footprint`), not asserted here.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';

const root = fileURLToPath(new URL('../../..', import.meta.url));
/** node's arguments in `npm start` (package.json), after the variable it sets (docs/performance.md, Footprint). */
const START = ['--enable-source-maps', 'packages/server/dist/main.js'];

let dataDir: string;
before(async () => {
  // What `npm install` (prepare) and `npm start` (prestart) run; a no-op when the build is current.
  const built = spawnSync(process.execPath, ['packages/server/build.mjs'], { cwd: root, encoding: 'utf8' });
  assert.equal(built.status, 0, built.stderr);
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-build-'));
});
after(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

test('npm start runs the JavaScript build: no TypeScript loader, no .ts module, and no tsx', () => {
  const scripts = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  assert.equal(scripts.start, `MALLOC_TRIM_THRESHOLD_=131072 node ${START.join(' ')}`);
  const main = readFileSync(path.join(root, 'packages/server/dist/main.js'), 'utf8');
  // main.ts loads the app with import() while the database opens (docs/performance.md).
  assert.match(main, /import\("\.\/app\.js"\)/);
  assert.doesNotMatch(main, /\.ts"/);
});

test('the built server starts on a new DATA_DIR, answers /healthz and logs how long its start took', { timeout: 120_000 }, async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', MALLOC_TRIM_THRESHOLD_: '131072' };
  // This test owns an embedded database in its DATA_DIR, whatever database the suite runs on.
  delete env.DATABASE_URL;
  delete env.ADMIN_TOKEN;
  delete env.REDIS_URL;
  const child = spawn(process.execPath, START, { cwd: root, env });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const started = await new Promise<{ url: string; line: Record<string, unknown> }>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString('utf8');
        const url = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
        const line = output
          .split('\n')
          .filter((text) => text.startsWith('{'))
          .map((text) => JSON.parse(text) as Record<string, unknown>)
          .find((entry) => entry.msg === 'parley started');
        if (url && line) resolve({ url, line });
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      void exited.then((code) => reject(new Error(`server exited with ${code}: ${output}`)));
    });
    assert.equal(typeof started.line.startMs, 'number');
    assert.ok((started.line.startMs as number) > 0);
    assert.equal(started.line.database, 'pglite');
    const response = await fetch(`${started.url}/healthz`);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { status: 'ok' });
    // The process is node on the build, nothing else loaded in front of it.
    const cmdline = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    assert.deepEqual(cmdline.slice(1), START);
  } finally {
    child.kill('SIGTERM');
    assert.equal(await exited, 0, output);
  }
});

test('a stack trace of the built server points at the TypeScript line that threw', () => {
  const config = pathToFileURL(path.join(root, 'packages/server/dist/config.js')).href;
  const code = `const { loadConfig } = await import(${JSON.stringify(config)});
    try { loadConfig({ PORT: 'abc' }); } catch (error) { console.log(error.stack); }`;
  const result = spawnSync(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', code], { cwd: root, encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /^ConfigError: Invalid configuration: PORT must be an integer/);
  const frame = /\(?(\S+\/packages\/server\/src\/config\.ts):(\d+):\d+\)?/.exec(result.stdout);
  assert.ok(frame, `a frame in src/config.ts: ${result.stdout}`);
  const line = readFileSync(frame[1] as string, 'utf8').split('\n')[Number(frame[2]) - 1];
  assert.match(line ?? '', /throw new ConfigError\('?\w*'?|throw new ConfigError\(name/);
});
