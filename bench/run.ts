// `npm run bench [-- <scenario>…] [--db pglite|postgres] [--seconds N] [--profile]`: every scenario (or the
// named ones) against a fresh database each, the figures beside their ceilings, saved as
// bench/results/<date>-<db>.json and printed as a Markdown table. See docs/performance.md.
import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { scenarioDatabase, findPostgres, type DatabaseKind, type PostgresServer } from './lib/database.ts';
import { buildServer, startParley, ROOT, type ParleyServer } from './lib/processes.ts';
import { summarizeProfile } from './lib/profile.ts';
import { markdownTable } from './lib/report.ts';
import { peakRssTarget, row, type Row, type Scenario, type ScenarioSettings } from './lib/scenario.ts';
import { actionCall } from './scenarios/action-call.ts';
import { chatList } from './scenarios/chat-list.ts';
import { conversations } from './scenarios/conversations.ts';
import { demoCatalog } from './scenarios/demo-catalog.ts';
import { footprint } from './scenarios/footprint.ts';
import { gateway, gatewayReject } from './scenarios/gateway.ts';
import { ingest } from './scenarios/ingest.ts';
import { search } from './scenarios/search.ts';
import { replay } from './scenarios/replay.ts';
import { reportsSummary } from './scenarios/reports-summary.ts';
import { teamInbox } from './scenarios/team-inbox.ts';
import { webhookDelivery } from './scenarios/webhook-delivery.ts';

const SCENARIOS: Scenario[] = [
  footprint,
  gateway,
  gatewayReject,
  chatList,
  ingest,
  search,
  conversations,
  webhookDelivery,
  demoCatalog,
  reportsSummary,
  replay,
  teamInbox,
  actionCall,
];

const USAGE = `usage: npm run bench -- [scenario…] [--db pglite|postgres] [--seconds N] [--chats N] [--conversations N]
                         [--deliveries N] [--report-conversations N] [--requests N] [--inbox-chats N]
                         [--inbox-messages N] [--search-messages N] [--profile]
scenarios: ${SCENARIOS.map((s) => s.name).join(', ')}`;

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

function count(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1) fail(`--${name} must be a positive integer`);
  return Number(value);
}

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      db: { type: 'string', default: 'pglite' },
      seconds: { type: 'string' },
      chats: { type: 'string' },
      conversations: { type: 'string' },
      deliveries: { type: 'string' },
      'report-conversations': { type: 'string' },
      requests: { type: 'string' },
      'inbox-chats': { type: 'string' },
      'inbox-messages': { type: 'string' },
      'search-messages': { type: 'string' },
      profile: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (values.db !== 'pglite' && values.db !== 'postgres') fail('--db must be pglite or postgres');
  const db: DatabaseKind = values.db;
  const chosen = positionals.length === 0 ? SCENARIOS : positionals.map((name) => SCENARIOS.find((s) => s.name === name) ?? fail(`unknown scenario ${name}`));
  const settings: ScenarioSettings = {
    seconds: count(values.seconds, 'seconds', 10),
    warmupSeconds: 3,
    chats: count(values.chats, 'chats', 1_000_000),
    conversations: count(values.conversations, 'conversations', 10_000),
    // PGlite drains a few hundred a second: a backlog of 5,000 measures it as well in a tenth of the time.
    deliveries: count(values.deliveries, 'deliveries', db === 'postgres' ? 20_000 : 5_000),
    reportConversations: count(values['report-conversations'], 'report-conversations', 1_000_000),
    requests: count(values.requests, 'requests', 50),
    inboxChats: count(values['inbox-chats'], 'inbox-chats', 500_000),
    inboxMessages: count(values['inbox-messages'], 'inbox-messages', 3_000_000),
    searchMessages: count(values['search-messages'], 'search-messages', 1_000_000),
  };

  buildServer();
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'parley-bench-'));
  await chmod(workDir, 0o755); // a throwaway PostgreSQL server runs as user postgres inside it
  let postgres: PostgresServer | undefined;
  const rows: Row[] = [];
  const profiles: string[] = [];
  const started = Date.now();
  try {
    if (db === 'postgres') postgres = await findPostgres(workDir, log);
    for (const scenario of chosen) {
      log(`${scenario.name}: ${scenario.summary}`);
      const scenarioDir = path.join(workDir, scenario.name);
      await mkdir(scenarioDir, { recursive: true });
      const database = await scenarioDatabase(db, postgres, path.join(scenarioDir, 'data'), scenario.name);
      const servers: ParleyServer[] = [];
      const profileDir = path.join(scenarioDir, 'profile');
      const scenarioStarted = Date.now();
      try {
        const result = await scenario.run({
          db,
          settings,
          database,
          log: (line) => log(`${scenario.name}: ${line}`),
          async startServer(env) {
            const server = await startParley({
              dataDir: database.dataDir,
              databaseUrl: database.databaseUrl,
              logFile: path.join(scenarioDir, 'server.log'),
              statementsFile: path.join(scenarioDir, `statements-${servers.length}.json`),
              ...(values.profile ? { cpuProfileDir: profileDir } : {}),
              ...(env ? { env } : {}),
            });
            servers.push(server);
            return server;
          },
        });
        // Issue #16: the server's peak RSS on PGlite is a target of every scenario.
        if (db === 'pglite') for (const r of result) r.targets.push(peakRssTarget(r.peakRssMb));
        rows.push(...result);
        for (const r of result) {
          const cost = `${r.cpuUs?.toFixed(0) ?? '-'} µs CPU, ${r.statements?.toFixed(2) ?? '-'} statements each`;
          log(`${r.scenario}: ${r.throughput?.toFixed(0) ?? '-'} ${r.unit}, p99 ${r.p99Ms?.toFixed(1) ?? '-'} ms, ${cost}`);
        }
      } catch (error) {
        log(`${scenario.name} failed: ${(error as Error).stack ?? String(error)}`);
        rows.push(
          row(scenario.name, {
            unit: '',
            targets: [{ text: 'runs to the end', met: false }],
            notes: [`failed: ${(error as Error).message}`],
          }),
        );
      } finally {
        await Promise.all(servers.map((server) => server.stop()));
        await database.drop();
        log(`${scenario.name}: ${((Date.now() - scenarioStarted) / 1000).toFixed(0)} s`);
      }
      if (values.profile) {
        // One profile per thread; the server's main thread is the largest.
        const files = await readdir(profileDir).catch(() => [] as string[]);
        const sizes = await Promise.all(files.map(async (file) => ({ file, size: (await stat(path.join(profileDir, file))).size })));
        for (const { file } of sizes.filter((entry) => entry.size === Math.max(...sizes.map((s) => s.size)))) {
          profiles.push(`### ${scenario.name}\n\n${await summarizeProfile(path.join(profileDir, file))}`);
        }
      }
    }
  } finally {
    await postgres?.stop();
    await rm(workDir, { recursive: true, force: true });
  }

  const date = new Date().toISOString().slice(0, 10);
  const suffix = chosen.length === SCENARIOS.length ? '' : `-${chosen.map((s) => s.name).join('+')}`;
  const file = path.join(ROOT, 'bench/results', `${date}-${db}${suffix}.json`);
  const machine = {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
  };
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify({ date, db, settings, machine, seconds: Math.round((Date.now() - started) / 1000), rows }, null, 2)}\n`);
  process.stdout.write(`\n${markdownTable(rows)}\n\n${db}, ${machine.cpus} × ${machine.cpuModel}, Node ${machine.node}; saved to ${path.relative(ROOT, file)}\n`);
  if (profiles.length) process.stdout.write(`\n## CPU profiles of the server (self time)\n\n${profiles.join('\n\n')}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
