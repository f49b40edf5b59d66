// Two-factor sign-in (issue #45, item 1; DESIGN "Security and privacy"): TOTP codes (RFC 6238, the `otpauth`
// library) of a secret sealed with SECRETS_KEY, 10 one-time recovery codes stored hashed, and the login's second
// step. A code is accepted once (its time step is recorded); a challenge lasts 5 minutes, is used once and ends
// after 5 wrong codes. Turning it on or off, or signing in with a recovery code, ends the member's other sessions
// and is e-mailed to them.
import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { Errors } from '../errors.ts';
import type { AuditContext, AuditRecorder } from '../audit/audit-record.ts';
import type { ConsoleAccount } from '../http/console/console-account.ts';
import type { InvitationMailer } from '../kernel/mailer.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import { sha256Hex, verifyPassword } from '../lib/secrets.ts';
import type { FastifyBaseLogger } from 'fastify';
import type { MembersStore } from './members-store.ts';
import type { SessionsStore } from './sessions-store.ts';
import type { ChallengeKind, TwoFactorStore } from './two-factor-store.ts';

export const CHALLENGE_TTL_MS = 5 * 60_000;
export const CHALLENGE_MAX_ATTEMPTS = 5;
export const RECOVERY_CODE_COUNT = 10;
const PERIOD_SECONDS = 30;
const ISSUER = 'Parley';
// Recovery codes: 10 characters of an alphabet without look-alikes (0/o, 1/l), shown as `xxxxx-xxxxx`.
const RECOVERY_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';

export interface TwoFactorServiceDeps {
  store: TwoFactorStore;
  members: Pick<MembersStore, 'passwordHashOf'>;
  secretBox: SecretBox;
  clock: Clock;
  mailer: Pick<InvitationMailer, 'sendText' | 'configured'>;
  logger: Pick<FastifyBaseLogger, 'warn'>;
  /** The member's sessions changed: every process forgets what it knows of them. */
  memberChanged: (memberId: string) => void;
  /**
   * Runs a change in one database transaction: turning two-factor sign-in on or off, its audit event and the end of
   * the member's other sessions commit together (a crash cannot leave it on with the other sessions still open);
   * every process forgets the member's sessions after the commit (`memberChanged`).
   */
  transaction: <T>(change: (writes: TwoFactorWrites) => Promise<T>) => Promise<T>;
}

/** What turning two-factor sign-in on or off writes through, over its transaction. */
export interface TwoFactorWrites {
  store: Pick<TwoFactorStore, 'enable' | 'disable'>;
  sessions: Pick<SessionsStore, 'removeOthers' | 'clearSetupOnly'>;
  audit: AuditRecorder;
}

const totpOf = (secret: string, email: string) =>
  new TOTP({ issuer: ISSUER, label: email, algorithm: 'SHA1', digits: 6, period: PERIOD_SECONDS, secret: Secret.fromBase32(secret) });

function newRecoveryCode(): string {
  const bytes = randomBytes(10);
  const chars = [...bytes].map((byte) => RECOVERY_ALPHABET[byte % RECOVERY_ALPHABET.length]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/** Spaces, dashes and case do not matter when a recovery code is typed back. */
const recoveryHash = (code: string) => sha256Hex(`parley-recovery:${code.toLowerCase().replace(/[\s-]/g, '')}`);

export function createTwoFactorService({ store, members, secretBox, clock, mailer, logger, memberChanged, transaction }: TwoFactorServiceDeps) {
  /** The time step of a code valid now (one step of drift either way), or undefined. */
  function stepOf(secret: string, email: string, code: string): number | undefined {
    const timestamp = clock.now().getTime();
    const delta = totpOf(secret, email).validate({ token: code, timestamp, window: 1 });
    return delta === null ? undefined : TOTP.counter({ period: PERIOD_SECONDS, timestamp }) + delta;
  }

  /** A code of the member's secret, accepted once: its step must be later than the last one used. */
  async function useCode(memberId: string, sealedSecret: string, email: string, code: string): Promise<boolean> {
    const step = stepOf(secretBox.open(sealedSecret), email, code);
    return step !== undefined && (await store.claimStep(memberId, step));
  }

  function notify(email: string, subject: string, text: string): void {
    if (!mailer.configured) return;
    void mailer
      .sendText({ to: email, subject, text: `${text}\n\nIf this was not you, change your password and tell your account's owner.\n` }, 'a two-factor sign-in notice')
      .catch((error: unknown) => logger.warn({ err: error }, 'sending a two-factor sign-in e-mail failed'));
  }

  async function stateOf(memberId: string) {
    const state = await store.stateOf(memberId);
    if (!state) throw Errors.consoleUnauthorized();
    return state;
  }

  return {
    async setup(caller: ConsoleAccount): Promise<{ secret: string; otpauthUrl: string }> {
      const state = await stateOf(caller.memberId);
      if (state.secret) throw Errors.twoFactorAlreadyOn();
      const secret = new Secret({ size: 20 }).base32;
      await store.setPending(caller.memberId, secretBox.seal(secret), clock.now());
      return { secret, otpauthUrl: totpOf(secret, state.email).toString() };
    },

    async enable(caller: ConsoleAccount, input: { code: string }, context: AuditContext): Promise<{ recoveryCodes: string[] }> {
      const state = await stateOf(caller.memberId);
      if (state.secret) throw Errors.twoFactorAlreadyOn();
      if (!state.pendingSecret) throw Errors.twoFactorNotSetUp();
      const step = stepOf(secretBox.open(state.pendingSecret), state.email, input.code);
      if (step === undefined) throw Errors.invalidTwoFactorCode();
      const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
      const { pendingSecret } = state;
      await transaction(async (writes) => {
        const enabled = await writes.store.enable(caller.memberId, { pendingSecret, step, recoveryHashes: recoveryCodes.map(recoveryHash) }, clock.now());
        // Turned on (or set up again) by a concurrent call meanwhile.
        if (!enabled) throw Errors.twoFactorNotSetUp();
        await writes.audit(context, {
          accountId: caller.accountId,
          kind: 'auth.two_factor_enabled',
          target: { type: 'member', id: caller.memberId, name: caller.name },
          changes: { twoFactor: [false, true] },
        });
        // A session that could only set two-factor sign-in up becomes a full one; the others end.
        await writes.sessions.clearSetupOnly(caller.sessionId);
        await writes.sessions.removeOthers(caller.memberId, caller.sessionId);
      });
      memberChanged(caller.memberId);
      notify(state.email, 'Two-factor sign-in is on', `Two-factor sign-in was turned on for ${state.email} on Parley; your other sessions were signed out.`);
      return { recoveryCodes };
    },

    async disable(caller: ConsoleAccount, input: { password: string; code: string }, context: AuditContext): Promise<void> {
      const hash = await members.passwordHashOf(caller.memberId);
      if (!hash || !(await verifyPassword(input.password, hash))) throw Errors.wrongPassword();
      const state = await stateOf(caller.memberId);
      if (!state.secret) throw Errors.twoFactorOff();
      if (!(await useCode(caller.memberId, state.secret, state.email, input.code))) throw Errors.invalidTwoFactorCode();
      await transaction(async (writes) => {
        await writes.store.disable(caller.memberId, clock.now());
        await writes.audit(context, {
          accountId: caller.accountId,
          kind: 'auth.two_factor_disabled',
          target: { type: 'member', id: caller.memberId, name: caller.name },
          changes: { twoFactor: [true, false] },
        });
        await writes.sessions.removeOthers(caller.memberId, caller.sessionId);
      });
      memberChanged(caller.memberId);
      notify(state.email, 'Two-factor sign-in is off', `Two-factor sign-in was turned off for ${state.email} on Parley; your other sessions were signed out.`);
    },

    /** What a sign-in whose password was right needs: a second step (`enabled`), or, if `required`, setting it up. */
    async requirementOf(memberId: string): Promise<{ enabled: boolean; required: boolean }> {
      const state = await stateOf(memberId);
      return { enabled: state.secret !== null, required: state.required };
    },

    /** The second step's challenge for a member whose password was right. */
    async challenge(memberId: string, kind: ChallengeKind): Promise<string> {
      const token = randomBytes(32).toString('base64url');
      const now = clock.now();
      await store.createChallenge({ id: newId(), tokenHash: sha256Hex(token), memberId, kind, expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS) }, now);
      return token;
    },

    /**
     * The second step: the member of a live challenge of that kind whose code (or recovery code) is right, the
     * challenge used up. 401 for an unknown, used or expired challenge and for a wrong or reused code.
     */
    async pass(input: { challenge: string; code?: string; recoveryCode?: string }, kind: ChallengeKind): Promise<{ memberId: string; recovery: boolean }> {
      if ((input.code === undefined) === (input.recoveryCode === undefined)) throw Errors.twoFactorOneCode();
      const challenge = await store.findChallenge(sha256Hex(input.challenge), kind);
      if (!challenge || challenge.expiresAt <= clock.now()) throw Errors.twoFactorChallengeInvalid();
      const state = await store.stateOf(challenge.memberId);
      if (!state?.secret) throw Errors.twoFactorChallengeInvalid();
      const right =
        input.code !== undefined
          ? await useCode(challenge.memberId, state.secret, state.email, input.code)
          : await store.useRecoveryCode(challenge.memberId, recoveryHash(input.recoveryCode ?? ''));
      if (!right) {
        await store.failChallenge(challenge.id, CHALLENGE_MAX_ATTEMPTS);
        throw Errors.invalidTwoFactorLogin();
      }
      if (!(await store.consumeChallenge(challenge.id))) throw Errors.twoFactorChallengeInvalid();
      return { memberId: challenge.memberId, recovery: input.recoveryCode !== undefined };
    },

    /** A sign-in with a recovery code: the member's other sessions end and they are told. */
    async recoveryCodeUsed(member: { id: string; email: string }, sessionId: string): Promise<void> {
      await transaction((writes) => writes.sessions.removeOthers(member.id, sessionId));
      memberChanged(member.id);
      notify(member.email, 'A recovery code was used', `Someone signed in to ${member.email} on Parley with one of your recovery codes; your other sessions were signed out.`);
    },
  };
}

export type TwoFactorService = ReturnType<typeof createTwoFactorService>;
