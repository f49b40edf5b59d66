// Console API (`/console/v1`, DESIGN.md): the web account's backend. Login is open; every other route
// needs `Authorization: Bearer <JWT>`. Errors speak the caller's `UserLang` (see ../error-handler.ts).
import { authRoutes } from '@parley/contracts';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ConsoleAccount, ConsoleAuth } from '../../accounts/console-auth.ts';
import { Errors } from '../../errors.ts';
import { routeOptions, type TypedApp } from '../route-options.ts';

declare module 'fastify' {
  interface FastifyRequest {
    consoleAccount: ConsoleAccount | undefined;
  }
}

export interface ConsoleOptions {
  auth: ConsoleAuth;
  /** Registers the routes that need a logged-in account. */
  routes: (app: TypedApp) => void;
}

/** The logged-in account of a console route (set before any handler runs). */
export function consoleAccountOf(request: FastifyRequest): ConsoleAccount {
  if (!request.consoleAccount) throw Errors.consoleUnauthorized();
  return request.consoleAccount;
}

export const consoleApi: FastifyPluginAsync<ConsoleOptions> = async (fastify, { auth, routes }) => {
  const app: TypedApp = fastify.withTypeProvider();
  app.decorateRequest('consoleAccount', undefined);

  app.route({ ...routeOptions(authRoutes.login), handler: (request) => auth.login(request.body) });

  await app.register(async (scope) => {
    scope.addHook('onRequest', async (request) => {
      request.consoleAccount = auth.authenticate(request.headers.authorization);
    });
    routes(scope.withTypeProvider());
  });
};
