// Where uploaded files live. The interface is the whole contract, small enough for an S3-compatible store later
// (put = PutObject with the metadata as object metadata, open = GetObject streaming the body; same keys).
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';

export interface StoredFile {
  /** Unguessable: whoever has the key may read the file (it is the secret in the file's URL). */
  key: string;
  /** Bytes. */
  size: number;
  contentType: string;
  name: string;
}

export interface OpenedFile {
  /** The caller must consume or destroy it: it holds an open file (or connection). */
  stream: Readable;
  contentType: string;
  name: string;
  size: number;
}

export interface FileStorage {
  put(bytes: Buffer, meta: { contentType: string; name: string }): Promise<StoredFile>;
  /** A fresh path where an incoming upload is written before `putFile` (the store's own file system). */
  incomingPath(): Promise<string>;
  /** Moves a complete file from `incomingPath()` into the store. */
  putFile(source: string, meta: { contentType: string; name: string }): Promise<StoredFile>;
  /** Undefined for a key that is malformed or unknown; throws only when the store itself fails. */
  open(key: string): Promise<OpenedFile | undefined>;
  /** Deletes a file (an unknown key is nothing to do): a knowledge-base document's upload once parsed or deleted. */
  remove(key: string): Promise<void>;
}

/** 24 random bytes (192 bits) make exactly 32 base64url characters, no padding. */
const KEY_BYTES = 24;
const KEY = /^[A-Za-z0-9_-]{32}$/;

export function isFileKey(value: string): boolean {
  return KEY.test(value);
}

export function newFileKey(): string {
  return randomBytes(KEY_BYTES).toString('base64url');
}

function isStoredFile(value: unknown): value is StoredFile {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record.key === 'string' &&
    typeof record.size === 'number' &&
    typeof record.contentType === 'string' &&
    typeof record.name === 'string'
  );
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

/**
 * Files under `dir` (created as needed): `<dir>/<first two key characters>/<key>` holds the bytes and
 * `<key>.json` the metadata. The sidecar is written last, so a key is only ever served once both are complete.
 */
export function createLocalFileStorage(dir: string): FileStorage {
  const root = path.resolve(dir);
  const dataPath = (key: string) => path.join(root, key.slice(0, 2), key);
  const sidecarPath = (key: string) => `${dataPath(key)}.json`;

  /** Temp file + fsync + rename: a crash leaves at most a `.tmp` file, never a partial file under a real name. */
  async function writeAtomically(target: string, content: Buffer | string): Promise<void> {
    const temp = `${path.dirname(target)}/.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      const handle = await open(temp, 'wx', 0o600);
      try {
        await handle.writeFile(content);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, target);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw error;
    }
  }

  async function readSidecar(key: string): Promise<StoredFile | undefined> {
    let text: string;
    try {
      text = await readFile(sidecarPath(key), 'utf8');
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return undefined;
    }
    // The stored key must match exactly: on a case-insensitive file system `AbC…` would also find `abc…`.
    return isStoredFile(parsed) && parsed.key === key ? parsed : undefined;
  }

  return {
    async put(bytes, meta) {
      const key = newFileKey();
      await mkdir(path.dirname(dataPath(key)), { recursive: true });
      await writeAtomically(dataPath(key), bytes);
      const stored: StoredFile = { key, size: bytes.length, contentType: meta.contentType, name: meta.name };
      await writeAtomically(sidecarPath(key), JSON.stringify(stored));
      return stored;
    },

    async incomingPath() {
      const dir = path.join(root, '.incoming');
      await mkdir(dir, { recursive: true });
      return path.join(dir, `${randomBytes(12).toString('hex')}.upload`);
    },

    async putFile(source, meta) {
      const key = newFileKey();
      await mkdir(path.dirname(dataPath(key)), { recursive: true });
      const handle = await open(source, 'r+');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
      const { size } = await stat(source);
      await rename(source, dataPath(key));
      const stored: StoredFile = { key, size, contentType: meta.contentType, name: meta.name };
      await writeAtomically(sidecarPath(key), JSON.stringify(stored));
      return stored;
    },

    async remove(key) {
      if (!isFileKey(key)) return;
      // The sidecar first: from then on the key is served no more, whatever becomes of the bytes.
      for (const target of [sidecarPath(key), dataPath(key)]) {
        await unlink(target).catch((error: unknown) => {
          if (!isMissing(error)) throw error;
        });
      }
    },

    async open(key) {
      if (!isFileKey(key)) return undefined; // before any path is built: no traversal, no odd names
      const sidecar = await readSidecar(key);
      if (!sidecar) return undefined;
      let handle: FileHandle;
      try {
        handle = await open(dataPath(key), 'r');
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
      try {
        const { size } = await handle.stat();
        return { stream: handle.createReadStream(), contentType: sidecar.contentType, name: sidecar.name, size };
      } catch (error) {
        await handle.close();
        throw error;
      }
    },
  };
}

/** The link to a stored file, served by files/files-routes.ts: `<PUBLIC_URL>/files/<key>/<name>`. */
export function fileUrl(publicUrl: string, file: StoredFile): string {
  return `${publicUrl.replace(/\/+$/, '')}/files/${file.key}/${encodeURIComponent(file.name)}`;
}

/** The key of a link `fileUrl` made; undefined for any other URL (a file this server does not hold). */
export function fileKeyOf(publicUrl: string, url: string): string | undefined {
  const prefix = `${publicUrl.replace(/\/+$/, '')}/files/`;
  if (!url.startsWith(prefix)) return undefined;
  const key = url.slice(prefix.length).split('/')[0] ?? '';
  return isFileKey(key) ? key : undefined;
}

/**
 * A file received with a message, before its type is known: in memory (small files fetched from a messenger), or
 * streamed to `path` (uploads; see http/public/uploads.ts), never more than one file of either kind at 10 MB.
 */
export type Upload = { name: string; bytes: Buffer } | { name: string; path: string; size: number; contentType?: string };
