// The load generator of every ratio: autocannon as a library, in this process (the servers run in others).
import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Builds each request's body (unique ids per request); overrides `body`. */
  nextBody?: () => string;
  connections: number;
  /** Seconds of measurement, after `warmupSeconds` of the same load that is not counted. */
  seconds: number;
  warmupSeconds?: number;
}

export interface LoadResult {
  /** Successful (2xx) responses per second. */
  throughput: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Non-2xx answers and connection errors: a run with any is reported as such, never silently averaged in. */
  failures: number;
}

function fire(options: LoadOptions, seconds: number): Promise<autocannon.Result> {
  const { nextBody } = options;
  return autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    ...(options.body !== undefined ? { body: options.body } : {}),
    ...(nextBody ? { requests: [{ setupRequest: (request) => ({ ...request, body: nextBody() }) }] } : {}),
    connections: options.connections,
    duration: seconds,
  });
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  if (options.warmupSeconds) await fire(options, options.warmupSeconds);
  const result = await fire(options, options.seconds);
  const ok = result['2xx'];
  return {
    throughput: ok / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: ok,
    failures: result.non2xx + result.errors,
  };
}

/** Response size of one request, so the ceiling can answer a body of the same size. */
export async function responseBytes(url: string, init: RequestInit = {}): Promise<number> {
  const response = await fetch(url, init);
  const body = Buffer.from(await response.arrayBuffer());
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${url} answered ${response.status}: ${body.toString('utf8').slice(0, 300)}`);
  return body.length;
}
