// Accounts and API keys: what the operator API (the provider's support) does.
import { SCOPES, type Scope } from '@parley/contracts';
import { Errors } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import { generateApiKey, hashPassword } from '../lib/secrets.ts';
import { recordAudit, type AuditContext } from '../audit/audit-record.ts';
import type { Database } from '../db/client.ts';
import { createAccountsStore, type AccountsStore } from './accounts-store.ts';
import type { ApiKeyAuthenticator } from './api-key-auth.ts';

export interface AccountsServiceDeps {
  store: AccountsStore;
  /** A key's change and its audit event are written in one transaction. */
  db: Database;
  clock: Clock;
  authenticator: Pick<ApiKeyAuthenticator, 'invalidate'>;
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function createAccountsService({ store, db, clock, authenticator }: AccountsServiceDeps) {
  async function requireAccount(accountId: string): Promise<void> {
    if (!(await store.accountExists(accountId))) throw Errors.accountNotFound();
  }

  return {
    /** `name`: the owner's name (default: the e-mail). */
    async createAccount(input: { email: string; password: string; name?: string | undefined }) {
      const id = newId();
      const email = normalizeEmail(input.email);
      const passwordHash = await hashPassword(input.password);
      const name = input.name?.trim() || email;
      if (!(await store.insertAccount({ id, email, passwordHash, name }))) throw Errors.accountExists();
      return { id, email };
    },

    /** The key is in the answer only, never in the audit log (its prefix names it there). */
    async issueApiKey(accountId: string, scopes: readonly Scope[] = SCOPES, audit: AuditContext) {
      await requireAccount(accountId);
      const { key, hash, prefix } = generateApiKey();
      const id = newId();
      const ordered = SCOPES.filter((scope) => scopes.includes(scope));
      await db.transaction(async (tx) => {
        await createAccountsStore(tx).insertApiKey({ id, accountId, keyHash: hash, prefix, scopes: ordered });
        await recordAudit(tx, audit, {
          accountId,
          kind: 'api_key.created',
          target: { type: 'api_key', id, name: prefix },
          changes: { scopes: [null, ordered] },
        });
      });
      return { id, key, scopes: ordered };
    },

    async listApiKeys(accountId: string) {
      await requireAccount(accountId);
      const keys = await store.listApiKeys(accountId);
      return { keys: keys.map((k) => ({ ...k, scopes: k.scopes as Scope[], createdAt: k.createdAt.toISOString() })) };
    },

    async deactivateApiKey(keyId: string, audit: AuditContext) {
      const found = await db.transaction(async (tx) => {
        const key = await createAccountsStore(tx).deactivateApiKey(keyId, clock.now());
        if (key?.wasActive) {
          await recordAudit(tx, audit, {
            accountId: key.accountId,
            kind: 'api_key.revoked',
            target: { type: 'api_key', id: keyId, name: key.prefix },
            changes: { active: [true, false] },
          });
        }
        return key;
      });
      if (!found) throw Errors.apiKeyNotFound();
      authenticator.invalidate();
      return { id: keyId, active: false as const };
    },

    async setSubscription(accountId: string, active: boolean) {
      const state = await store.setSubscription(accountId, active, clock.now());
      if (state === undefined) throw Errors.accountNotFound();
      authenticator.invalidate();
      return { active: state };
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
