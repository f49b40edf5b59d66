// Standard Webhooks signatures (opt-in, beyond the spec): webhook-id, webhook-timestamp, webhook-signature.
import { createHmac } from 'node:crypto';

/** A `whsec_<base64>` secret is used as its decoded bytes (Standard Webhooks); any other text as UTF-8. */
function secretKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
}

export function signatureHeaders(secret: string, id: string, timestampSeconds: number, body: string) {
  const signature = createHmac('sha256', secretKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': `v1,${signature}`,
  };
}
