// demo catalog: GET /demo/v1/pets (the default page of 20 animals) beside Stoplight Prism mocking the same OpenAPI
// document, and beside the bare node:http ceiling. Prism is installed on demand into bench/.cache (not a project
// dependency); its version is pinned to one that runs on Node 20.
import { spawn, execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { createAccount } from '../lib/api.ts';
import { load, responseBytes } from '../lib/load.ts';
import { cpuMicroseconds, freePort, ROOT } from '../lib/processes.ts';
import { beside, failureNotes, measureCeiling, measured, row, type Scenario } from '../lib/scenario.ts';

const PRISM_VERSION = '5.14.2';
const CACHE = path.join(ROOT, 'bench/.cache/prism');
const CONNECTIONS = 16;

async function prismBinary(log: (line: string) => void): Promise<string> {
  const binary = path.join(CACHE, 'node_modules/.bin/prism');
  if (existsSync(binary)) return binary;
  log(`installing @stoplight/prism-cli@${PRISM_VERSION} into bench/.cache/prism`);
  await mkdir(CACHE, { recursive: true });
  await promisify(execFile)('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', CACHE, `@stoplight/prism-cli@${PRISM_VERSION}`]);
  return binary;
}

async function until(ready: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} did not answer in time`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export const demoCatalog: Scenario = {
  name: 'demo-catalog',
  summary: 'GET /demo/v1/pets beside Prism mocking the same OpenAPI document',
  async run({ settings, startServer, log }) {
    const server = await startServer();
    const account = await createAccount(server);
    const headers = { authorization: `Bearer ${account.key}` };
    const url = `${server.url}/demo/v1/pets`;
    const bytes = await responseBytes(url, { headers });
    const document = await (await fetch(`${server.url}/demo/v1/openapi.json`)).text();
    const options = { headers, connections: CONNECTIONS, seconds: settings.seconds, warmupSeconds: settings.warmupSeconds };
    const parley = await load({ ...options, url, usage: server.usage });
    const peakRssMb = (await server.peakRssMb()) ?? null;
    await server.stop();

    const binary = await prismBinary(log);
    const documentFile = path.join(CACHE, 'demo-openapi.json');
    await writeFile(documentFile, document);
    const port = await freePort();
    const prism = spawn(binary, ['mock', '--host', '127.0.0.1', '--port', String(port), '--errors', 'false', documentFile], { stdio: 'ignore' });
    let prismResult;
    try {
      const prismUrl = `http://127.0.0.1:${port}/pets`;
      await until(async () => (await fetch(prismUrl, { headers })).ok, 'Prism');
      prismResult = await load({ ...options, url: prismUrl, usage: async () => ({ cpuUs: await cpuMicroseconds(prism.pid), statements: undefined }) });
    } finally {
      prism.kill('SIGTERM');
    }
    const ceiling = await measureCeiling(bytes, 200, options);
    const versusPrism = parley.throughput / prismResult.throughput;
    const common = { unit: 'req/s', ...measured(parley), peakRssMb };
    return [
      row('demo catalog', {
        ...common,
        ...beside(ceiling),
        notes: [`GET /demo/v1/pets (the account's 5 starting animals, ${bytes} bytes), ${CONNECTIONS} connections`, ...failureNotes(parley)],
      }),
      row('demo catalog vs Prism', {
        ...common,
        ...beside(prismResult, `Prism ${PRISM_VERSION} mock`),
        ratio: versusPrism,
        targets: [{ text: '≥ 5× Prism', met: versusPrism >= 5 }],
        notes: [`Prism p50 / p99: ${prismResult.p50Ms} / ${prismResult.p99Ms} ms`, ...failureNotes(prismResult, 'Prism requests')],
      }),
    ];
  },
};
