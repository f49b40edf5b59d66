// Several processes on one PostgreSQL database must share their file store: a document uploaded through one and
// parsed by another is otherwise "no longer in the file store". A local store (DATA_DIR/files) keeps a random id
// in `.store-id`; the first process records it in the database (table file_store), and every later start compares.
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { and, eq, notLike } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { fileStore } from '../db/schema.ts';

export const STORE_ID_FILE = '.store-id';

/** The id of the local store in `filesDir`, made on first use. */
export async function localStoreId(filesDir: string): Promise<string> {
  const file = path.join(filesDir, STORE_ID_FILE);
  const existing = await readFile(file, 'utf8').then(
    (text) => text.trim(),
    () => '',
  );
  if (existing) return existing;
  await mkdir(filesDir, { recursive: true });
  const id = randomUUID();
  // `wx`: two processes starting on one new DATA_DIR keep the first id.
  await writeFile(file, `${id}\n`, { flag: 'wx', mode: 0o600 }).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  return (await readFile(file, 'utf8')).trim();
}

/** The sentence of a process whose DATA_DIR is not the one the others on its database use. */
export function separateDataDirWarning(dataDir: string): string {
  return (
    `DATA_DIR ${dataDir} is not the DATA_DIR of the other Parley processes on this database (its files folder has ` +
    'another identity): processes on one database must share DATA_DIR (or store files in object storage), or ' +
    'documents uploaded through one fail in another with "The uploaded file is no longer in the file store"'
  );
}

/** The identity of a bucket of object storage (S3_BUCKET at S3_ENDPOINT): every process naming it shares it. */
export function objectStoreId(s3: { bucket: string; endpoint?: string | undefined }): string {
  return `s3:${s3.endpoint ?? 'aws'}/${s3.bucket}`;
}

/**
 * Records this process's store as the database's when none is, and tells whether they are the same (true) or
 * another process's store was recorded first (false). A bucket replaces a recorded local folder: files moving to
 * object storage is the cure the warning names, so the processes that made the move are not warned against.
 */
export async function sharesStore(db: Database, storeId: string): Promise<boolean> {
  await db.insert(fileStore).values({ storeId }).onConflictDoNothing();
  if (storeId.startsWith('s3:')) {
    await db.update(fileStore).set({ storeId }).where(and(eq(fileStore.singleton, true), notLike(fileStore.storeId, 's3:%')));
  }
  const [recorded] = await db.select({ storeId: fileStore.storeId }).from(fileStore).where(eq(fileStore.singleton, true));
  return recorded?.storeId === storeId;
}

/** `sharesStore` for the local store in `filesDir` (DATA_DIR/files). */
export async function sharesFileStore(db: Database, filesDir: string): Promise<boolean> {
  return sharesStore(db, await localStoreId(filesDir));
}
