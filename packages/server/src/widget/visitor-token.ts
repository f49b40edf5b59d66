// Visitor tokens of the chat widget: signed by the server with a key derived from JWT_SECRET (so a visitor token
// is never a console token, and the other way round), kept in the host page's storage across page loads
// (the loader's, first-party; see docs/decisions.md).
import { createHmac } from 'node:crypto';
import { createSigner, createVerifier } from 'fast-jwt';

export interface VisitorClaims {
  visitorId: string;
  channelId: string;
  accountId: string;
  /** The embedding page's origin when the session started (checked against the channel on every request). */
  origin: string;
}

/** Long enough to keep a conversation across visits; a new session renews it. */
export const VISITOR_TOKEN_TTL_MS = 365 * 24 * 60 * 60_000;

export function createVisitorTokens(jwtSecret: string) {
  const key = createHmac('sha256', jwtSecret).update('parley widget visitor token').digest('hex');
  const sign = createSigner({ key, algorithm: 'HS256', expiresIn: VISITOR_TOKEN_TTL_MS, aud: 'parley-widget' });
  const verify = createVerifier({ key, algorithms: ['HS256'], allowedAud: 'parley-widget', cache: 1000 });
  return {
    sign(claims: VisitorClaims): string {
      return sign({ sub: claims.visitorId, ch: claims.channelId, acc: claims.accountId, org: claims.origin });
    },
    /** The claims of a valid token, undefined otherwise (bad signature, expired, malformed). */
    verify(token: string): VisitorClaims | undefined {
      try {
        const payload = verify(token) as Record<string, unknown>;
        const { sub, ch, acc, org } = payload;
        if (typeof sub !== 'string' || typeof ch !== 'string' || typeof acc !== 'string' || typeof org !== 'string') return undefined;
        return { visitorId: sub, channelId: ch, accountId: acc, origin: org };
      } catch {
        return undefined;
      }
    },
  };
}

export type VisitorTokens = ReturnType<typeof createVisitorTokens>;
