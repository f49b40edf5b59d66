// SQL of two-factor sign-in (issue #45, item 1): a member's sealed TOTP secret, the last time step accepted, the
// hashes of unused recovery codes, and the second step's challenges. Each "use once" is one conditional UPDATE or
// DELETE, so two requests racing with the same code, recovery code or challenge cannot both succeed.
import { and, eq, lt, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { loginChallenges, members } from '../db/schema.ts';
import { queryRows } from '../db/client.ts';

export type ChallengeKind = 'token' | 'session';

export interface TwoFactorRow {
  email: string;
  /** Sealed; null while two-factor sign-in is off. */
  secret: string | null;
  pendingSecret: string | null;
  /** The member's account requires two-factor sign-in. */
  required: boolean;
}

export interface ChallengeRow {
  id: string;
  memberId: string;
  expiresAt: Date;
}

export function createTwoFactorStore(db: Executor) {
  return {
    async stateOf(memberId: string): Promise<TwoFactorRow | undefined> {
      const [row] = await queryRows<{ email: string; secret: string | null; pending_secret: string | null; required: boolean }>(
        db,
        sql`select m.email, m.two_factor_secret as secret, m.two_factor_pending_secret as pending_secret, a.require_two_factor as required
            from members m join accounts a on a.id = m.account_id where m.id = ${memberId}`,
      );
      return row ? { email: row.email, secret: row.secret, pendingSecret: row.pending_secret, required: row.required } : undefined;
    },

    async setPending(memberId: string, sealed: string, now: Date): Promise<void> {
      await db.update(members).set({ twoFactorPendingSecret: sealed, updatedAt: now }).where(eq(members.id, memberId));
    },

    /** Turns it on with the pending secret; false when it is on already or the pending secret changed meanwhile. */
    async enable(memberId: string, input: { pendingSecret: string; step: number; recoveryHashes: string[] }, now: Date): Promise<boolean> {
      const rows = await db
        .update(members)
        .set({
          twoFactorSecret: input.pendingSecret,
          twoFactorPendingSecret: null,
          twoFactorLastStep: input.step,
          twoFactorRecoveryHashes: input.recoveryHashes,
          twoFactorEnabledAt: now,
          updatedAt: now,
        })
        .where(and(eq(members.id, memberId), sql`${members.twoFactorSecret} is null`, eq(members.twoFactorPendingSecret, input.pendingSecret)))
        .returning({ id: members.id });
      return rows.length > 0;
    },

    async disable(memberId: string, now: Date): Promise<void> {
      await db
        .update(members)
        .set({ twoFactorSecret: null, twoFactorPendingSecret: null, twoFactorLastStep: null, twoFactorRecoveryHashes: [], twoFactorEnabledAt: null, updatedAt: now })
        .where(eq(members.id, memberId));
      await db.delete(loginChallenges).where(eq(loginChallenges.memberId, memberId));
    },

    /** Records a code's time step as used: false when this step (or a later one) was used already. */
    async claimStep(memberId: string, step: number): Promise<boolean> {
      const rows = await db
        .update(members)
        .set({ twoFactorLastStep: step })
        .where(and(eq(members.id, memberId), sql`${members.twoFactorSecret} is not null`, sql`coalesce(${members.twoFactorLastStep}, -1) < ${step}`))
        .returning({ id: members.id });
      return rows.length > 0;
    },

    /** Removes an unused recovery code: false when the member has none of that hash. */
    async useRecoveryCode(memberId: string, hash: string): Promise<boolean> {
      const rows = await db
        .update(members)
        .set({ twoFactorRecoveryHashes: sql`${members.twoFactorRecoveryHashes} - ${hash}::text` })
        .where(and(eq(members.id, memberId), sql`${members.twoFactorRecoveryHashes} @> jsonb_build_array(${hash}::text)`))
        .returning({ id: members.id });
      return rows.length > 0;
    },

    /** A new challenge; the member's expired ones are cleared on the way. */
    async createChallenge(input: { id: string; tokenHash: string; memberId: string; kind: ChallengeKind; expiresAt: Date }, now: Date): Promise<void> {
      await db.delete(loginChallenges).where(and(eq(loginChallenges.memberId, input.memberId), lt(loginChallenges.expiresAt, now)));
      await db.insert(loginChallenges).values({ ...input, createdAt: now });
    },

    async findChallenge(tokenHash: string, kind: ChallengeKind): Promise<ChallengeRow | undefined> {
      const [row] = await db
        .select({ id: loginChallenges.id, memberId: loginChallenges.memberId, expiresAt: loginChallenges.expiresAt })
        .from(loginChallenges)
        .where(and(eq(loginChallenges.tokenHash, tokenHash), eq(loginChallenges.kind, kind)));
      return row;
    },

    /** Counts a wrong code; the challenge ends at `maxAttempts`. */
    async failChallenge(id: string, maxAttempts: number): Promise<void> {
      const [row] = await db
        .update(loginChallenges)
        .set({ attempts: sql`${loginChallenges.attempts} + 1` })
        .where(eq(loginChallenges.id, id))
        .returning({ attempts: loginChallenges.attempts });
      if (row && row.attempts >= maxAttempts) await db.delete(loginChallenges).where(eq(loginChallenges.id, id));
    },

    /** Uses a challenge up: false when another request used it first. */
    async consumeChallenge(id: string): Promise<boolean> {
      const rows = await db.delete(loginChallenges).where(eq(loginChallenges.id, id)).returning({ id: loginChallenges.id });
      return rows.length > 0;
    },
  };
}

export type TwoFactorStore = ReturnType<typeof createTwoFactorStore>;
