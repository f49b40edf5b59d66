// SQL of single sign-on (issue #45, item 2): an account's provider settings and slug, the account a login page names
// (by slug or by an allowed e-mail domain), the members a verified e-mail may be, and removed members' e-mails.
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { accounts, accountSso, members, ssoRemovedMembers } from '../db/schema.ts';
import { memberColumns, type MemberRole, type MemberRow, type MemberStatus } from './members-store.ts';

/** An account's single sign-on as stored (the secret sealed); every account has one (the defaults when never saved). */
export interface SsoRow {
  accountId: string;
  slug: string;
  issuer: string | null;
  clientId: string | null;
  clientSecret: string | null;
  buttonName: string;
  allowedDomains: string[];
  defaultRole: 'admin' | 'agent';
  passwordLogin: boolean;
}

export type SsoChange = Partial<Omit<SsoRow, 'accountId' | 'slug'>>;

const ssoColumns = {
  accountId: accounts.id,
  slug: accounts.slug,
  issuer: accountSso.issuer,
  clientId: accountSso.clientId,
  clientSecret: accountSso.clientSecret,
  buttonName: sql<string>`coalesce(${accountSso.buttonName}, 'SSO')`,
  allowedDomains: sql<string[]>`coalesce(${accountSso.allowedDomains}, '[]'::jsonb)`,
  defaultRole: sql<'admin' | 'agent'>`coalesce(${accountSso.defaultRole}, 'agent')`,
  passwordLogin: sql<boolean>`coalesce(${accountSso.passwordLogin}, true)`,
};

/** A member a verified e-mail names, with what an invitation says. */
export interface SsoMemberRow extends MemberRow {
  status: MemberStatus;
  inviteExpiresAt: Date | null;
}

export function createSsoStore(db: Executor) {
  const select = () => db.select(ssoColumns).from(accounts).leftJoin(accountSso, eq(accountSso.accountId, accounts.id));
  return {
    async ofAccount(accountId: string): Promise<SsoRow | undefined> {
      const [row] = await select().where(eq(accounts.id, accountId));
      return row;
    },

    async ofSlug(slug: string): Promise<SsoRow | undefined> {
      const [row] = await select().where(eq(accounts.slug, slug));
      return row;
    },

    /** The oldest account with single sign-on on that lists this e-mail domain. */
    async ofDomain(domain: string): Promise<SsoRow | undefined> {
      const [row] = await select()
        .where(and(sql`${accountSso.issuer} is not null`, sql`${accountSso.allowedDomains} @> jsonb_build_array(${domain}::text)`))
        .orderBy(asc(accounts.createdAt), asc(accounts.id))
        .limit(1);
      return row;
    },

    async save(accountId: string, change: SsoChange): Promise<void> {
      const values = { ...change, updatedAt: sql`now()` };
      await db
        .insert(accountSso)
        .values({ accountId, ...change })
        .onConflictDoUpdate({ target: accountSso.accountId, set: values });
    },

    /** Whether password sign-in is off for this member's account (the owner always may). */
    async passwordLoginOff(accountId: string): Promise<boolean> {
      const [row] = await db.select({ on: accountSso.passwordLogin }).from(accountSso).where(eq(accountSso.accountId, accountId));
      return row?.on === false;
    },

    /** The member with this e-mail in any account (one member per e-mail across accounts), active or invited. */
    async memberByEmail(email: string): Promise<SsoMemberRow | undefined> {
      const [row] = await db
        .select({ ...memberColumns, inviteExpiresAt: members.inviteExpiresAt })
        .from(members)
        .where(eq(members.email, email));
      return row;
    },

    /**
     * Makes an invited member active by single sign-on (no password), with `role`, unless it was accepted or
     * withdrawn meanwhile; the invitation's link then says "used".
     */
    async activate(id: string, input: { name: string; role: MemberRole }, now: Date): Promise<MemberRow | undefined> {
      const [row] = await db
        .update(members)
        .set({ name: input.name, role: input.role, status: 'active', inviteTokenSealed: null, updatedAt: now })
        .where(and(eq(members.id, id), eq(members.status, 'invited')))
        .returning(memberColumns);
      return row;
    },

    /** A new active member (no password); undefined when the e-mail became a member meanwhile. */
    async insertMember(row: { id: string; accountId: string; email: string; name: string; role: MemberRole }): Promise<MemberRow | undefined> {
      const [inserted] = await db
        .insert(members)
        .values({ ...row, status: 'active' })
        .onConflictDoNothing()
        .returning(memberColumns);
      return inserted;
    },

    /** Remembers the e-mail of an active member about to be removed (in the removal's transaction). */
    async rememberRemoval(accountId: string, memberId: string): Promise<void> {
      await db.execute(sql`
        insert into sso_removed_members (account_id, email)
        select account_id, email from members where id = ${memberId} and account_id = ${accountId} and status = 'active' and role <> 'owner'
        on conflict (account_id, email) do update set removed_at = now()`);
    },

    async wasRemoved(accountId: string, email: string): Promise<boolean> {
      const rows = await db
        .select({ email: ssoRemovedMembers.email })
        .from(ssoRemovedMembers)
        .where(and(eq(ssoRemovedMembers.accountId, accountId), eq(ssoRemovedMembers.email, email)));
      return rows.length > 0;
    },

    async forgetRemoval(accountId: string, email: string): Promise<void> {
      await db.delete(ssoRemovedMembers).where(and(eq(ssoRemovedMembers.accountId, accountId), eq(ssoRemovedMembers.email, email)));
    },
  };
}

export type SsoStore = ReturnType<typeof createSsoStore>;
