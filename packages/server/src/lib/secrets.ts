// Passwords, API keys and generated secrets. Keys and passwords are stored only as hashes.
import { hash as digestOf, randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 } as const;

function scrypt(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(password, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** `scrypt$N$r$p$<salt b64>$<hash b64>` */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p });
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [algorithm, n, r, p, salt, hash] = stored.split('$');
  if (algorithm !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return timingSafeEqual(key, expected);
}

export function sha256Hex(value: string): string {
  // The one-shot digest: a third of createHash's time, and every API request hashes its key.
  return digestOf('sha256', value, 'hex');
}

export const API_KEY_PREFIX = 'prl_';
/** Characters of the key kept for display (`prl_` + 8). */
export const API_KEY_DISPLAY_LENGTH = 12;

/** A new API key: 32 random bytes, base64url, behind a recognisable prefix. */
export function generateApiKey(): { key: string; hash: string; prefix: string } {
  const key = API_KEY_PREFIX + randomBytes(32).toString('base64url');
  return { key, hash: sha256Hex(key), prefix: key.slice(0, API_KEY_DISPLAY_LENGTH) };
}

/** Constant-time comparison of two secrets of any length (hashed first, so lengths leak nothing either). */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(digestOf('sha256', a, 'buffer'), digestOf('sha256', b, 'buffer'));
}

/**
 * Reads a secret kept in DATA_DIR, or generates and stores one (file mode 0600).
 * Returns `created: true` the first time so the caller can show it once.
 */
export async function loadOrCreateSecret(dataDir: string, name: string): Promise<{ value: string; created: boolean }> {
  const file = path.join(dataDir, name);
  try {
    const value = (await readFile(file, 'utf8')).trim();
    if (value) return { value, created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dataDir, { recursive: true });
  const value = randomBytes(32).toString('base64url');
  await writeFile(file, `${value}\n`, { mode: 0o600, flag: 'wx' });
  await chmod(file, 0o600);
  return { value, created: true };
}
