// Console login (e-mail + password → short-lived JWT, or a web-account session) with throttling of failed
// attempts per e-mail and address.
import { createSigner, createVerifier } from 'fast-jwt';
import { LruMap } from 'toad-cache';
import { Errors } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { hashPassword, sha256Hex, verifyPassword } from '../lib/secrets.ts';
import { normalizeEmail } from './accounts-service.ts';
import type { AccountsStore } from './accounts-store.ts';
import type { MemberRole, MemberRow, MembersStore } from './members-store.ts';

/** The member behind a console request (issue #25): checked against the database's session version on every call. */
export interface ConsoleAccount {
  accountId: string;
  memberId: string;
  email: string;
  name: string;
  role: MemberRole;
}

/** The cache notice of a change to a member (`member:<id>`, see core.announceCacheChange): their sessions may have ended. */
export const MEMBER_NOTICE = 'member:';

/** What a verified token says; it is honoured only while its member is active with the same session version. */
interface TokenClaims {
  accountId: string;
  memberId: string;
  version: number;
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
  store: Pick<AccountsStore, 'loginThrottle' | 'recordLoginFailure' | 'clearLoginFailures'>;
  members: Pick<
    MembersStore,
    'findActiveByEmail' | 'findById' | 'findByInviteHash' | 'acceptInvitation' | 'bumpSessionVersion' | 'passwordHashOf' | 'setPassword'
  >;
  /** Tells every process (this one included) that a member changed: they forget what they know of it. */
  memberChanged: (memberId: string) => void;
  /**
   * How long a member read is trusted when no change to it is heard: changes made in this process are forgotten at
   * once, and in other processes on the cache NOTIFY (`member:<id>`); this bounds a lost notice.
   */
  memberCacheTtlMs?: number;
  clock: Clock;
  jwtSecret: string;
  throttle?: LoginThrottlePolicy;
  tokenTtlMs?: number;
  sessionTtlMs?: number;
}

export function createConsoleAuth({
  store,
  members,
  memberChanged,
  memberCacheTtlMs = 30_000,
  clock,
  jwtSecret,
  throttle = DEFAULT_LOGIN_THROTTLE,
  tokenTtlMs = TOKEN_TTL_MS,
  sessionTtlMs = SESSION_TTL_MS,
}: ConsoleAuthDeps) {
  const sign = createSigner({ key: jwtSecret, algorithm: 'HS256', expiresIn: tokenTtlMs });
  const signSession = createSigner({ key: jwtSecret, algorithm: 'HS256', expiresIn: sessionTtlMs });
  const verify = createVerifier({ key: jwtSecret, algorithms: ['HS256'], cache: 1000 });
  // Compared against when the e-mail is unknown, so both cases take the time of one scrypt.
  const dummyHash = hashPassword('parley-dummy-password');

  /** `ip`: the client's address; failures lock the e-mail for it alone, so a stranger cannot lock the owner out. */
  async function checkCredentials(input: { email: string; password: string }, ip: string): Promise<MemberRow> {
    const email = normalizeEmail(input.email);
    const now = clock.now();
    const throttled = await store.loginThrottle(email, ip);
    if (throttled?.lockedUntil && throttled.lockedUntil > now) {
      throw Errors.loginLocked(Math.ceil((throttled.lockedUntil.getTime() - now.getTime()) / 60_000));
    }
    const member = await members.findActiveByEmail(email);
    const valid = await verifyPassword(input.password, member?.passwordHash ?? (await dummyHash));
    if (!member?.passwordHash || !valid) {
      await store.recordLoginFailure(email, ip, now, throttle.windowMs, throttle.maxFailures, throttle.lockMs);
      throw Errors.invalidCredentials();
    }
    if (throttled) await store.clearLoginFailures(email, ip);
    return member;
  }

  const claimsOf = (member: MemberRow) => ({ sub: member.id, acc: member.accountId, ver: member.sessionVersion });

  /** The claims of a token whose signature and lifetime verify (no database read), or undefined. */
  function claimsOfToken(token: string): TokenClaims | undefined {
    try {
      const claims = verify(token) as { sub?: unknown; acc?: unknown; ver?: unknown };
      if (typeof claims.sub !== 'string' || typeof claims.acc !== 'string' || typeof claims.ver !== 'number') return undefined;
      return { memberId: claims.sub, accountId: claims.acc, version: claims.ver };
    } catch {
      return undefined;
    }
  }

  const cache = new LruMap<MemberRow>(10_000, memberCacheTtlMs);
  async function memberOf(memberId: string): Promise<MemberRow | undefined> {
    const cached = cache.get(memberId);
    if (cached) return cached;
    const row = await members.findById(memberId);
    if (row) cache.set(memberId, row);
    return row;
  }

  /** The member of a token, while the token is theirs: active, same account, same session version; else 401. */
  async function verifyToken(token: string): Promise<ConsoleAccount> {
    const claims = claimsOfToken(token);
    const member = claims ? await memberOf(claims.memberId) : undefined;
    if (!claims || !member || member.status !== 'active' || member.accountId !== claims.accountId || member.sessionVersion !== claims.version) {
      throw Errors.consoleUnauthorized();
    }
    return { accountId: member.accountId, memberId: member.id, email: member.email, name: member.name, role: member.role };
  }

  const bucketOf = (claims: TokenClaims | undefined) => (claims ? { accountId: claims.accountId } : undefined);

  return {
    async login(input: { email: string; password: string }, ip: string): Promise<{ token: string }> {
      return { token: sign(claimsOf(await checkCredentials(input, ip))) };
    },

    /**
     * Accepts an invitation: the member gets a name and a password, becomes active and is signed in. A used, unknown
     * (or withdrawn) and expired link are each a 400 saying which.
     */
    async acceptInvitation(input: { token: string; name: string; password: string }): Promise<{ token: string; email: string }> {
      const invited = await members.findByInviteHash(sha256Hex(input.token));
      const now = clock.now();
      if (!invited) throw Errors.invitationUnknown();
      if (invited.status === 'active') throw Errors.invitationUsed();
      if (!invited.inviteExpiresAt || invited.inviteExpiresAt <= now) throw Errors.invitationExpired();
      const passwordHash = await hashPassword(input.password);
      const member = await members.acceptInvitation(invited.id, { name: input.name.trim() || invited.email, passwordHash }, now);
      // Accepted (or withdrawn) by a concurrent call meanwhile.
      if (!member) throw Errors.invitationUsed();
      memberChanged(member.id);
      return { token: sign(claimsOf(member)), email: member.email };
    },

    /** A member's new password (the current one checked): every token and session of theirs ends. */
    async changePassword(member: ConsoleAccount, input: { currentPassword: string; newPassword: string }): Promise<void> {
      const current = await members.passwordHashOf(member.memberId);
      if (!current || !(await verifyPassword(input.currentPassword, current))) throw Errors.invalidCredentials();
      await members.setPassword(member.memberId, await hashPassword(input.newPassword), clock.now());
      memberChanged(member.memberId);
    },

    /** A new bearer token and session token of a member (after a change of password that keeps its caller signed in). */
    tokensFor(member: MemberRow): { token: string; session: string; maxAgeSeconds: number } {
      return { token: sign(claimsOf(member)), session: signSession(claimsOf(member)), maxAgeSeconds: Math.floor(sessionTtlMs / 1000) };
    },

    /**
     * Why a credential whose signature verifies no longer signs anyone in: `removed` when its member is gone (the web
     * account says so to a member removed while signed in); undefined otherwise.
     */
    async endedBecause(token: string): Promise<'removed' | undefined> {
      const claims = claimsOfToken(token);
      if (!claims) return undefined;
      return (await members.findById(claims.memberId)) ? undefined : 'removed';
    },

    /** Signs a member out everywhere: every token and session cookie of theirs ends on its next request. */
    async signOut(member: ConsoleAccount): Promise<void> {
      await members.bumpSessionVersion(member.memberId, clock.now());
      memberChanged(member.memberId);
    },

    /** Forgets what this process knows of a member (after a change to it, here or announced by another process). */
    forget(memberId: string | undefined): void {
      if (memberId === undefined) cache.clear();
      else cache.delete(memberId);
    },

    /** Web-account login: a longer-lived token that only ever travels in an HttpOnly cookie. */
    async startSession(
      input: { email: string; password: string },
      ip: string,
    ): Promise<{ token: string; member: { email: string; memberId: string; name: string; role: MemberRole }; maxAgeSeconds: number }> {
      const member = await checkCredentials(input, ip);
      return {
        token: signSession(claimsOf(member)),
        member: { email: member.email, memberId: member.id, name: member.name, role: member.role },
        maxAgeSeconds: Math.floor(sessionTtlMs / 1000),
      };
    },

    /** The member behind a bearer token, or 401. */
    async authenticate(authorization: string | undefined): Promise<ConsoleAccount> {
      const match = /^Bearer (\S+)$/i.exec(authorization ?? '');
      if (!match?.[1]) throw Errors.consoleUnauthorized();
      return verifyToken(match[1]);
    },

    /** The member behind a session cookie's token, or 401. */
    authenticateSession(token: string): Promise<ConsoleAccount> {
      return verifyToken(token);
    },

    /**
     * The account of an Authorization header's token whose signature verifies, undefined otherwise (the rate limit's
     * bucket: no error and no database read, so a token ended a moment ago still counts against its account).
     */
    accountOf(authorization: string | undefined): { accountId: string } | undefined {
      const match = /^Bearer (\S+)$/i.exec(authorization ?? '');
      return match?.[1] === undefined ? undefined : bucketOf(claimsOfToken(match[1]));
    },

    /** The account of a session cookie's token, likewise. */
    sessionAccountOf: (token: string) => bucketOf(claimsOfToken(token)),
  };
}

export type ConsoleAuth = ReturnType<typeof createConsoleAuth>;
