// Console login (e-mail + password → short-lived JWT, or a web-account session) with throttling of failed
// attempts per e-mail and address.
import { createSigner, createVerifier } from 'fast-jwt';
import { Errors } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { hashPassword, verifyPassword } from '../lib/secrets.ts';
import { normalizeEmail } from './accounts-service.ts';
import type { AccountsStore } from './accounts-store.ts';

export interface ConsoleAccount {
  accountId: string;
  email: string;
}

export interface LoginThrottlePolicy {
  maxFailures: number;
  windowMs: number;
  lockMs: number;
}

/** 10 failed logins within 15 minutes lock that e-mail for 15 minutes, from the address they came from only. */
export const DEFAULT_LOGIN_THROTTLE: LoginThrottlePolicy = { maxFailures: 10, windowMs: 15 * 60_000, lockMs: 15 * 60_000 };
export const TOKEN_TTL_MS = 60 * 60_000;
/** A web-account session (cookie) lasts a working day. */
export const SESSION_TTL_MS = 12 * 60 * 60_000;

export interface ConsoleAuthDeps {
  store: Pick<
    AccountsStore,
    'findAccountByEmail' | 'loginThrottle' | 'recordLoginFailure' | 'clearLoginFailures'
  >;
  clock: Clock;
  jwtSecret: string;
  throttle?: LoginThrottlePolicy;
  tokenTtlMs?: number;
  sessionTtlMs?: number;
}

export function createConsoleAuth({ store, clock, jwtSecret, throttle = DEFAULT_LOGIN_THROTTLE, tokenTtlMs = TOKEN_TTL_MS, sessionTtlMs = SESSION_TTL_MS }: ConsoleAuthDeps) {
  const sign = createSigner({ key: jwtSecret, algorithm: 'HS256', expiresIn: tokenTtlMs });
  const signSession = createSigner({ key: jwtSecret, algorithm: 'HS256', expiresIn: sessionTtlMs });
  const verify = createVerifier({ key: jwtSecret, algorithms: ['HS256'], cache: 1000 });
  // Compared against when the e-mail is unknown, so both cases take the time of one scrypt.
  const dummyHash = hashPassword('parley-dummy-password');

  /** `ip`: the client's address; failures lock the e-mail for it alone, so a stranger cannot lock the owner out. */
  async function checkCredentials(input: { email: string; password: string }, ip: string): Promise<{ id: string; email: string }> {
    const email = normalizeEmail(input.email);
    const now = clock.now();
    const throttled = await store.loginThrottle(email, ip);
    if (throttled?.lockedUntil && throttled.lockedUntil > now) {
      throw Errors.loginLocked(Math.ceil((throttled.lockedUntil.getTime() - now.getTime()) / 60_000));
    }
    const account = await store.findAccountByEmail(email);
    const valid = await verifyPassword(input.password, account?.passwordHash ?? (await dummyHash));
    if (!account || !valid) {
      await store.recordLoginFailure(email, ip, now, throttle.windowMs, throttle.maxFailures, throttle.lockMs);
      throw Errors.invalidCredentials();
    }
    if (throttled) await store.clearLoginFailures(email, ip);
    return { id: account.id, email: account.email };
  }

  function verifyToken(token: string): ConsoleAccount {
    try {
      const claims = verify(token) as { sub?: unknown; email?: unknown };
      if (typeof claims.sub !== 'string' || typeof claims.email !== 'string') throw Errors.consoleUnauthorized();
      return { accountId: claims.sub, email: claims.email };
    } catch {
      throw Errors.consoleUnauthorized();
    }
  }

  function accountOfToken(token: string): ConsoleAccount | undefined {
    try {
      return verifyToken(token);
    } catch {
      return undefined;
    }
  }

  return {
    async login(input: { email: string; password: string }, ip: string): Promise<{ token: string }> {
      const account = await checkCredentials(input, ip);
      return { token: sign({ sub: account.id, email: account.email }) };
    },

    /** Web-account login: a longer-lived token that only ever travels in an HttpOnly cookie. */
    async startSession(
      input: { email: string; password: string },
      ip: string,
    ): Promise<{ token: string; email: string; maxAgeSeconds: number }> {
      const account = await checkCredentials(input, ip);
      return { token: signSession({ sub: account.id, email: account.email }), email: account.email, maxAgeSeconds: Math.floor(sessionTtlMs / 1000) };
    },

    /** The account behind a bearer token, or 401. */
    authenticate(authorization: string | undefined): ConsoleAccount {
      const match = /^Bearer (\S+)$/i.exec(authorization ?? '');
      if (!match?.[1]) throw Errors.consoleUnauthorized();
      return verifyToken(match[1]);
    },

    /** The account behind a session cookie's token, or 401. */
    authenticateSession(token: string): ConsoleAccount {
      return verifyToken(token);
    },

    /** The account behind an Authorization header's token, undefined when it does not verify (the rate limit's bucket; no error). */
    accountOf(authorization: string | undefined): ConsoleAccount | undefined {
      const match = /^Bearer (\S+)$/i.exec(authorization ?? '');
      return match?.[1] === undefined ? undefined : accountOfToken(match[1]);
    },

    /** The account behind a session cookie's token, undefined when it does not verify (likewise). */
    sessionAccountOf: accountOfToken,
  };
}

export type ConsoleAuth = ReturnType<typeof createConsoleAuth>;
