// What a feature hands the composition root (app.ts): its routes on the shared surfaces, surfaces of its own,
// and the background work it runs in a process with workers. Each feature folder has one module.ts that
// assembles its stores, services, jobs and routes from the shared pieces (core.ts) and the modules it uses.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';

/** A Fastify instance whose handlers are typed by the TypeBox schemas of the contracts (the surfaces a feature adds routes to). */
export type TypedApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export interface FeatureModule {
  /** Routes behind the console's login (`/console/v1`). */
  consoleRoutes?(api: TypedApp): void;
  /** Routes behind an API key (`/api/v1`). */
  publicRoutes?(api: TypedApp): void;
  /** Surfaces of its own (a plugin under its own prefix), registered after the shared ones. */
  register?(app: FastifyInstance): Promise<void>;
  /** Background work of a process that runs workers: started when the app is ready, stopped before it closes. */
  workers?: Workers;
}

export interface Workers {
  start(): Promise<void>;
  /**
   * Stops claiming; work in flight finishes, what is queued stays queued for the next start. When `handBack` aborts
   * (the shutdown grace is nearly over), work still running gives its leases back, so the next start or another
   * process takes it at once, and the stop returns without waiting for it.
   */
  stop(handBack?: AbortSignal): Promise<void>;
}

/**
 * Background work runs while the app is up: started in order when it is ready. On close the workers stop claiming at
 * once (preClose) while the HTTP server drains its requests beside them, and the close waits for them to end (onClose,
 * registered after the shared pieces' own closes, so it runs before those: jobs still use the database and the HTTP
 * clients to the end).
 */
export function runWorkers(app: FastifyInstance, workers: Workers[], handBack?: AbortSignal): void {
  let stopped: Promise<unknown> = Promise.resolve();
  app.addHook('onReady', async () => {
    for (const worker of workers) await worker.start();
  });
  app.addHook('preClose', async () => {
    stopped = Promise.allSettled(workers.map((worker) => worker.stop(handBack)));
  });
  app.addHook('onClose', async () => {
    await stopped;
  });
}
