// What a feature hands the composition root (app.ts): its routes on the shared surfaces, surfaces of its own,
// and the background work it runs in a process with workers. Each feature folder has one module.ts that
// assembles its stores, services, jobs and routes from the shared pieces (core.ts) and the modules it uses.
import type { FastifyInstance } from 'fastify';
import type { TypedApp } from './http/route-options.ts';

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
  /** Work in flight finishes; what is queued stays queued for the next start. */
  stop(): Promise<void>;
}

/** Background work runs while the app is up: started in order when it is ready, stopped together before it closes. */
export function runWorkers(app: FastifyInstance, workers: Workers[]): void {
  app.addHook('onReady', async () => {
    for (const worker of workers) await worker.start();
  });
  app.addHook('preClose', async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
  });
}
