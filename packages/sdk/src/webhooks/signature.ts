// Standard Webhooks signatures (webhook-id, webhook-timestamp, webhook-signature), as Parley's server makes them
// when a channel has a webhook secret: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, the secret being the
// decoded bytes of `whsec_<base64>` or else its UTF-8 text. Web Crypto only, so it runs wherever `fetch` does.

const encoder = new TextEncoder();

function base64Bytes(base64: string): Uint8Array | undefined {
  try {
    const binary = atob(base64);
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

function secretBytes(secret: string): Uint8Array {
  return secret.startsWith('whsec_') ? (base64Bytes(secret.slice(6)) ?? new Uint8Array()) : encoder.encode(secret);
}

export interface SignatureHeaders {
  id: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
}

/** Why a signature is refused, or undefined when it is valid. `nowSeconds` is the receiver's clock. */
export async function signatureProblem(
  secret: string,
  headers: SignatureHeaders,
  body: Uint8Array,
  toleranceSeconds: number,
  nowSeconds: number,
): Promise<string | undefined> {
  const { id, timestamp, signature } = headers;
  if (!id || !timestamp || !signature) return 'missing webhook-id, webhook-timestamp or webhook-signature';
  if (!/^\d+$/.test(timestamp)) return 'bad webhook-timestamp';
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) return 'webhook-timestamp too old or too new';
  const key = await crypto.subtle.importKey('raw', secretBytes(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);
  // Several signatures may be sent (secret rotation), space-separated: one valid `v1` is enough.
  for (const candidate of signature.split(' ')) {
    const [version, value] = candidate.split(',', 2);
    if (version !== 'v1' || !value) continue;
    const bytes = base64Bytes(value);
    // subtle.verify compares in constant time.
    if (bytes && (await crypto.subtle.verify('HMAC', key, bytes, signed))) return undefined;
  }
  return 'no valid signature';
}

/** Signs like the server (for tests and for forwarding): the three Standard Webhooks headers. */
export async function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): Promise<Record<string, string>> {
  const key = await crypto.subtle.importKey('raw', secretBytes(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(`${id}.${timestampSeconds}.${body}`)));
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': `v1,${btoa(String.fromCharCode(...mac))}`,
  };
}
