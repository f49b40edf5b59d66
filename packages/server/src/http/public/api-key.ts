// What the gateway needs of the accounts feature (accounts/api-key-auth.ts implements it; the composition root
// passes it): the caller behind an API key. And how a request's `Authorization` value is hashed, for the lookup
// and for its rate-limit bucket (the public API and the demo catalog share both).
import { sha256Hex } from '../../lib/secrets.ts';

/** The authenticated caller of a public-API route. */
export interface Principal {
  keyId: string;
  /** The key's first characters: its name in the audit log (never the key). */
  keyPrefix: string;
  accountId: string;
  scopes: readonly string[];
}

export interface KeyAuthenticator {
  /** Resolves the caller of a request, or throws the spec's authentication error. */
  authenticate(keyHash: string | undefined, scope: string | undefined): Promise<Principal>;
  /** Calls `listener` after any change to keys or subscriptions (a caller authenticated before may no longer be). */
  onChange(listener: () => void): void;
}

/** The hash under which a raw `Authorization` value is stored; undefined when the header is missing. */
export function apiKeyHash(header: string | undefined): string | undefined {
  return header ? sha256Hex(header) : undefined;
}

/**
 * The rate-limit bucket of a raw `Authorization` value: the hash of the key without a `Bearer` scheme (any case)
 * or spaces around it, so re-spelling a key never buys a fresh allowance. The lookup still takes the value as it is
 * (`Bearer <key>` stays `Key not found`); undefined when no key is left. `headerHash`: `apiKeyHash(header)`, when
 * already made.
 */
export function apiKeyBucket(header: string | undefined, headerHash?: string): string | undefined {
  const key = header?.trim().replace(/^bearer\s+/i, '');
  if (!key) return undefined;
  // A key sent as it is (the common case) is its own bucket: the lookup's hash serves, not a second one.
  return key === header && headerHash !== undefined ? headerHash : sha256Hex(key);
}
