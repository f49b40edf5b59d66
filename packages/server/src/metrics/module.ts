// Prometheus metrics (docs/operations.md, Metrics): `GET /metrics` on PORT behind METRICS_TOKEN, and/or a second
// listener on HOST:METRICS_PORT serving only /metrics. With neither set nothing is served and nothing is added per
// request. The features count into core.metrics (kernel/metrics.ts); this module adds the HTTP histogram, the
// process's default metrics, and the gauges read at scrape time (jobs by state, the PostgreSQL pool).
import { createServer, type Server } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, type Registry } from 'prom-client';
import { CONVERSATION_OUTCOMES } from '@parley/contracts';
import type { Kernel } from '../kernel/kernel.ts';
import { poolOf } from '../db/client.ts';
import { Errors } from '../errors.ts';
import { JOB_STATES, type JobQueue } from '../jobs/job-queue.ts';
import { secretsEqual } from '../lib/secrets.ts';
import type { FeatureModule } from '../kernel/module.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type MetricsShared = Pick<Kernel, 'app' | 'db' | 'jobs' | 'logger' | 'metrics'>;

export interface MetricsOptions {
  /** METRICS_TOKEN: /metrics on the app's own port, behind `Authorization: Bearer <token>`. */
  token?: string | undefined;
  /** METRICS_PORT: a listener of its own on `host`, /metrics only, no token. */
  port?: number | undefined;
  host?: string | undefined;
  /** Ended conversations by outcome, every process's (conversations/module.ts): parley_conversations_total. */
  conversationTotals?: () => Promise<{ outcome: string; total: number }[]>;
}

/** prom-client's sums of the per-type gauges, named like counters (`_total`), which promtool's lint refuses. */
const MISNAMED_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/**
 * Must be created before the surfaces are registered (app.ts lists it among the modules, which are all made before
 * registerSurfaces runs): a plugin takes its parent's hooks when it is registered, so the HTTP histogram's hook has
 * to be on the root by then.
 */
export function createMetricsModule(core: MetricsShared, options: MetricsOptions) {
  const { token, port } = options;
  if (token === undefined && port === undefined) return {} satisfies FeatureModule;
  const { app, metrics, jobs, logger } = core;
  const { registry } = metrics;

  collectDefaultMetrics({ register: registry });
  for (const name of MISNAMED_DEFAULTS) registry.removeSingleMetric(name);
  // The one per-request cost: a histogram observation, labelled by the matched route's template.
  app.addHook('onResponse', (request, reply, done) => {
    metrics.httpRequest(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  // And the answers given before Fastify's request cycle (http/front-door.ts).
  app.frontDoor.observe(metrics.httpRequest);
  addJobsGauge(registry, jobs, logger);
  addPoolGauges(registry, core);
  if (options.conversationTotals) addConversationsCounter(registry, options.conversationTotals, logger);

  let listener: Server | undefined;
  if (port !== undefined) {
    app.addHook('onReady', async () => {
      listener = await listenForScrapes(registry, options.host ?? '127.0.0.1', port, logger);
    });
    app.addHook('onClose', async () => {
      if (!listener) return;
      listener.closeAllConnections();
      await new Promise<void>((resolve) => listener?.close(() => resolve()));
    });
  }

  return {
    async register(root: FastifyInstance) {
      if (token === undefined) return;
      const expected = `Bearer ${token}`;
      root.get('/metrics', {
        onRequest: async (request) => {
          const header = request.headers.authorization;
          if (header === undefined || !secretsEqual(header, expected)) throw Errors.metricsUnauthorized();
        },
        handler: async (_request, reply) => reply.type(registry.contentType).send(await registry.metrics()),
      });
    },
  } satisfies FeatureModule;
}

/** `parley_jobs{kind,state}`: one grouped count of the jobs table per scrape; every known kind and state is shown, 0 when none. */
function addJobsGauge(registry: Registry, jobs: Pick<JobQueue, 'kinds' | 'counts'>, logger: FastifyBaseLogger): void {
  new Gauge({
    name: 'parley_jobs',
    help: 'Jobs in the jobs table (every process), by kind and state: queued (due), running (leased), scheduled (due later).',
    labelNames: ['kind', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const kind of jobs.kinds()) for (const state of JOB_STATES) this.set({ kind, state }, 0);
      try {
        for (const row of await jobs.counts()) this.set({ kind: row.kind, state: row.state }, row.count);
      } catch (error) {
        // The rest of the scrape is still worth having; the gauge has no series this time.
        this.reset();
        logger.warn({ err: error }, 'counting jobs for /metrics failed');
      }
    },
  });
}

/**
 * `parley_conversations_total{outcome}`: conversations ended by outcome, read at scrape time from the totals the
 * database keeps as they end (migration 0027), so every process shows the same count, whichever process (or trigger)
 * ended them; every outcome is shown, 0 when none.
 */
function addConversationsCounter(
  registry: Registry,
  totals: () => Promise<{ outcome: string; total: number }[]>,
  logger: FastifyBaseLogger,
): void {
  new Counter({
    name: 'parley_conversations_total',
    help: 'Conversations ended (the task done or the quiet time passed), by outcome: resolved_by_agent, resolved_by_team, handed_off, unanswered.',
    labelNames: ['outcome'] as const,
    registers: [registry],
    async collect() {
      try {
        const rows = await totals();
        this.reset();
        for (const outcome of CONVERSATION_OUTCOMES) this.inc({ outcome }, 0);
        for (const row of rows) this.inc({ outcome: row.outcome }, row.total);
      } catch (error) {
        this.reset();
        logger.warn({ err: error }, 'reading conversation totals for /metrics failed');
      }
    },
  });
}

/** `parley_db_pool_*`: node-postgres's own counts, read at scrape time; none on PGlite (no pool). */
function addPoolGauges(registry: Registry, core: Pick<Kernel, 'db'>): void {
  const pool = poolOf(core.db);
  if (!pool) return;
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  gauge('parley_db_pool_connections', 'Connections the PostgreSQL pool holds open, busy or idle.', () => pool.totalCount);
  gauge('parley_db_pool_idle_connections', 'Open connections of the PostgreSQL pool that are idle.', () => pool.idleCount);
  gauge('parley_db_pool_waiting_queries', 'Queries waiting for a connection of the PostgreSQL pool (all busy).', () => pool.waitingCount);
  gauge('parley_db_pool_max_connections', 'The most connections the PostgreSQL pool opens.', () => pool.options.max ?? 10);
}

/** METRICS_PORT: a bare listener answering `GET /metrics` and 404 to anything else (never the app's routes). */
async function listenForScrapes(registry: Registry, host: string, port: number, logger: FastifyBaseLogger): Promise<Server> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if ((request.method !== 'GET' && request.method !== 'HEAD') || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(request.method === 'HEAD' ? undefined : text),
      (error: unknown) => {
        logger.error({ err: error }, 'collecting metrics failed');
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Internal Server Error\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  logger.info({ host, port }, 'metrics listener started');
  return server;
}
