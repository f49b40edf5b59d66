// The load generator of every ratio: autocannon as a library, in this process (the servers run in others).
import autocannon from 'autocannon';
import { measureCost, NO_COST, type Cost } from './cost.ts';
import type { Usage } from './processes.ts';

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Builds each request's body (unique ids per request); overrides `body`. */
  nextBody?: () => string;
  /** Builds each request's path and query (a new URL per request); overrides `url`'s. */
  nextPath?: () => string;
  connections: number;
  /** Seconds of measurement, after `warmupSeconds` of the same load that is not counted. */
  seconds: number;
  warmupSeconds?: number;
  /** The status of a successful answer; unset: any 2xx. */
  expectStatus?: number;
  /** Usage of the measured server, read just before and after the measured run (not the warm-up). */
  usage?: () => Promise<Usage>;
}

export interface LoadResult {
  /** Successful responses per second. */
  throughput: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Other answers and connection errors: a run with any is reported as such, never silently averaged in. */
  failures: number;
  /** The server's cost per answered request of the measured run (failed answers cost too). */
  cost: Cost;
}

function fire(options: LoadOptions, seconds: number): Promise<autocannon.Result> {
  const { nextBody, nextPath } = options;
  const setupRequest = (request: autocannon.Request): autocannon.Request => ({
    ...request,
    ...(nextBody ? { body: nextBody() } : {}),
    ...(nextPath ? { path: nextPath() } : {}),
  });
  return autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    ...(options.body !== undefined ? { body: options.body } : {}),
    ...(nextBody || nextPath ? { requests: [{ setupRequest }] } : {}),
    connections: options.connections,
    duration: seconds,
  });
}

const answered = (result: autocannon.Result): number =>
  result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];

export async function load(options: LoadOptions): Promise<LoadResult> {
  if (options.warmupSeconds) await fire(options, options.warmupSeconds);
  const { result, cost } = options.usage
    ? await measureCost(options.usage, () => fire(options, options.seconds), answered)
    : { result: await fire(options, options.seconds), cost: NO_COST };
  const ok = options.expectStatus === undefined ? result['2xx'] : (result.statusCodeStats?.[`${options.expectStatus}`]?.count ?? 0);
  return {
    throughput: ok / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: ok,
    failures: answered(result) - ok + result.errors,
    cost,
  };
}

/** Response size of one request, so the ceiling can answer a body of the same size. */
export async function responseBytes(url: string, init: RequestInit = {}, expectStatus?: number): Promise<number> {
  const response = await fetch(url, init);
  const body = Buffer.from(await response.arrayBuffer());
  const expected = expectStatus === undefined ? response.ok : response.status === expectStatus;
  if (!expected) throw new Error(`${init.method ?? 'GET'} ${url} answered ${response.status}: ${body.toString('utf8').slice(0, 300)}`);
  return body.length;
}
