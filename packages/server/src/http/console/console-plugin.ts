// Console API (`/console/v1`, docs/architecture.md): the web account's backend. Login is open; every other route
// needs `Authorization: Bearer <JWT>` or the web account's session cookie. Errors speak the caller's
// `UserLang` (see ../error-handler.ts). Rate limits: the public API's limiter, per member (an invalid or missing
// token counts against the address), and login attempts per address. Roles: every route declares the least role
// that may call it (its contract's `role`), enforced here once for all (403 `Forbidden for your role`).
import { authRoutes, memberRoutes, profileRoutes, roleAllows, ssoRoutes } from '@parley/contracts';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, Errors } from '../../errors.ts';
import type { RateCounters } from '../../kernel/rate-counters.ts';
import { afterRateLimit, ratePolicy, registerRateLimit } from '../rate-limit.ts';
import type { ConsoleAccount, ConsoleAuth, SignInClient, SsoSignIn, TwoFactorChallenge } from './console-account.ts';
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
  /** Forgotten passwords (anonymous, limited like logins), and whether the server sends e-mail (anonymous). */
  passwordReset: {
    serverInfo(): { emailConfigured: boolean };
    forgotPassword(input: { email: string }): Promise<void>;
    resetPassword(input: { token: string; password: string }, client: SignInClient): Promise<{ token: string } | TwoFactorChallenge>;
  };
  /** Single sign-on's open routes (issue #45, item 2). */
  sso: SsoSignIn;
  /** Registers the routes that need a logged-in account. */
  routes: (app: TypedApp) => void;
}

/** Login attempts one address may make per minute, whatever the e-mails (guessing passwords costs time). */
export const LOGIN_ATTEMPTS_PER_IP = 20;
export const LOGIN_WINDOW_MS = 60_000;

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

/** A single sign-on in progress (state, nonce, PKCE verifier; signed): HttpOnly, SameSite=Lax, 10 minutes. */
export const SSO_COOKIE = 'parley_sso';
const SSO_COOKIE_PATH = '/console/v1/auth/sso';

function cookieOf(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim() || undefined;
  }
  return undefined;
}

const sessionToken = (request: FastifyRequest) => cookieOf(request, SESSION_COOKIE);

/** The address and browser of a sign-in (its session's description on Profile). */
export function clientOf(request: FastifyRequest): SignInClient {
  return { ip: request.ip, userAgent: request.headers['user-agent'] ?? '' };
}

/** Sets (or, with an empty value and 0, clears) the web account's session cookie. */
export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, value: string, maxAgeSeconds: number): void {
  reply.header('set-cookie', sessionCookie(request, value, maxAgeSeconds));
}

function sessionCookie(request: FastifyRequest, value: string, maxAgeSeconds: number): string {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  return `${SESSION_COOKIE}=${value}; Path=/console/v1; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`;
}

/** Bearer header first (API clients); else the session cookie, with the CSRF header on anything but GET. */
async function authenticate(auth: ConsoleAuth, request: FastifyRequest): Promise<ConsoleAccount> {
  if (request.headers.authorization !== undefined) return auth.authenticate(request.headers.authorization);
  const token = sessionToken(request);
  if (!token) throw Errors.consoleUnauthorized();
  const account = await auth.authenticateSession(token);
  if (request.method !== 'GET' && request.method !== 'HEAD' && request.headers[CSRF_HEADER] !== CSRF_VALUE) {
    throw Errors.csrfHeaderMissing();
  }
  return account;
}

/** The account behind the request's credential, or undefined when it has none that verifies (no 401). */
async function signedInAccount(auth: ConsoleAuth, request: FastifyRequest): Promise<ConsoleAccount | undefined> {
  try {
    return await authenticate(auth, request);
  } catch (error) {
    if (error instanceof DomainError && error.status === 401) return undefined;
    throw error;
  }
}

/**
 * The rate-limit bucket: the member of a credential that verifies, whatever its spelling (scheme case, token or
 * session cookie, a re-encoded signature, a new sign-in), so re-spelling never buys a fresh allowance and a team's
 * members never share one (DESIGN, RATE_LIMIT_MAX); anything else shares its address's.
 */
function bucketOf(auth: ConsoleAuth, request: FastifyRequest): string {
  const { authorization } = request.headers;
  const session = authorization === undefined ? sessionToken(request) : undefined;
  const signIn = authorization !== undefined ? auth.signInOf(authorization) : session !== undefined ? auth.sessionSignInOf(session) : undefined;
  return signIn ? `member:${signIn.memberId}` : `ip:${request.ip}`;
}

export const consoleApi: FastifyPluginAsync<ConsoleOptions> = async (fastify, options) => {
  const { auth, rateLimitMax, counters, routes, passwordReset, sso, loginAttemptsPerIp = LOGIN_ATTEMPTS_PER_IP } = options;
  fastify.decorateRequest('consoleAccount', undefined);
  await registerRateLimit(fastify, {
    counters,
    max: rateLimitMax,
    prefix: 'parley:rate:console:',
    keyGenerator: (request) => bucketOf(auth, request),
  });
  const app: TypedApp = fastify.withTypeProvider();

  // Logins (a token for scripts, a session cookie for the web account) count per address as well.
  const loginConfig = {
    scope: undefined,
    rateLimit: {
      max: loginAttemptsPerIp,
      timeWindow: LOGIN_WINDOW_MS,
      keyGenerator: (request: FastifyRequest) => `login:${request.ip}`,
      // The login's documented 429 body, like its e-mail lock's.
      errorResponseBuilder: () => Errors.loginRateLimited(),
    },
    ratePolicy: ratePolicy(loginAttemptsPerIp, LOGIN_WINDOW_MS),
  };
  app.route({ ...routeOptions(authRoutes.login), config: loginConfig, handler: (request) => auth.login(request.body, clientOf(request)) });
  // The second step (two-factor sign-in, issue #45): guessing codes costs what guessing passwords does.
  app.route({
    ...routeOptions(authRoutes.loginTwoFactor),
    config: loginConfig,
    handler: (request) => auth.loginTwoFactor(request.body, clientOf(request)),
  });
  app.route({
    ...routeOptions(authRoutes.createSession),
    config: loginConfig,
    handler: async (request, reply) => {
      const session = await auth.startSession(request.body, clientOf(request));
      if ('challenge' in session) return session;
      setSessionCookie(request, reply, session.token, session.maxAgeSeconds);
      return session.member;
    },
  });
  app.route({
    ...routeOptions(authRoutes.createSessionTwoFactor),
    config: loginConfig,
    handler: async (request, reply) => {
      const session = await auth.startSessionTwoFactor(request.body, clientOf(request));
      setSessionCookie(request, reply, session.token, session.maxAgeSeconds);
      return session.member;
    },
  });
  // Single sign-on (issue #45, item 2): limited like logins. The sign-in's cookie is SameSite=Lax, since the
  // provider's redirect back is a navigation from another site; the session cookie stays Strict.
  app.route({ ...routeOptions(ssoRoutes.discoverSso), config: loginConfig, handler: (request) => sso.discover(request.query) });
  app.route({
    ...routeOptions(ssoRoutes.startSso),
    config: loginConfig,
    handler: async (request, reply) => {
      const started = await sso.start(request.query.account);
      if (started.cookie) {
        const secure = request.protocol === 'https' ? '; Secure' : '';
        reply.header(
          'set-cookie',
          `${SSO_COOKIE}=${started.cookie.value}; Path=${SSO_COOKIE_PATH}; HttpOnly; SameSite=Lax; Max-Age=${started.cookie.maxAgeSeconds}${secure}`,
        );
      }
      return reply.header('cache-control', 'no-store').redirect(started.location, 302);
    },
  });
  app.route({
    ...routeOptions(ssoRoutes.ssoCallback),
    config: loginConfig,
    handler: async (request, reply) => {
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
      const ended = await sso.callback(query, cookieOf(request, SSO_COOKIE), clientOf(request));
      // The sign-in is used up either way.
      const cookies = [`${SSO_COOKIE}=; Path=${SSO_COOKIE_PATH}; HttpOnly; SameSite=Lax; Max-Age=0`];
      if (ended.session) cookies.push(sessionCookie(request, ended.session.token, ended.session.maxAgeSeconds));
      return reply.header('set-cookie', cookies).header('cache-control', 'no-store').redirect(ended.location, 302);
    },
  });
  // Guessing invitation tokens costs what guessing passwords does.
  app.route({
    ...routeOptions(memberRoutes.acceptInvitation),
    config: loginConfig,
    handler: (request) => auth.acceptInvitation(request.body, clientOf(request)),
  });
  // Guessing reset tokens, or mailing links to strangers, costs what guessing passwords does.
  app.route({
    ...routeOptions(profileRoutes.forgotPassword),
    config: loginConfig,
    handler: async (request, reply) => {
      await passwordReset.forgotPassword(request.body);
      return reply.code(202).send({ success: true as const });
    },
  });
  app.route({
    ...routeOptions(profileRoutes.resetPassword),
    config: loginConfig,
    handler: (request) => passwordReset.resetPassword(request.body, clientOf(request)),
  });
  // The sign-in page's `Forgot password?` says how to reset without e-mail (issue #42, item 10).
  app.route({
    ...routeOptions(profileRoutes.getServerInfo),
    handler: () => passwordReset.serverInfo(),
  });
  app.route({
    ...routeOptions(authRoutes.getSessionState),
    handler: async (request) => {
      const account = await signedInAccount(auth, request);
      if (account) {
        const { email, memberId, name, role, twoFactorSetupOnly } = account;
        return { signedIn: true as const, email, memberId, name, role, ...(twoFactorSetupOnly ? { twoFactorSetupRequired: true as const } : {}) };
      }
      // A removed member's open web account signs out with a sentence saying why (issue #33).
      const token = request.headers.authorization === undefined ? sessionToken(request) : /^Bearer (\S+)$/i.exec(request.headers.authorization)?.[1];
      const ended = token === undefined ? undefined : await auth.endedBecause(token);
      return ended ? { signedIn: false as const, ended } : { signedIn: false as const };
    },
  });
  // Signing out ends every token and session of the member, on every process; the cookie is cleared either way.
  app.route({
    ...routeOptions(authRoutes.deleteSession),
    handler: async (request, reply) => {
      const account = await signedInAccount(auth, request);
      const csrfOk = request.headers.authorization !== undefined || request.headers[CSRF_HEADER] === CSRF_VALUE;
      if (account && csrfOk) await auth.signOut(account);
      setSessionCookie(request, reply, '', 0);
      return { success: true as const };
    },
  });

  await app.register(async (scope) => {
    // One rule per route, declared by its contract: a route without one would be open to every member by mistake.
    scope.addHook('onRoute', (route) => {
      if (route.config?.role === undefined) throw new Error(`console route ${route.method} ${route.url} declares no role`);
    });
    afterRateLimit(scope, async (request) => {
      const account = await authenticate(auth, request);
      request.consoleAccount = account;
      // A member the account requires to sign in with two factors, who has not turned it on, can only set it up.
      if (account.twoFactorSetupOnly && request.routeOptions.config.twoFactorSetup !== true) throw Errors.twoFactorRequired();
      const needed = request.routeOptions.config.role;
      if (needed === undefined || !roleAllows(account.role, needed)) throw Errors.forbiddenForRole();
    });
    scope.route({
      ...routeOptions(authRoutes.getSession),
      handler: (request) => {
        const { email, memberId, name, role, twoFactorSetupOnly } = consoleAccountOf(request);
        return { email, memberId, name, role, ...(twoFactorSetupOnly ? { twoFactorSetupRequired: true as const } : {}) };
      },
    });
    const typed: TypedApp = scope.withTypeProvider();
    typed.route({
      ...routeOptions(authRoutes.changePassword),
      handler: async (request) => {
        await auth.changePassword(consoleAccountOf(request), request.body);
        return { success: true as const };
      },
    });
    routes(typed);
  });
};
