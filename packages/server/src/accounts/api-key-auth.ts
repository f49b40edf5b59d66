// Authentication of public-API requests by API key (spec, Authentication → authentication errors).
import { LruMap } from 'toad-cache';
import { Errors } from '../errors.ts';
import { sha256Hex } from '../lib/secrets.ts';
import type { AccountsStore, KeyPrincipalRow } from './accounts-store.ts';

export interface Principal {
  keyId: string;
  accountId: string;
  scopes: readonly string[];
}

export interface ApiKeyAuthenticator {
  /** Resolves the caller of a request, or throws the spec's authentication error. */
  authenticate(keyHash: string | undefined, scope: string | undefined): Promise<Principal>;
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

/** The hash under which a raw `Authorization` value is stored; undefined when the header is missing. */
export function apiKeyHash(header: string | undefined): string | undefined {
  return header ? sha256Hex(header) : undefined;
}

/**
 * The rate-limit bucket of a raw `Authorization` value: the hash of the key without a `Bearer` scheme (any case)
 * or spaces around it, so re-spelling a key never buys a fresh allowance. The lookup still takes the value as it is
 * (`Bearer <key>` stays `Key not found`); undefined when no key is left.
 */
export function apiKeyBucket(header: string | undefined): string | undefined {
  const key = header?.trim().replace(/^bearer\s+/i, '');
  return key ? sha256Hex(key) : undefined;
}

export function createApiKeyAuthenticator({ store, cacheTtlMs }: ApiKeyAuthOptions): ApiKeyAuthenticator {
  const cache = new LruMap<KeyPrincipalRow>(10_000, cacheTtlMs);

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
      return { keyId: row.keyId, accountId: row.accountId, scopes: row.scopes };
    },
    invalidate() {
      cache.clear();
    },
  };
}
