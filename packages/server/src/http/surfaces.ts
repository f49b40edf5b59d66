// The surfaces on one origin (docs/architecture.md, mount points): liveness and readiness, the OpenAPI documents, the console
// and the public API (whose routes the features add), the web account, and each feature's surfaces of its own.
import path from 'node:path';
import websocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import type { KeyAuthenticator } from './public/api-key.ts';
import type { Kernel } from '../kernel/kernel.ts';
import { createReadinessCheck, databaseDown } from '../db/readiness.ts';
import type { FeatureModule } from '../kernel/module.ts';
import type { ConsoleAuth } from './console/console-account.ts';
import { consoleApi, type ConsoleOptions } from './console/console-plugin.ts';
import { docs } from './docs.ts';
import { gateway } from './public/gateway.ts';
import { webApp } from './web/web-plugin.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type SurfacesShared = Pick<Kernel, 'config' | 'counters' | 'db' | 'invalidKeys'>;

export interface SurfaceOptions {
  consoleAuth: ConsoleAuth;
  passwordReset: ConsoleOptions['passwordReset'];
  sso: ConsoleOptions['sso'];
  authenticator: KeyAuthenticator;
  modules: FeatureModule[];
  /** Console login attempts per client address per minute. */
  loginAttemptsPerIp?: number;
  /** The built web account (default packages/web/dist). */
  webDistDir?: string;
}

export async function registerSurfaces(app: FastifyInstance, core: SurfacesShared, options: SurfaceOptions): Promise<void> {
  const { db, counters, config } = core;
  const { modules } = options;
  // Liveness: 200 either way, within PROBE_TIMEOUT_MS. A process whose Redis or database is down is alive (it
  // serves what it can, with its own counters, and answers 503 where it needs the database): restarting it would not help.
  app.get('/healthz', async (request) => {
    const databaseError = await databaseDown(db);
    if (databaseError !== undefined) request.log.warn({ err: databaseError }, 'liveness: the database does not answer');
    const down = {
      ...(databaseError === undefined ? {} : { database: 'down' }),
      ...(counters.redisState() === 'down' ? { redis: 'down' } : {}),
    };
    return Object.keys(down).length > 0 ? { status: 'degraded', ...down } : { status: 'ok' };
  });
  // Readiness, apart from liveness: 503 while the database does not answer or lacks a migration this code expects.
  const notReady = createReadinessCheck(db);
  app.get('/readyz', async (request, reply) => {
    const failure = await notReady();
    if (!failure) return { status: 'ready' };
    const { cause, ...check } = failure;
    request.log.warn({ ...check, ...(cause === undefined ? {} : { err: cause }) }, 'not ready');
    return reply.code(503).send({ status: 'not ready', ...check });
  });
  // Once for the whole app (each registration would add an `upgrade` handler of its own): the widget's live stream.
  await app.register(websocket, { options: { maxPayload: 16 * 1024 } });
  await app.register(docs);
  await app.register(consoleApi, {
    prefix: '/console/v1',
    auth: options.consoleAuth,
    passwordReset: options.passwordReset,
    sso: options.sso,
    rateLimitMax: config.rateLimitMax,
    ...(options.loginAttemptsPerIp !== undefined ? { loginAttemptsPerIp: options.loginAttemptsPerIp } : {}),
    counters,
    routes: (api) => {
      for (const module of modules) module.consoleRoutes?.(api);
    },
  });
  await app.register(gateway, {
    prefix: '/api/v1',
    authenticator: options.authenticator,
    rateLimitMax: config.rateLimitMax,
    counters,
    invalidKeys: core.invalidKeys,
    routes: (api) => {
      for (const module of modules) module.publicRoutes?.(api);
    },
  });
  await app.register(webApp, { distDir: options.webDistDir ?? path.resolve(import.meta.dirname, '../../../web/dist') });
  for (const module of modules) await module.register?.(app);
}
