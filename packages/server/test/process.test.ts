// The real process, as `npm start` runs it: start-up, the operator CLI against the running server,
// SIGTERM, restart keeping data, the DATA_DIR lock, kill -9 recovery and bad configuration.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const MAIN = 'packages/server/src/main.ts';

interface Server {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function baseEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info', PORT: '0', ...extra };
  // These tests own an embedded database in their DATA_DIR, whatever database the suite runs on.
  delete env.DATABASE_URL;
  delete env.ADMIN_TOKEN;
  delete env.REDIS_URL;
  return env;
}

function spawnServer(env: Record<string, string>): Omit<Server, 'url'> & { ready: Promise<string> } {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], { cwd: root, env: baseEnv(env) });
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const ready = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then(({ code }) => reject(new Error(`server exited with ${code}: ${output}`)));
    setTimeout(() => reject(new Error(`server did not start in time: ${output}`)), 90_000).unref();
  });
  return { child, exited, ready, output: () => output };
}

async function startServer(env: Record<string, string>): Promise<Server> {
  const server = spawnServer(env);
  return { ...server, url: await server.ready };
}

function cli(args: string[], env: Record<string, string>, input?: string) {
  const result = spawnSync('npm', ['run', '-s', 'admin', '--', ...args], {
    cwd: root,
    env: baseEnv(env),
    input: input ?? '',
    encoding: 'utf8',
  });
  const lines = result.stdout.trim().split('\n');
  assert.equal(lines.length, 1, `one JSON object on stdout, got: ${result.stdout}${result.stderr}`);
  return { status: result.status, json: JSON.parse(lines[0] ?? 'null') as Record<string, unknown> };
}

let dataDir: string;
const secrets: string[] = [];
const allOutput: string[] = [];

before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-process-'));
});
after(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('the server process', { timeout: 240_000 }, () => {
  let server: Server;
  let env: Record<string, string>;
  let key: string;
  let consoleToken: string;

  test('starts on an empty DATA_DIR, shows the operator token once and keeps it (0600)', async () => {
    server = await startServer({ DATA_DIR: dataDir });
    env = { DATA_DIR: dataDir, PARLEY_URL: server.url };
    const tokenFile = path.join(dataDir, 'admin-token');
    const token = (await readFile(tokenFile, 'utf8')).trim();
    assert.equal((await stat(tokenFile)).mode & 0o777, 0o600);
    assert.ok(server.output().includes(`Operator API token (shown once; kept in ${tokenFile}): ${token}`));
    const health = await fetch(`${server.url}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok' });
  });

  test('a second process on the same DATA_DIR is refused with a clear error', async () => {
    const second = spawnServer({ DATA_DIR: dataDir });
    second.ready.catch(() => {});
    const { code } = await second.exited;
    assert.equal(code, 1);
    assert.equal(
      second.output().trim(),
      `DATA_DIR ${dataDir} is in use by another Parley process (pid ${server.child.pid}); stop it or start this one with another DATA_DIR`,
    );
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200, 'the first process is unharmed');
  });

  test('the admin CLI round trip against the running server', async () => {
    const email = 'Operator.Test@example.com';
    const password = 'cli-password-123';
    secrets.push(password);
    const account = cli(['create-account', '--email', email], env, `${password}\n`); // password from stdin
    assert.equal(account.status, 0);
    assert.equal(account.json.email, email.toLowerCase());
    const accountId = String(account.json.id);

    const dup = cli(['create-account', '--email', email, '--password', password], env);
    assert.equal(dup.status, 1);
    assert.deepEqual(dup.json, {
      error: { message: 'An account with this e-mail already exists', statusCode: 409 },
      status: 409,
    });

    const created = cli(['create-key', '--account', accountId, '--scopes', 'chats:read,tags'], env);
    assert.equal(created.status, 0);
    assert.deepEqual(created.json.scopes, ['chats:read', 'tags']);
    key = String(created.json.key);
    secrets.push(key);
    const list = (path: string) => fetch(`${server.url}/api/v1${path}`, { headers: { authorization: key } });
    assert.equal((await list('/chats/chat')).status, 200);

    const login = await fetch(`${server.url}/console/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    assert.equal(login.status, 200);
    consoleToken = ((await login.json()) as { token: string }).token;
    assert.equal((await stat(path.join(dataDir, 'jwt-secret'))).mode & 0o777, 0o600);

    // `--name`: the owner's name (issue #33), shown on their Profile and with their replies.
    const named = cli(['create-account', '--email', 'Named.Owner@example.com', '--password', password, '--name', 'Nina Named'], env);
    assert.equal(named.status, 0);
    const namedLogin = await fetch(`${server.url}/console/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'named.owner@example.com', password }),
    });
    const namedToken = ((await namedLogin.json()) as { token: string }).token;
    const me = await fetch(`${server.url}/console/v1/me/`, { headers: { authorization: `Bearer ${namedToken}` } });
    assert.equal(((await me.json()) as { name: string }).name, 'Nina Named');

    // No SMTP_URL: the start said once that no e-mail is sent; the operator makes a one-time reset link instead.
    assert.equal(server.output().split('SMTP_URL is not set: no e-mails are sent').length - 1, 1, server.output());
    const reset = cli(['reset-password', '--email', 'Named.Owner@example.com'], env);
    assert.equal(reset.status, 0, JSON.stringify(reset.json));
    assert.deepEqual(Object.keys(reset.json).sort(), ['email', 'expiresAt', 'memberId', 'resetUrl']);
    assert.equal(reset.json.email, 'named.owner@example.com');
    const resetUrl = String(reset.json.resetUrl);
    // `{PUBLIC_URL}/reset-password/<token>` (PUBLIC_URL here is HOST:PORT with the PORT=0 the server was given).
    assert.match(resetUrl, /^http:\/\/127\.0\.0\.1:\d+\/reset-password\/[\w-]{43}$/);
    const inAnHour = Date.parse(String(reset.json.expiresAt)) - Date.now();
    assert.ok(inAnHour > 59 * 60_000 && inAnHour <= 60 * 60_000, String(reset.json.expiresAt));
    const newPassword = 'operator-reset-456';
    secrets.push(resetUrl.split('/').pop() ?? resetUrl, newPassword);
    const used = await fetch(`${server.url}/console/v1/auth/reset-password`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: resetUrl.split('/').pop(), password: newPassword }),
    });
    assert.equal(used.status, 200);
    const relogin = await fetch(`${server.url}/console/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'named.owner@example.com', password: newPassword }),
    });
    assert.equal(relogin.status, 200);
    const nobody = cli(['reset-password', '--email', 'nobody@example.com'], env);
    assert.deepEqual([nobody.status, nobody.json], [1, { error: { message: 'Member not found', statusCode: 404 }, status: 404 }]);
    assert.equal(cli(['reset-password'], env).status, 2);

    const keys = cli(['list-keys', '--account', accountId], env);
    assert.equal((keys.json.keys as unknown[]).length, 1);

    assert.deepEqual(cli(['set-subscription', '--account', accountId, '--active', 'false'], env).json, { active: false });
    assert.equal((await list('/chats/chat')).status, 402);
    assert.deepEqual(cli(['set-subscription', '--account', accountId, '--active', 'true'], env).json, { active: true });
    assert.equal((await list('/chats/chat')).status, 200);

    const spare = cli(['create-key', '--account', accountId], env);
    const spareKey = String(spare.json.key);
    secrets.push(spareKey);
    assert.deepEqual(cli(['deactivate-key', '--key', String(spare.json.id)], env).json, { id: spare.json.id, active: false });
    const inactive = await fetch(`${server.url}/api/v1/chats/chat`, { headers: { authorization: spareKey } });
    assert.equal(inactive.status, 403);

    const unknown = cli(['launch-rockets'], env);
    assert.equal(unknown.status, 2);
    assert.equal(unknown.json.error, 'unknown command launch-rockets');
    const noToken = cli(['list-keys', '--account', accountId], { DATA_DIR: path.join(dataDir, 'nowhere'), PARLEY_URL: server.url });
    assert.equal(noToken.status, 2);
  });

  test('SIGTERM stops it cleanly with exit code 0 and releases DATA_DIR', async () => {
    server.child.kill('SIGTERM');
    const { code } = await server.exited;
    allOutput.push(server.output());
    assert.equal(code, 0);
    assert.ok(!existsSync(path.join(dataDir, 'parley.pid')));
  });

  test('a restart keeps the data, the console signing key, and does not show the token again', async () => {
    server = await startServer({ DATA_DIR: dataDir });
    assert.ok(!server.output().includes('Operator API token'));
    const res = await fetch(`${server.url}/api/v1/chats/chat`, { headers: { authorization: key } });
    assert.equal(res.status, 200);
    const channels = await fetch(`${server.url}/console/v1/channels/all/`, {
      headers: { authorization: `Bearer ${consoleToken}` },
    });
    assert.equal(channels.status, 200, 'a console token from before the restart is still valid');
  });

  test('after kill -9 the stale lock is taken over on the next start', async () => {
    server.child.kill('SIGKILL');
    await server.exited;
    allOutput.push(server.output());
    assert.ok(existsSync(path.join(dataDir, 'parley.pid')), 'the dead process left its lock');
    server = await startServer({ DATA_DIR: dataDir });
    const res = await fetch(`${server.url}/api/v1/chats/chat`, { headers: { authorization: key } });
    assert.equal(res.status, 200);
    server.child.kill('SIGTERM');
    assert.equal((await server.exited).code, 0);
    allOutput.push(server.output());
  });

  test('no key or password reached the server output', () => {
    const output = allOutput.join('\n');
    assert.ok(output.includes('"msg":"request"'), 'requests were logged');
    for (const secret of secrets) assert.ok(!output.includes(secret), 'a secret was logged');
  });
});

test('a bad configuration value stops the start with one line naming the variable', async () => {
  for (const [variable, value] of [
    ['PORT', 'abc'],
    ['DATABASE_URL', 'mysql://localhost/x'],
    ['LOG_LEVEL', 'loud'],
    ['METRICS_TOKEN', 'too-short'],
    ['METRICS_PORT', '0'],
  ] as const) {
    const result = spawnSync(process.execPath, ['--import', 'tsx', MAIN], {
      cwd: root,
      env: { ...baseEnv({ DATA_DIR: path.join(os.tmpdir(), 'parley-never-created') }), [variable]: value },
      encoding: 'utf8',
    });
    assert.equal(result.status, 1);
    const lines = result.stderr.trim().split('\n');
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0] ?? '', new RegExp(`^Invalid configuration: ${variable} `));
  }
});

test('a start on a port in use stops at once, naming PORT, before any data folder or operator token', async () => {
  const occupier = createServer();
  await new Promise<void>((resolve) => occupier.listen(0, '127.0.0.1', resolve));
  const { port } = occupier.address() as AddressInfo;
  const fresh = path.join(os.tmpdir(), `parley-port-in-use-${process.pid}-${port}`);
  try {
    const result = spawnSync(process.execPath, ['--import', 'tsx', MAIN], {
      cwd: root,
      env: baseEnv({ DATA_DIR: fresh, PORT: String(port) }),
      encoding: 'utf8',
    });
    assert.equal(result.status, 1);
    assert.equal(result.stdout, '', 'no operator token printed');
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    assert.match(result.stderr, new RegExp(`^Cannot start: PORT ${port} is in use on 127\\.0\\.0\\.1`));
    assert.equal(existsSync(fresh), false, 'no data folder made');
  } finally {
    await new Promise<void>((resolve) => occupier.close(() => resolve()));
    await rm(fresh, { recursive: true, force: true });
  }
});

test('METRICS_PORT in use stops the start at once, naming METRICS_PORT, before any data folder', async () => {
  const occupier = createServer();
  await new Promise<void>((resolve) => occupier.listen(0, '127.0.0.1', resolve));
  const { port } = occupier.address() as AddressInfo;
  const fresh = path.join(os.tmpdir(), `parley-metrics-port-in-use-${process.pid}-${port}`);
  try {
    const result = spawnSync(process.execPath, ['--import', 'tsx', MAIN], {
      cwd: root,
      env: baseEnv({ DATA_DIR: fresh, METRICS_PORT: String(port) }),
      encoding: 'utf8',
    });
    assert.equal(result.status, 1);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr.trim(), `Cannot start: METRICS_PORT ${port} is in use on 127.0.0.1 (another process listens there); stop it or set another METRICS_PORT`);
    assert.equal(existsSync(fresh), false, 'no data folder made');
  } finally {
    await new Promise<void>((resolve) => occupier.close(() => resolve()));
    await rm(fresh, { recursive: true, force: true });
  }
});

test('METRICS_TOKEN and METRICS_PORT from the environment: /metrics on both ports, the token never in the output', { timeout: 120_000 }, async () => {
  const fresh = await mkdtemp(path.join(os.tmpdir(), 'parley-metrics-'));
  const token = 'metrics-token-from-the-environment-0123456789';
  const metricsPort = await new Promise<number>((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
  // trace: the most the process ever logs.
  const server = await startServer({ DATA_DIR: fresh, METRICS_TOKEN: token, METRICS_PORT: String(metricsPort), LOG_LEVEL: 'trace' });
  try {
    assert.equal((await fetch(`${server.url}/metrics`)).status, 401);
    const withToken = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(withToken.status, 200);
    assert.match(await withToken.text(), /^parley_messages_ingested_total\{channel_kind="custom"\} 0$/m);
    const own = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    assert.equal(own.status, 200);
    assert.match(await own.text(), /^http_request_duration_seconds_count\{method="GET",route="\/metrics",status_code="200"\} 1$/m);
    assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
  } finally {
    server.child.kill('SIGTERM');
    assert.equal((await server.exited).code, 0);
    await rm(fresh, { recursive: true, force: true });
  }
  assert.ok(server.output().includes('"msg":"metrics listener started"'));
  assert.ok(!server.output().includes(token), 'the metrics token was logged');
});

test('HOST that is no address stops the start with one line naming HOST, without a DNS wait', async () => {
  const fresh = path.join(os.tmpdir(), `parley-bad-host-${process.pid}`);
  for (const [value, message] of [
    ['999.1.1.1', /^Invalid configuration: HOST must be an IP address or a host name \(got "999\.1\.1\.1"\)$/],
    // A well-formed address that is not this machine's: found when binding, still before DATA_DIR is made.
    ['192.0.2.1', /^Cannot start: HOST 192\.0\.2\.1 is not an address of this machine$/],
  ] as const) {
    const result = spawnSync(process.execPath, ['--import', 'tsx', MAIN], {
      cwd: root,
      env: baseEnv({ DATA_DIR: fresh, HOST: value }),
      encoding: 'utf8',
    });
    assert.equal(result.status, 1, value);
    assert.match(result.stderr.trim(), message);
    assert.equal(result.stdout, '');
    assert.equal(existsSync(fresh), false);
  }
});

test('the operator CLI prints its usage for --help and names a bad option without a stack trace', () => {
  const help = spawnSync('npm', ['run', '-s', 'admin', '--', '--help'], { cwd: root, env: baseEnv({}), encoding: 'utf8' });
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /^usage: npm run -s admin -- <command> \[options\]/);
  assert.match(help.stdout, /create-key {7}--account ID/);
  assert.doesNotMatch(help.stdout + help.stderr, /\n\s+at /, 'no stack trace');
  const bad = spawnSync('npm', ['run', '-s', 'admin', '--', 'create-key', '--bogus'], { cwd: root, env: baseEnv({}), encoding: 'utf8' });
  assert.equal(bad.status, 2);
  const json = JSON.parse(bad.stdout) as { error: string; usage: string };
  assert.match(json.error, /Unknown option '--bogus'/);
  assert.match(json.usage, /^usage:/);
  assert.doesNotMatch(bad.stderr, /\n\s+at /);
});
