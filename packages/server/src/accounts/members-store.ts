// SQL of the members of accounts (issue #25).
import { and, asc, eq, ne, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { members } from '../db/schema.ts';

export type MemberRole = 'owner' | 'admin' | 'agent';
export type MemberStatus = 'active' | 'invited';

/** What a console request needs of its member: checked on every call (cached per process, see console-auth.ts). */
export interface MemberRow {
  id: string;
  accountId: string;
  email: string;
  name: string;
  role: MemberRole;
  status: MemberStatus;
  sessionVersion: number;
  /** Open assigned chats auto-assignment gives them (issue #44); null: the account's. */
  capacity?: number | null;
}

export type EmailAlerts = 'off' | 'handoffs' | 'mine';
export type Availability = 'available' | 'away';

/** A member's own settings: `notifyEmail` null follows the role's default. */
export interface ProfileRow {
  id: string;
  email: string;
  name: string;
  role: MemberRole;
  language: string;
  notifyEmail: EmailAlerts | null;
  notifyBrowser: boolean;
  /** Two-factor sign-in is on. */
  twoFactor: boolean;
  /** Auto-assignment gives `available` members chats (issue #44). */
  availability: Availability;
  /** They become `away` when their last web-account tab closes. */
  awayWhenOffline: boolean;
}

const profileColumns = {
  id: members.id,
  email: members.email,
  name: members.name,
  role: sql<MemberRole>`${members.role}`,
  language: members.language,
  notifyEmail: sql<EmailAlerts | null>`${members.notifyEmail}`,
  notifyBrowser: members.notifyBrowser,
  twoFactor: sql<boolean>`${members.twoFactorSecret} is not null`,
  availability: sql<Availability>`${members.availability}`,
  awayWhenOffline: members.awayWhenOffline,
};

export const memberColumns = {
  id: members.id,
  accountId: members.accountId,
  email: members.email,
  name: members.name,
  role: sql<MemberRole>`${members.role}`,
  status: sql<MemberStatus>`${members.status}`,
  sessionVersion: members.sessionVersion,
  capacity: members.capacity,
};

export function createMembersStore(db: Executor) {
  return {
    async findById(id: string): Promise<MemberRow | undefined> {
      const [row] = await db.select(memberColumns).from(members).where(eq(members.id, id));
      return row;
    },

    /** The member signing in with this e-mail, with the password hash to check. */
    async findActiveByEmail(email: string): Promise<(MemberRow & { passwordHash: string | null }) | undefined> {
      const [row] = await db
        .select({ ...memberColumns, passwordHash: members.passwordHash })
        .from(members)
        .where(and(eq(members.email, email), eq(members.status, 'active')));
      return row;
    },

    /** Owner first, then admins and agents, each by name. */
    async list(accountId: string): Promise<MemberRow[]> {
      return db
        .select(memberColumns)
        .from(members)
        .where(eq(members.accountId, accountId))
        .orderBy(sql`case ${members.role} when 'owner' then 0 when 'admin' then 1 else 2 end`, asc(members.name), asc(members.id));
    },

    async findInAccount(accountId: string, id: string): Promise<MemberRow | undefined> {
      const [row] = await db.select(memberColumns).from(members).where(and(eq(members.accountId, accountId), eq(members.id, id)));
      return row;
    },

    /**
     * An invitation: a new invited member, or (the same e-mail invited to this account before, not yet accepted) the
     * old invitation renewed with a new link, whose old link stops working. Undefined when the e-mail is a member
     * of this or another account.
     */
    async upsertInvitation(row: {
      id: string;
      accountId: string;
      email: string;
      name: string;
      role: MemberRole;
      inviteTokenHash: string;
      inviteTokenSealed: string;
      inviteExpiresAt: Date;
    }): Promise<MemberRow | undefined> {
      // No error on a known e-mail (it would abort the caller's transaction): the insert adds nothing, and a pending
      // invitation of the account is renewed instead.
      const [inserted] = await db
        .insert(members)
        .values({ ...row, status: 'invited' })
        .onConflictDoNothing({ target: members.email })
        .returning(memberColumns);
      if (inserted) return inserted;
      const [renewed] = await db
        .update(members)
        .set({
          name: row.name,
          role: row.role,
          inviteTokenHash: row.inviteTokenHash,
          inviteTokenSealed: row.inviteTokenSealed,
          inviteExpiresAt: row.inviteExpiresAt,
          updatedAt: sql`now()`,
        })
        .where(and(eq(members.email, row.email), eq(members.accountId, row.accountId), eq(members.status, 'invited')))
        .returning(memberColumns);
      return renewed;
    },

    async findByInviteHash(hash: string) {
      const [row] = await db
        .select({ ...memberColumns, inviteExpiresAt: members.inviteExpiresAt })
        .from(members)
        .where(eq(members.inviteTokenHash, hash));
      return row;
    },

    /** A pending invitation of the account with its sealed token (null: made before links were kept). */
    async findInvitation(accountId: string, id: string) {
      const [row] = await db
        .select({
          id: members.id,
          email: members.email,
          role: sql<MemberRole>`${members.role}`,
          inviteTokenSealed: members.inviteTokenSealed,
          inviteExpiresAt: members.inviteExpiresAt,
        })
        .from(members)
        .where(and(eq(members.accountId, accountId), eq(members.id, id), eq(members.status, 'invited')));
      return row;
    },

    /**
     * Makes an invited member active, unless it was accepted, withdrawn or expired meanwhile (then undefined); the
     * sealed link goes (the hash stays, so the link then says "used").
     */
    async acceptInvitation(id: string, input: { name: string; passwordHash: string }, now: Date): Promise<MemberRow | undefined> {
      const [row] = await db
        .update(members)
        .set({ name: input.name, passwordHash: input.passwordHash, status: 'active', inviteTokenSealed: null, updatedAt: now })
        .where(and(eq(members.id, id), eq(members.status, 'invited'), sql`${members.inviteExpiresAt} > ${now.toISOString()}::timestamptz`))
        .returning(memberColumns);
      return row;
    },

    /** A new role for a member other than the owner; every session of theirs ends. */
    async setRole(accountId: string, id: string, role: MemberRole, now: Date): Promise<MemberRow | undefined> {
      const [row] = await db
        .update(members)
        .set({ role, sessionVersion: sql`${members.sessionVersion} + 1`, updatedAt: now })
        .where(and(eq(members.accountId, accountId), eq(members.id, id), ne(members.role, 'owner')))
        .returning(memberColumns);
      return row;
    },

    /** A member's own capacity for auto-assignment (null: the account's); nothing of their access changes. */
    async setCapacity(accountId: string, id: string, capacity: number | null, now: Date): Promise<MemberRow | undefined> {
      const [row] = await db
        .update(members)
        .set({ capacity, updatedAt: now })
        .where(and(eq(members.accountId, accountId), eq(members.id, id)))
        .returning(memberColumns);
      return row;
    },

    /** Removes a member other than the owner; false when there is none such. */
    async remove(accountId: string, id: string): Promise<boolean> {
      const rows = await db
        .delete(members)
        .where(and(eq(members.accountId, accountId), eq(members.id, id), ne(members.role, 'owner')))
        .returning({ id: members.id });
      return rows.length > 0;
    },

    /** A member's own settings (issue #33). */
    async profileOf(id: string): Promise<ProfileRow | undefined> {
      const [row] = await db.select(profileColumns).from(members).where(eq(members.id, id));
      return row;
    },

    /** Changes the fields given of a member's own settings; a new name also shows on the sessions (memberChanged). */
    async updateProfile(
      id: string,
      change: {
        name?: string;
        language?: string;
        notifyEmail?: EmailAlerts;
        notifyBrowser?: boolean;
        availability?: Availability;
        awayWhenOffline?: boolean;
      },
      now: Date,
    ): Promise<ProfileRow | undefined> {
      const [row] = await db
        .update(members)
        .set({ ...change, updatedAt: now })
        .where(eq(members.id, id))
        .returning(profileColumns);
      return row;
    },

    /** A new password; every token and session of the member ends; the new session version comes back. */
    async replacePassword(id: string, passwordHash: string, now: Date): Promise<MemberRow | undefined> {
      const [row] = await db
        .update(members)
        .set({ passwordHash, sessionVersion: sql`${members.sessionVersion} + 1`, updatedAt: now })
        .where(and(eq(members.id, id), eq(members.status, 'active')))
        .returning(memberColumns);
      return row;
    },

    /** Keeps the hash of a forgotten-password link of an active member (the previous link stops working). */
    async setResetToken(email: string, tokenHash: string, expiresAt: Date): Promise<MemberRow | undefined> {
      const [row] = await db
        .update(members)
        .set({ resetTokenHash: tokenHash, resetExpiresAt: expiresAt })
        .where(and(eq(members.email, email), eq(members.status, 'active')))
        .returning(memberColumns);
      return row;
    },

    /**
     * Uses a forgotten-password link once: a new password, the link cleared, every session ended. Undefined for an
     * unknown, used or expired link.
     */
    async resetPassword(tokenHash: string, passwordHash: string, now: Date): Promise<MemberRow | undefined> {
      const [row] = await db
        .update(members)
        .set({
          passwordHash,
          resetTokenHash: null,
          resetExpiresAt: null,
          sessionVersion: sql`${members.sessionVersion} + 1`,
          updatedAt: now,
        })
        .where(
          and(
            eq(members.resetTokenHash, tokenHash),
            eq(members.status, 'active'),
            sql`${members.resetExpiresAt} > ${now.toISOString()}::timestamptz`,
          ),
        )
        .returning(memberColumns);
      return row;
    },

    /** Ends every token and session of a member (sign-out everywhere). */
    async bumpSessionVersion(id: string, now: Date): Promise<void> {
      await db.update(members).set({ sessionVersion: sql`${members.sessionVersion} + 1`, updatedAt: now }).where(eq(members.id, id));
    },

    async passwordHashOf(id: string): Promise<string | null | undefined> {
      const [row] = await db.select({ passwordHash: members.passwordHash }).from(members).where(eq(members.id, id));
      return row?.passwordHash;
    },

    /** A new password; every token and session of the member ends. */
    async setPassword(id: string, passwordHash: string, now: Date): Promise<void> {
      await db
        .update(members)
        .set({ passwordHash, sessionVersion: sql`${members.sessionVersion} + 1`, updatedAt: now })
        .where(eq(members.id, id));
    },
  };
}

export type MembersStore = ReturnType<typeof createMembersStore>;
