// SQL of members' sessions (issue #45): one row per sign-in, listed on Profile and ended one by one.
import { and, asc, eq, gt, lt, ne, or, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { memberSessions } from '../db/schema.ts';
import { newId } from '../lib/ids.ts';

export interface SessionRow {
  id: string;
  userAgent: string;
  address: string;
  createdAt: Date;
  lastSeenAt: Date;
}

/** A member's own session (same member and current session version, not expired). */
const live = (memberId: string, version: number, now: Date) =>
  and(eq(memberSessions.memberId, memberId), eq(memberSessions.sessionVersion, version), gt(memberSessions.expiresAt, now));

export function createSessionsStore(db: Executor) {
  return {
    /** A new session; the member's expired and ended ones are cleared on the way (a member signs in seldom). */
    async create(
      member: { accountId: string; memberId: string; sessionVersion: number },
      input: { userAgent: string; address: string; expiresAt: Date; twoFactorSetupOnly?: boolean },
      now: Date,
    ): Promise<string> {
      const id = newId();
      await db
        .delete(memberSessions)
        .where(
          and(
            eq(memberSessions.memberId, member.memberId),
            or(ne(memberSessions.sessionVersion, member.sessionVersion), lt(memberSessions.expiresAt, now)),
          ),
        );
      await db.insert(memberSessions).values({
        id,
        accountId: member.accountId,
        memberId: member.memberId,
        sessionVersion: member.sessionVersion,
        userAgent: input.userAgent,
        address: input.address,
        createdAt: now,
        lastSeenAt: now,
        expiresAt: input.expiresAt,
        twoFactorSetupOnly: input.twoFactorSetupOnly ?? false,
      });
      return id;
    },

    /**
     * A member's live sessions (what a request's token is checked against), each with whether it can only set
     * two-factor sign-in up.
     */
    async liveIds(memberId: string, version: number, now: Date): Promise<{ id: string; twoFactorSetupOnly: boolean }[]> {
      return db
        .select({ id: memberSessions.id, twoFactorSetupOnly: memberSessions.twoFactorSetupOnly })
        .from(memberSessions)
        .where(live(memberId, version, now));
    },

    /** The session set two-factor sign-in up: it becomes a full one. */
    async clearSetupOnly(id: string): Promise<void> {
      await db.update(memberSessions).set({ twoFactorSetupOnly: false }).where(eq(memberSessions.id, id));
    },

    /** Newest first. */
    async list(memberId: string, version: number, now: Date): Promise<SessionRow[]> {
      return db
        .select({
          id: memberSessions.id,
          userAgent: memberSessions.userAgent,
          address: memberSessions.address,
          createdAt: memberSessions.createdAt,
          lastSeenAt: memberSessions.lastSeenAt,
        })
        .from(memberSessions)
        .where(live(memberId, version, now))
        .orderBy(sql`${memberSessions.lastSeenAt} desc`, asc(memberSessions.id));
    },

    /** Ends one session of the member; false when the member has none of that id. */
    async remove(memberId: string, id: string): Promise<boolean> {
      const rows = await db
        .delete(memberSessions)
        .where(and(eq(memberSessions.memberId, memberId), eq(memberSessions.id, id)))
        .returning({ id: memberSessions.id });
      return rows.length > 0;
    },

    /** Ends every session of the member but one. */
    async removeOthers(memberId: string, keepId: string): Promise<number> {
      const rows = await db
        .delete(memberSessions)
        .where(and(eq(memberSessions.memberId, memberId), ne(memberSessions.id, keepId)))
        .returning({ id: memberSessions.id });
      return rows.length;
    },

    /** A session's version follows its member's (a password change that keeps its caller signed in). */
    async carryOver(id: string, version: number, expiresAt: Date): Promise<void> {
      await db.update(memberSessions).set({ sessionVersion: version, expiresAt }).where(eq(memberSessions.id, id));
    },

    async touch(id: string, now: Date): Promise<void> {
      await db.update(memberSessions).set({ lastSeenAt: now }).where(eq(memberSessions.id, id));
    },
  };
}

export type SessionsStore = ReturnType<typeof createSessionsStore>;
