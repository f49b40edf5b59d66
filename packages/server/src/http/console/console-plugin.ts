// Console API (`/console/v1`, DESIGN.md): the web account's backend. Login is open; every other route
// needs `Authorization: Bearer <JWT>` or the web account's session cookie. Errors speak the caller's
// `UserLang` (see ../error-handler.ts).
import { authRoutes } from '@parley/contracts';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
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

/** The web account's session cookie: HttpOnly (no script reads it), SameSite=Strict (no other site sends it). */
export const SESSION_COOKIE = 'parley_session';
/** Cookie-authenticated calls that change state must carry it: a custom header no other site can send. */
export const CSRF_HEADER = 'x-requested-with';
export const CSRF_VALUE = 'parley';

/** The logged-in account of a console route (set before any handler runs). */
export function consoleAccountOf(request: FastifyRequest): ConsoleAccount {
  if (!request.consoleAccount) throw Errors.consoleUnauthorized();
  return request.consoleAccount;
}

function sessionToken(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === SESSION_COOKIE) return part.slice(separator + 1).trim() || undefined;
  }
  return undefined;
}

function setSessionCookie(request: FastifyRequest, reply: FastifyReply, value: string, maxAgeSeconds: number): void {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  reply.header(
    'set-cookie',
    `${SESSION_COOKIE}=${value}; Path=/console/v1; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`,
  );
}

/** Bearer header first (API clients); else the session cookie, with the CSRF header on anything but GET. */
function authenticate(auth: ConsoleAuth, request: FastifyRequest): ConsoleAccount {
  if (request.headers.authorization !== undefined) return auth.authenticate(request.headers.authorization);
  const token = sessionToken(request);
  if (!token) throw Errors.consoleUnauthorized();
  const account = auth.authenticateSession(token);
  if (request.method !== 'GET' && request.method !== 'HEAD' && request.headers[CSRF_HEADER] !== CSRF_VALUE) {
    throw Errors.csrfHeaderMissing();
  }
  return account;
}

export const consoleApi: FastifyPluginAsync<ConsoleOptions> = async (fastify, { auth, routes }) => {
  const app: TypedApp = fastify.withTypeProvider();
  app.decorateRequest('consoleAccount', undefined);

  app.route({ ...routeOptions(authRoutes.login), handler: (request) => auth.login(request.body) });
  app.route({
    ...routeOptions(authRoutes.createSession),
    handler: async (request, reply) => {
      const session = await auth.startSession(request.body);
      setSessionCookie(request, reply, session.token, session.maxAgeSeconds);
      return { email: session.email };
    },
  });
  app.route({
    ...routeOptions(authRoutes.deleteSession),
    handler: async (request, reply) => {
      setSessionCookie(request, reply, '', 0);
      return { success: true as const };
    },
  });

  await app.register(async (scope) => {
    scope.addHook('onRequest', async (request) => {
      request.consoleAccount = authenticate(auth, request);
    });
    scope.route({ ...routeOptions(authRoutes.getSession), handler: (request) => ({ email: consoleAccountOf(request).email }) });
    routes(scope.withTypeProvider());
  });
};
