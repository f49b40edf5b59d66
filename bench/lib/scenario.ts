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
export async function measureCeiling(bytes: number, status: number, options: Omit<LoadOptions, 'url'>): Promise<LoadResult> {
  const ceiling = await startCeiling(bytes, status);
  try {
    return await load({ ...options, url: `${ceiling.url}/` });
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
    targets: [],
    notes: [],
    ...fields,
    ceiling,
    ratio: fields.ratio ?? (ceiling && throughput !== null ? throughput / ceiling : null),
  };
}

/** A load run's figures, as a row has them. */
export function measured(result: LoadResult): Pick<Row, 'throughput' | 'p50Ms' | 'p99Ms'> {
  return { throughput: result.throughput, p50Ms: result.p50Ms, p99Ms: result.p99Ms };
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
