// Console API (`/console/v1`, DESIGN.md): the web account's backend. Login is open; every other route
// needs `Authorization: Bearer <JWT>`. Errors speak the caller's `UserLang` (see ../error-handler.ts).
// Rate limits: the public API's limiter, per token (an invalid or missing token counts against the address), and
// login attempts per address.
import { authRoutes } from '@parley/contracts';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ConsoleAccount, ConsoleAuth } from '../../accounts/console-auth.ts';
import { Errors } from '../../errors.ts';
import { sha256Hex } from '../../lib/secrets.ts';
import { afterRateLimit, ratePolicy, registerRateLimit, type RateCounters } from '../rate-limit.ts';
import { routeOptions, type TypedApp } from '../route-options.ts';

declare module 'fastify' {
  interface FastifyRequest {
    consoleAccount: ConsoleAccount | undefined;
  }
}

export interface ConsoleOptions {
  auth: ConsoleAuth;
  rateLimitMax: number;
  /** Login attempts per address per minute (default LOGIN_ATTEMPTS_PER_IP). */
  loginAttemptsPerIp?: number;
  counters: RateCounters;
  /** Registers the routes that need a logged-in account. */
  routes: (app: TypedApp) => void;
}

/** Login attempts one address may make per minute, whatever the e-mails (guessing passwords costs time). */
export const LOGIN_ATTEMPTS_PER_IP = 20;
export const LOGIN_WINDOW_MS = 60_000;

/** The logged-in account of a console route (set before any handler runs). */
export function consoleAccountOf(request: FastifyRequest): ConsoleAccount {
  if (!request.consoleAccount) throw Errors.consoleUnauthorized();
  return request.consoleAccount;
}

export const consoleApi: FastifyPluginAsync<ConsoleOptions> = async (fastify, options) => {
  const { auth, rateLimitMax, counters, routes, loginAttemptsPerIp = LOGIN_ATTEMPTS_PER_IP } = options;
  fastify.decorateRequest('consoleAccount', undefined);
  await registerRateLimit(fastify, {
    counters,
    max: rateLimitMax,
    prefix: 'parley:rate:console:',
    // A token that verifies has its own bucket; anything else shares its address's.
    keyGenerator: (request) => {
      const { authorization } = request.headers;
      return auth.verifies(authorization) ? `token:${sha256Hex(authorization ?? '')}` : `ip:${request.ip}`;
    },
  });
  const app: TypedApp = fastify.withTypeProvider();

  app.route({
    ...routeOptions(authRoutes.login),
    config: {
      scope: undefined,
      rateLimit: {
        max: loginAttemptsPerIp,
        timeWindow: LOGIN_WINDOW_MS,
        keyGenerator: (request) => `login:${request.ip}`,
        // The login's documented 429 body, like its e-mail lock's.
        errorResponseBuilder: () => Errors.loginRateLimited(),
      },
      ratePolicy: ratePolicy(loginAttemptsPerIp, LOGIN_WINDOW_MS),
    },
    handler: (request) => auth.login(request.body, request.ip),
  });

  await app.register(async (scope) => {
    afterRateLimit(scope, async (request) => {
      request.consoleAccount = auth.authenticate(request.headers.authorization);
    });
    routes(scope.withTypeProvider());
  });
};
