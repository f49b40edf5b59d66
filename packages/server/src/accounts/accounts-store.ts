// SQL of accounts and API keys.
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { accounts, apiKeys, loginThrottle, members } from '../db/schema.ts';

export interface KeyPrincipalRow {
  keyId: string;
  /** The key's first characters, which name it in the audit log. */
  keyPrefix: string;
  accountId: string;
  scopes: string[];
  active: boolean;
  subscriptionActive: boolean | null;
}

export function createAccountsStore(db: Executor) {
  return {
    /**
     * Inserts an account and its owner (the same id, named by the e-mail); returns false when the e-mail is taken by
     * an account or a member.
     */
    async insertAccount(row: { id: string; email: string; passwordHash: string; name: string }): Promise<boolean> {
      try {
        await db.transaction(async (tx) => {
          await tx.insert(accounts).values({ id: row.id, email: row.email });
          await tx.insert(members).values({ ...row, accountId: row.id, role: 'owner', status: 'active' });
        });
        return true;
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    },

    async accountExists(accountId: string): Promise<boolean> {
      const rows = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId));
      return rows.length > 0;
    },

    /** Returns the new state, or undefined when the account does not exist. */
    async setSubscription(accountId: string, active: boolean, now: Date): Promise<boolean | undefined> {
      const rows = await db
        .update(accounts)
        .set({ subscriptionActive: active, updatedAt: now })
        .where(eq(accounts.id, accountId))
        .returning({ active: accounts.subscriptionActive });
      return rows[0]?.active;
    },

    async insertApiKey(row: { id: string; accountId: string; keyHash: string; prefix: string; scopes: string[] }) {
      await db.insert(apiKeys).values(row);
    },

    async listApiKeys(accountId: string) {
      return db
        .select({
          id: apiKeys.id,
          prefix: apiKeys.prefix,
          scopes: apiKeys.scopes,
          active: apiKeys.active,
          createdAt: apiKeys.createdAt,
        })
        .from(apiKeys)
        .where(eq(apiKeys.accountId, accountId))
        .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
    },

    /** Deactivates a key (idempotent); false when no such key. */
    /** The key deactivated (its account, prefix and whether it was active), or undefined when there is none. */
    async deactivateApiKey(keyId: string, now: Date): Promise<{ accountId: string; prefix: string; wasActive: boolean } | undefined> {
      const [before] = await db.select({ active: apiKeys.active }).from(apiKeys).where(eq(apiKeys.id, keyId)).for('update');
      const [row] = await db
        .update(apiKeys)
        .set({ active: false, deactivatedAt: sql`coalesce(${apiKeys.deactivatedAt}, ${now.toISOString()}::timestamptz)` })
        .where(eq(apiKeys.id, keyId))
        .returning({ accountId: apiKeys.accountId, prefix: apiKeys.prefix });
      return row && { ...row, wasActive: before?.active ?? false };
    },

    async loginThrottle(email: string, ip: string) {
      const [row] = await db.select().from(loginThrottle).where(and(eq(loginThrottle.email, email), eq(loginThrottle.ip, ip)));
      return row;
    },

    /**
     * Counts one failed login of an e-mail from an address in a window that starts at the first failure; the `max`-th
     * failure in a window locks the e-mail for that address until `now + lockMs`. One statement, so concurrent
     * failures all count.
     */
    async recordLoginFailure(email: string, ip: string, now: Date, windowMs: number, max: number, lockMs: number) {
      const windowStart = new Date(now.getTime() - windowMs).toISOString();
      const lockedUntil = new Date(now.getTime() + lockMs).toISOString();
      const stale = sql`${loginThrottle.windowStartedAt} < ${windowStart}::timestamptz`;
      const failures = sql`CASE WHEN ${stale} THEN 1 ELSE ${loginThrottle.failures} + 1 END`;
      await db
        .insert(loginThrottle)
        .values({ email, ip, failures: 1, windowStartedAt: now, lockedUntil: max <= 1 ? new Date(lockedUntil) : null })
        .onConflictDoUpdate({
          target: [loginThrottle.email, loginThrottle.ip],
          set: {
            failures,
            windowStartedAt: sql`CASE WHEN ${stale} THEN ${now.toISOString()}::timestamptz ELSE ${loginThrottle.windowStartedAt} END`,
            lockedUntil: sql`CASE WHEN ${failures} >= ${max} THEN ${lockedUntil}::timestamptz ELSE ${loginThrottle.lockedUntil} END`,
          },
        });
    },

    async clearLoginFailures(email: string, ip: string) {
      await db.delete(loginThrottle).where(and(eq(loginThrottle.email, email), eq(loginThrottle.ip, ip)));
    },

    /** The key with its account's subscription state, in one round trip (the gateway's hot path). */
    async findKeyPrincipal(keyHash: string): Promise<KeyPrincipalRow | undefined> {
      const [row] = await db
        .select({
          keyId: apiKeys.id,
          keyPrefix: apiKeys.prefix,
          accountId: apiKeys.accountId,
          scopes: apiKeys.scopes,
          active: apiKeys.active,
          subscriptionActive: accounts.subscriptionActive,
        })
        .from(apiKeys)
        .leftJoin(accounts, eq(accounts.id, apiKeys.accountId))
        .where(eq(apiKeys.keyHash, keyHash));
      return row;
    },
  };
}

export type AccountsStore = ReturnType<typeof createAccountsStore>;
