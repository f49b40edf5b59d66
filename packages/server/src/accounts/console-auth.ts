// Console login (e-mail + password → short-lived JWT, or a web-account session) with throttling of failed
// attempts per e-mail and address.
import { createSigner, createVerifier } from 'fast-jwt';
import { LruMap } from 'toad-cache';
import { memberContext, type AuditRecorder } from '../audit/audit-record.ts';
import { Errors } from '../errors.ts';
import type { ConsoleAccount, SignInClient, StartedSession, TwoFactorChallenge } from '../http/console/console-account.ts';
import type { Clock } from '../lib/clock.ts';
import { hashPassword, sha256Hex, verifyPassword } from '../lib/secrets.ts';
import { normalizeEmail } from './accounts-service.ts';
import type { AccountsStore } from './accounts-store.ts';
import type { MemberRow, MembersStore } from './members-store.ts';
import type { SessionsStore } from './sessions-store.ts';
import type { TwoFactorService } from './two-factor-service.ts';

/**
 * What a verified token says; it is honoured only while its member is active with the same session version and its
 * session (issue #45) is not ended.
 */
interface TokenClaims {
  accountId: string;
  memberId: string;
  version: number;
  sessionId: string;
}

/** A session's lastSeenAt is written at most this often. */
export const SESSION_TOUCH_MS = 60_000;

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
    'findActiveByEmail' | 'findById' | 'findByInviteHash' | 'bumpSessionVersion' | 'passwordHashOf' | 'setPassword'
  >;
  /** Runs a change with the members store and an audit recorder of one transaction (an accepted invitation and its event). */
  transaction: <T>(change: (tx: { members: Pick<MembersStore, 'acceptInvitation'>; audit: AuditRecorder }) => Promise<T>) => Promise<T>;
  /** Tells every process (this one included) that a member changed: they forget what they know of it. */
  memberChanged: (memberId: string) => void;
  /**
   * How long a member read is trusted when no change to it is heard: changes made in this process are forgotten at
   * once, and in other processes on the cache NOTIFY (`member:<id>`); this bounds a lost notice.
   */
  memberCacheTtlMs?: number;
  sessions: Pick<SessionsStore, 'create' | 'liveIds' | 'touch' | 'carryOver'>;
  /** Whether the account turned password sign-in off for members other than the owner (single sign-on, issue #45). */
  passwordLoginOff?: (accountId: string) => Promise<boolean>;
  /** The second step of a sign-in and the account's requirement (issue #45). */
  twoFactor: Pick<TwoFactorService, 'requirementOf' | 'challenge' | 'pass' | 'recoveryCodeUsed'>;
  clock: Clock;
  /** Sign-ins, failed sign-ins (of a known e-mail) and recovery codes used go to the audit log. */
  audit: AuditRecorder;
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
  sessions,
  transaction,
  twoFactor,
  passwordLoginOff = async () => false,
  clock,
  audit,
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
      // The event is the failed attempt: its actor is whoever typed the e-mail (not the member), its target the
      // member of that e-mail. An e-mail no account knows has no account's log to go to.
      if (member) {
        await audit(
          { actor: { kind: 'member', id: null, name: email }, address: ip },
          { accountId: member.accountId, kind: 'auth.login_failed', target: { type: 'member', id: member.id, name: member.name } },
        );
      }
      throw Errors.invalidCredentials();
    }
    if (throttled) await store.clearLoginFailures(email, ip);
    // Said only to whoever knows the password: it tells no stranger which e-mails belong to such an account.
    if (member.role !== 'owner' && (await passwordLoginOff(member.accountId))) throw Errors.passwordLoginOff();
    return member;
  }

  const claimsOf = (member: MemberRow, sessionId: string) => ({ sub: member.id, acc: member.accountId, ver: member.sessionVersion, sid: sessionId });

  /**
   * A new session of the member, lasting as long as the credential made for it; `setupOnly`: it can only set
   * two-factor sign-in up (the account requires it and the member has not turned it on).
   */
  async function newSession(member: MemberRow, client: SignInClient, ttlMs: number, setupOnly = false): Promise<string> {
    const now = clock.now();
    const sessionId = await sessions.create(
      { accountId: member.accountId, memberId: member.id, sessionVersion: member.sessionVersion },
      { userAgent: client.userAgent.slice(0, 500), address: client.ip, expiresAt: new Date(now.getTime() + ttlMs), twoFactorSetupOnly: setupOnly },
      now,
    );
    // This process may hold the member with the sessions it had before.
    cache.delete(member.id);
    return sessionId;
  }

  /** The claims of a token whose signature and lifetime verify (no database read), or undefined. */
  function claimsOfToken(token: string): TokenClaims | undefined {
    try {
      const claims = verify(token) as { sub?: unknown; acc?: unknown; ver?: unknown; sid?: unknown };
      if (typeof claims.sub !== 'string' || typeof claims.acc !== 'string' || typeof claims.ver !== 'number' || typeof claims.sid !== 'string') {
        return undefined;
      }
      return { memberId: claims.sub, accountId: claims.acc, version: claims.ver, sessionId: claims.sid };
    } catch {
      return undefined;
    }
  }

  /** A member as read, with their live sessions (id → whether it can only set two-factor sign-in up). */
  interface KnownMember {
    row: MemberRow;
    sessions: ReadonlyMap<string, boolean>;
  }
  const cache = new LruMap<KnownMember>(10_000, memberCacheTtlMs);
  async function readMember(memberId: string): Promise<KnownMember | undefined> {
    const row = await members.findById(memberId);
    if (!row) return undefined;
    const live = await sessions.liveIds(memberId, row.sessionVersion, clock.now());
    const known = { row, sessions: new Map(live.map((session) => [session.id, session.twoFactorSetupOnly])) };
    cache.set(memberId, known);
    return known;
  }
  /**
   * The member of a token with the session the token names: a session unknown to a cached read is looked up again
   * (it may have begun on another process since); ended sessions are forgotten on the member's cache notice.
   */
  async function memberOf(claims: TokenClaims): Promise<{ row: MemberRow; setupOnly: boolean } | undefined> {
    const cached = cache.get(claims.memberId);
    const cachedSession = cached?.sessions.get(claims.sessionId);
    if (cached && cachedSession !== undefined) return { row: cached.row, setupOnly: cachedSession };
    const known = await readMember(claims.memberId);
    const session = known?.sessions.get(claims.sessionId);
    return known && session !== undefined ? { row: known.row, setupOnly: session } : undefined;
  }

  // When this process last wrote each session's lastSeenAt (the clock's time): at most one write a minute per session.
  const touched = new LruMap<number>(10_000);
  function touch(sessionId: string): void {
    const now = clock.now();
    const last = touched.get(sessionId);
    if (last !== undefined && now.getTime() - last < SESSION_TOUCH_MS) return;
    touched.set(sessionId, now.getTime());
    // Not awaited: a lost lastSeenAt is the cost of a failed write, never a failed request.
    sessions.touch(sessionId, now).catch(() => touched.delete(sessionId));
  }

  /** The member of a token, while the token is theirs: active, same account, same session version, live session; else 401. */
  async function verifyToken(token: string): Promise<ConsoleAccount> {
    const claims = claimsOfToken(token);
    const known = claims ? await memberOf(claims) : undefined;
    const member = known?.row;
    if (!claims || !known || !member || member.status !== 'active' || member.accountId !== claims.accountId || member.sessionVersion !== claims.version) {
      throw Errors.consoleUnauthorized();
    }
    touch(claims.sessionId);
    return {
      accountId: member.accountId,
      memberId: member.id,
      email: member.email,
      name: member.name,
      role: member.role,
      sessionId: claims.sessionId,
      twoFactorSetupOnly: known.setupOnly,
    };
  }

  const signInOf = (claims: TokenClaims | undefined) => (claims ? { accountId: claims.accountId, memberId: claims.memberId } : undefined);

  /**
   * After the password: a challenge when the member signs in with a second factor, else a new session (one that can
   * only set it up when the account requires it).
   */
  /** The audit events of a sign-in: `auth.login` (and `auth.recovery_code_used` when a recovery code passed it). */
  async function signedIn(member: MemberRow, client: SignInClient, sessionId: string, recovery: boolean): Promise<void> {
    const context = memberContext(member, client.ip);
    const target = { type: 'session', id: sessionId, name: member.email };
    if (recovery) await audit(context, { accountId: member.accountId, kind: 'auth.recovery_code_used', target });
    await audit(context, { accountId: member.accountId, kind: 'auth.login', target });
  }

  async function firstStep(
    member: MemberRow,
    client: SignInClient,
    kind: 'token' | 'session',
  ): Promise<{ challenge: string } | { sessionId: string; setupOnly: boolean }> {
    const { enabled, required } = await twoFactor.requirementOf(member.id);
    if (enabled) return { challenge: await twoFactor.challenge(member.id, kind) };
    const setupOnly = required;
    const sessionId = await newSession(member, client, kind === 'token' ? tokenTtlMs : sessionTtlMs, setupOnly);
    await signedIn(member, client, sessionId, false);
    return { sessionId, setupOnly };
  }

  /** The second step: a new session of the challenge's member (a recovery code ends their other sessions). */
  async function secondStep(
    input: { challenge: string; code?: string; recoveryCode?: string },
    client: SignInClient,
    kind: 'token' | 'session',
  ): Promise<{ member: MemberRow; sessionId: string }> {
    const passed = await twoFactor.pass(input, kind);
    const member = await members.findById(passed.memberId);
    if (!member || member.status !== 'active') throw Errors.twoFactorChallengeInvalid();
    const sessionId = await newSession(member, client, kind === 'token' ? tokenTtlMs : sessionTtlMs);
    await signedIn(member, client, sessionId, passed.recovery);
    if (passed.recovery) await twoFactor.recoveryCodeUsed(member, sessionId);
    return { member, sessionId };
  }

  const sessionMember = (member: MemberRow, setupOnly: boolean) => ({
    email: member.email,
    memberId: member.id,
    name: member.name,
    role: member.role,
    ...(setupOnly ? { twoFactorSetupRequired: true as const } : {}),
  });

  return {
    async login(input: { email: string; password: string }, client: SignInClient): Promise<{ token: string } | TwoFactorChallenge> {
      const member = await checkCredentials(input, client.ip);
      const step = await firstStep(member, client, 'token');
      if ('challenge' in step) return { twoFactorRequired: true, challenge: step.challenge };
      return { token: sign(claimsOf(member, step.sessionId)) };
    },

    /** The login's second step (issue #45): the challenge and a code give the token. */
    async loginTwoFactor(input: { challenge: string; code?: string; recoveryCode?: string }, client: SignInClient): Promise<{ token: string }> {
      const { member, sessionId } = await secondStep(input, client, 'token');
      return { token: sign(claimsOf(member, sessionId)) };
    },

    /**
     * Accepts an invitation: the member gets a name and a password, becomes active and is signed in. A used, unknown
     * (or withdrawn) and expired link are each a 400 saying which.
     */
    async acceptInvitation(input: { token: string; name: string; password: string }, client: SignInClient): Promise<{ token: string; email: string }> {
      const invited = await members.findByInviteHash(sha256Hex(input.token));
      const now = clock.now();
      if (!invited) throw Errors.invitationUnknown();
      if (invited.status === 'active') throw Errors.invitationUsed();
      if (!invited.inviteExpiresAt || invited.inviteExpiresAt <= now) throw Errors.invitationExpired();
      // A password would be of no use: the invitation stays for single sign-on to join by.
      if (await passwordLoginOff(invited.accountId)) throw Errors.passwordLoginOff();
      const passwordHash = await hashPassword(input.password);
      // The member made active and its event together, or neither.
      const member = await transaction(async (tx) => {
        const accepted = await tx.members.acceptInvitation(invited.id, { name: input.name.trim() || invited.email, passwordHash }, now);
        if (accepted) {
          await tx.audit(memberContext(accepted, client.ip), {
            accountId: accepted.accountId,
            kind: 'invitation.accepted',
            target: { type: 'member', id: accepted.id, name: accepted.name },
            changes: { status: ['invited', 'active'] },
          });
        }
        return accepted;
      });
      // Accepted (or withdrawn) by a concurrent call meanwhile.
      if (!member) throw Errors.invitationUsed();
      memberChanged(member.id);
      // A new member has no second factor yet: an account that requires one gets a session that can only set it up.
      const { required } = await twoFactor.requirementOf(member.id);
      const sessionId = await newSession(member, client, tokenTtlMs, required);
      await signedIn(member, client, sessionId, false);
      return { token: sign(claimsOf(member, sessionId)), email: member.email };
    },

    /** A member's new password (the current one checked): every token and session of theirs ends. */
    async changePassword(member: ConsoleAccount, input: { currentPassword: string; newPassword: string }): Promise<void> {
      const current = await members.passwordHashOf(member.memberId);
      if (!current || !(await verifyPassword(input.currentPassword, current))) throw Errors.invalidCredentials();
      await members.setPassword(member.memberId, await hashPassword(input.newPassword), clock.now());
      memberChanged(member.memberId);
    },

    /**
     * The caller's session after a change of password that keeps it signed in: it follows the member's new session
     * version and lasts as long as the new credential; its new bearer token and session token.
     */
    async renew(member: MemberRow, sessionId: string): Promise<{ token: string; session: string; maxAgeSeconds: number }> {
      await sessions.carryOver(sessionId, member.sessionVersion, new Date(clock.now().getTime() + Math.max(tokenTtlMs, sessionTtlMs)));
      cache.delete(member.id);
      return {
        token: sign(claimsOf(member, sessionId)),
        session: signSession(claimsOf(member, sessionId)),
        maxAgeSeconds: Math.floor(sessionTtlMs / 1000),
      };
    },

    /**
     * The sign-in that follows a password reset: a login with the new password, so the second factor is asked for
     * (its challenge) and password sign-in turned off for the account refuses it, as at the login.
     */
    async signIn(member: MemberRow, client: SignInClient): Promise<{ token: string } | TwoFactorChallenge> {
      if (member.role !== 'owner' && (await passwordLoginOff(member.accountId))) throw Errors.passwordLoginOff();
      const step = await firstStep(member, client, 'token');
      if ('challenge' in step) return { twoFactorRequired: true, challenge: step.challenge };
      return { token: sign(claimsOf(member, step.sessionId)) };
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
    async startSession(input: { email: string; password: string }, client: SignInClient): Promise<StartedSession | TwoFactorChallenge> {
      const member = await checkCredentials(input, client.ip);
      const step = await firstStep(member, client, 'session');
      if ('challenge' in step) return { twoFactorRequired: true, challenge: step.challenge };
      return { token: signSession(claimsOf(member, step.sessionId)), member: sessionMember(member, step.setupOnly), maxAgeSeconds: Math.floor(sessionTtlMs / 1000) };
    },

    /** The web-account login's second step: the session cookie's token. */
    async startSessionTwoFactor(input: { challenge: string; code?: string; recoveryCode?: string }, client: SignInClient): Promise<StartedSession> {
      const { member, sessionId } = await secondStep(input, client, 'session');
      return { token: signSession(claimsOf(member, sessionId)), member: sessionMember(member, false), maxAgeSeconds: Math.floor(sessionTtlMs / 1000) };
    },

    /**
     * A web-account session of a member the account's provider signed in (single sign-on, issue #45): the same
     * session as a password sign-in; the provider's sign-in stands for the second factor (docs/decisions.md).
     */
    async startSsoSession(member: MemberRow, client: SignInClient): Promise<StartedSession> {
      const sessionId = await newSession(member, client, sessionTtlMs);
      return { token: signSession(claimsOf(member, sessionId)), member: sessionMember(member, false), maxAgeSeconds: Math.floor(sessionTtlMs / 1000) };
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
     * The member (and account) of an Authorization header's token whose signature verifies, undefined otherwise (the
     * rate limit's bucket: no error and no database read, so a token ended a moment ago still counts against its member).
     */
    signInOf(authorization: string | undefined): { accountId: string; memberId: string } | undefined {
      const match = /^Bearer (\S+)$/i.exec(authorization ?? '');
      return match?.[1] === undefined ? undefined : signInOf(claimsOfToken(match[1]));
    },

    /** The member of a session cookie's token, likewise. */
    sessionSignInOf: (token: string) => signInOf(claimsOfToken(token)),
  };
}

export type ConsoleAuth = ReturnType<typeof createConsoleAuth>;
