// Upstream services (model servers, messengers) may echo a credential in their error text ("Incorrect API key
// provided: Bearer sk-…"). Such text is never stored, logged or answered before this has run over it.

const BEARER = /\b(Bearer|Basic|Token)\s+[^\s"',;]+/gi;
/** OpenAI-style keys (`sk-…`, `sk-proj-…`), also when partly masked with `*`. */
const SK_KEY = /\bsk-[A-Za-z0-9_*-]{6,}/g;

/** `text` with the given secrets (any of at least 4 characters) and anything shaped like a bearer token replaced. */
export function redactSecrets(text: string, secrets: ReadonlyArray<string | null | undefined> = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  return out.replace(BEARER, '$1 [redacted]').replace(SK_KEY, '[redacted]');
}
