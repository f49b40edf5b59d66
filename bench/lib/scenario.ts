// What a scenario is given and what it reports: one row per measured figure, each beside its ceiling.
import type { DatabaseKind, ScenarioDatabase } from './database.ts';
import { load, type LoadOptions, type LoadResult } from './load.ts';
import { startCeiling, type ParleyServer } from './processes.ts';

export interface Target {
  text: string;
  met: boolean;
}

export interface Row {
  scenario: string;
  /** What was counted per second. */
  throughput: number | null;
  unit: string;
  p50Ms: number | null;
  p99Ms: number | null;
  /** Throughput of what the figure is compared with, measured in the same run by the same generator. */
  ceiling: number | null;
  /** What `ceiling` is: `node:http` (the bare server), `Prism`, … */
  ceilingOf: string | null;
  ratio: number | null;
  /** Peak resident set of the Parley server process (the Node process only: a PostgreSQL server is apart). */
  peakRssMb: number | null;
  /** Server CPU time (user + system) per unit of `throughput` (a request, a message, a delivery), in µs. */
  cpuUs: number | null;
  /** SQL statements the server sent per unit of `throughput`, BEGIN and COMMIT included. */
  statements: number | null;
  /** The ceiling's CPU time per request in the same run, in µs (where the ceiling is a process of the bench). */
  ceilingCpuUs: number | null;
  targets: Target[];
  notes: string[];
}

export interface ScenarioSettings {
  /** Seconds of each measured load run. */
  seconds: number;
  warmupSeconds: number;
  /** Chats seeded for the chat-list scenario. */
  chats: number;
  conversations: number;
  deliveries: number;
  /** Conversations of the account whose reports summary is timed (reports-summary). */
  reportConversations: number;
  /** Requests timed one at a time, per variant (reports-summary). */
  requests: number;
  /** Chats and messages of the account of team-inbox. */
  inboxChats: number;
  inboxMessages: number;
  /** Messages of the account the search scenario searches (another account has a tenth as many). */
  searchMessages: number;
}

export interface ScenarioContext {
  db: DatabaseKind;
  settings: ScenarioSettings;
  database: ScenarioDatabase;
  log(line: string): void;
  /** The Parley server on this scenario's database (stopped by the runner if the scenario does not). */
  startServer(env?: Record<string, string>): Promise<ParleyServer>;
}

export interface Scenario {
  name: string;
  summary: string;
  run(context: ScenarioContext): Promise<Row[]>;
}

/** The ceiling: the same load against a bare node:http server answering `bytes` bytes with `status`. */
export async function measureCeiling(bytes: number, status: number, options: Omit<LoadOptions, 'url' | 'usage'>): Promise<LoadResult> {
  const ceiling = await startCeiling(bytes, status);
  try {
    return await load({ ...options, url: `${ceiling.url}/`, usage: ceiling.usage });
  } finally {
    await ceiling.stop();
  }
}

export function row(scenario: string, fields: Partial<Row> & Pick<Row, 'unit'>): Row {
  const ceiling = fields.ceiling ?? null;
  const throughput = fields.throughput ?? null;
  return {
    scenario,
    throughput,
    p50Ms: null,
    p99Ms: null,
    ceilingOf: null,
    peakRssMb: null,
    cpuUs: null,
    statements: null,
    ceilingCpuUs: null,
    targets: [],
    notes: [],
    ...fields,
    ceiling,
    ratio: fields.ratio ?? (ceiling && throughput !== null ? throughput / ceiling : null),
  };
}

/** A load run's figures, as a row has them. */
export function measured(result: LoadResult): Pick<Row, 'throughput' | 'p50Ms' | 'p99Ms' | 'cpuUs' | 'statements'> {
  return { throughput: result.throughput, p50Ms: result.p50Ms, p99Ms: result.p99Ms, ...result.cost };
}

/** The ceiling's figures beside a row's: its rate, what it is, and its own CPU time per request. */
export function beside(ceiling: LoadResult, ceilingOf = 'node:http'): Pick<Row, 'ceiling' | 'ceilingOf' | 'ceilingCpuUs'> {
  return { ceiling: ceiling.throughput, ceilingOf, ceilingCpuUs: ceiling.cost.cpuUs };
}

/** A statements-per-unit target: unmet when the count is missing (the counter did not answer). */
export function statementsTarget(statements: number | null, most: number, unit: string): Target {
  return { text: `≤ ${most} statements per ${unit}`, met: statements !== null && statements <= most };
}

/** Peak RSS of the server on PGlite (issue #16): 400 MB, the column being MiB. */
export const PGLITE_PEAK_RSS_MB = 400;

export function peakRssTarget(peakRssMb: number | null): Target {
  return {
    text: `peak RSS ≤ ${PGLITE_PEAK_RSS_MB} MB (${Math.floor((PGLITE_PEAK_RSS_MB * 1e6) / 2 ** 20)} MiB) on PGlite`,
    met: peakRssMb !== null && peakRssMb * 2 ** 20 <= PGLITE_PEAK_RSS_MB * 1e6,
  };
}

/** Notes a load run that had failed requests (they are not counted in its throughput). */
export function failureNotes(result: LoadResult, what = 'requests'): string[] {
  return result.failures > 0 ? [`${result.failures} ${what} failed (non-2xx or connection errors)`] : [];
}

/** The p-th percentile (nearest rank) of ascending values; null when there are none. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? null;
}
