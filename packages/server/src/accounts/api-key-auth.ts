// Authentication of public-API requests by API key (spec, Authentication → authentication errors).
import { LruMap } from 'toad-cache';
import { Errors } from '../errors.ts';
import type { KeyAuthenticator } from '../http/public/api-key.ts';
import type { AccountsStore, KeyPrincipalRow } from './accounts-store.ts';

/** The gateway's authenticator (http/public/api-key.ts), with its cache. */
export interface ApiKeyAuthenticator extends KeyAuthenticator {
  /** Forgets cached keys; called after any change to keys or subscriptions. */
  invalidate(): void;
}

export interface ApiKeyAuthOptions {
  store: Pick<AccountsStore, 'findKeyPrincipal'>;
  /**
   * How long a looked-up key is trusted without asking the database. Changes made through this process
   * invalidate at once; other processes on the same PostgreSQL server see them after at most this long.
   */
  cacheTtlMs: number;
}

export function createApiKeyAuthenticator({ store, cacheTtlMs }: ApiKeyAuthOptions): ApiKeyAuthenticator {
  const cache = new LruMap<KeyPrincipalRow>(10_000, cacheTtlMs);
  const listeners: (() => void)[] = [];

  async function lookup(keyHash: string): Promise<KeyPrincipalRow | undefined> {
    const cached = cache.get(keyHash);
    if (cached) return cached;
    const row = await store.findKeyPrincipal(keyHash);
    if (row) cache.set(keyHash, row);
    return row;
  }

  return {
    async authenticate(keyHash, scope) {
      if (keyHash === undefined) throw Errors.unauthorized();
      const row = await lookup(keyHash);
      // A `Bearer ` prefix makes a different hash, so it lands here too.
      if (!row) throw Errors.keyNotFound();
      if (!row.active) throw Errors.keyNotActive();
      if (row.subscriptionActive === null) throw Errors.unauthorized();
      if (!row.subscriptionActive) throw Errors.paymentRequired();
      if (scope !== undefined && !row.scopes.includes(scope)) throw Errors.forbiddenScope();
      return { keyId: row.keyId, keyPrefix: row.keyPrefix, accountId: row.accountId, scopes: row.scopes };
    },
    invalidate() {
      cache.clear();
      for (const listener of listeners) listener();
    },
    onChange(listener) {
      listeners.push(listener);
    },
  };
}
