// Channel secrets at rest (webhook signing secret, model API key, messenger credentials): AES-256-GCM with a key
// kept like JWT_SECRET (SECRETS_KEY, or generated at first start in DATA_DIR), so a copied database or a backup
// does not hand them out. A sealed value reads `enc:v1:<base64url of iv | tag | ciphertext>`; a value without
// the prefix is one stored before encryption existed, read as it is and sealed at the next start.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SecretBox {
  seal(plain: string): string;
  /** The plain value; throws when a sealed value was sealed with another key or altered. */
  open(stored: string): string;
  isSealed(stored: string): boolean;
}

/** `secret`: SECRETS_KEY or the generated key file's content (any length ≥ 32; hashed to the 256-bit key). */
export function createSecretBox(secret: string): SecretBox {
  const key = createHash('sha256').update(`parley-secrets:${secret}`).digest();
  return {
    seal(plain) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url');
    },
    open(stored) {
      if (!stored.startsWith(PREFIX)) return stored;
      const raw = Buffer.from(stored.slice(PREFIX.length), 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    },
    isSealed: (stored) => stored.startsWith(PREFIX),
  };
}
