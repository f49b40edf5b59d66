// Backup and restore of an embedded (PGlite) installation: one gzipped tar (npm `tar`) holding PGlite's own dump of
// its data folder and the rest of DATA_DIR (stored files, the generated secrets). See docs/operations.md, *Backups*.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { link, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import * as tar from 'tar';

/** The archive's members: this manifest, PGlite's dump, and DATA_DIR's other contents under `data/`. */
const MANIFEST = 'parley-backup.json';
const DUMP = 'pglite.tar';
const DATA = 'data';
const FORMAT = 1;
/** Not copied: the database (dumped instead), the process lock, uploads still arriving, backups being made. */
const SKIPPED = new Set(['pglite', 'parley.pid', '.incoming']);
const STAGING_PREFIX = '.backup-';

export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

/** PGlite's dump between two passes of `files`, the copy of DATA_DIR's files (see `pgliteDumper`). */
export type DumpWithFiles = (files: () => Promise<void>) => Promise<Blob>;

/**
 * PGlite's side of a backup. The dump is taken between two statements (PGlite runs one at a time), so it is the
 * state of a crash at that moment: committed transactions are in, one still open is rolled back when the copy
 * starts. A file is written before the row that names it commits and removed only after that row's removal
 * commits, so a row of the dump has its file in one of the two passes, which run just before and just after it.
 */
export function pgliteDumper(client: PGlite): DumpWithFiles {
  return async (files) => {
    await client.exec('CHECKPOINT'); // less to replay when the copy starts
    await files();
    const dump = await client.dumpDataDir('none');
    await files();
    return dump;
  };
}

/**
 * Hard links of DATA_DIR's files into `target` (names already there are kept): stored files never change once
 * written, so a link is a copy that costs nothing and cannot be changed under the archive.
 */
async function linkTree(source: string, target: string): Promise<void> {
  await mkdir(target, { recursive: true });
  for (const entry of await readdir(source, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name) || entry.name.startsWith(STAGING_PREFIX)) continue;
    const from = path.join(source, entry.name);
    const to = path.join(target, entry.name);
    if (entry.isDirectory()) await linkTree(from, to);
    else if (entry.isFile() && !existsSync(to)) {
      await link(from, to).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error; // removed meanwhile (a parsed document's upload)
      });
    }
  }
}

/** Writes the archive of DATA_DIR to `out` (refused if it exists); its path and size. */
export async function writeBackup(dataDir: string, out: string, dump: DumpWithFiles): Promise<{ file: string; bytes: number }> {
  const file = path.resolve(out);
  if (existsSync(file)) throw new BackupError(`${file} exists already: give --out a new file`);
  if (!existsSync(path.dirname(file))) throw new BackupError(`the folder of ${file} does not exist`);
  const staging = path.join(dataDir, `${STAGING_PREFIX}${randomBytes(6).toString('hex')}`);
  try {
    await mkdir(staging);
    const blob = await dump(() => linkTree(dataDir, path.join(staging, DATA)));
    await writeFile(path.join(staging, DUMP), Buffer.from(await blob.arrayBuffer()));
    await writeFile(path.join(staging, MANIFEST), JSON.stringify({ format: FORMAT, createdAt: new Date().toISOString() }));
    // The archive holds the secrets of DATA_DIR: readable by its owner only.
    await writeFile(file, '', { flag: 'wx', mode: 0o600 });
    await tar.create({ gzip: true, file, cwd: staging, portable: true }, [MANIFEST, DUMP, DATA]);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return { file, bytes: (await stat(file)).size };
}

/** Unpacks an archive into DATA_DIR, which must be empty or absent: the database, the files and the secrets. */
export async function restoreBackup(archive: string, dataDir: string, pgliteDir: string): Promise<{ dataDir: string }> {
  const source = path.resolve(archive);
  if (!existsSync(source)) throw new BackupError(`${source} does not exist`);
  if (existsSync(dataDir) && (await readdir(dataDir)).length > 0) {
    throw new BackupError(`DATA_DIR ${dataDir} is not empty: restore only into an empty or new folder`);
  }
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const unpacked = path.join(dataDir, `${STAGING_PREFIX}restore`);
  try {
    await mkdir(unpacked);
    try {
      await tar.extract({ file: source, cwd: unpacked, strict: true });
      const manifest = JSON.parse(await readFile(path.join(unpacked, MANIFEST), 'utf8')) as { format?: unknown };
      if (manifest.format !== FORMAT) throw new Error(`format ${String(manifest.format)}`);
    } catch (error) {
      throw new BackupError(`${source} is not a Parley backup (${(error as Error).message})`);
    }
    for (const name of await readdir(path.join(unpacked, DATA))) await rename(path.join(unpacked, DATA, name), path.join(dataDir, name));
    let client: PGlite;
    try {
      // Read by us first: PGlite takes a dump that is no tar archive for a gzipped one, and its gunzip's error
      // escapes every promise (the process ends with a stack trace).
      const entries = await countTarEntries(path.join(unpacked, DUMP));
      if (entries === 0) throw new Error('no files');
      const dump = await readFile(path.join(unpacked, DUMP));
      client = await PGlite.create(pgliteDir, { loadDataDir: new Blob([dump]) });
    } catch (error) {
      throw new BackupError(`${source} holds a damaged database dump (${firstLine(error)})`);
    }
    await client.close();
  } catch (error) {
    // Nothing half-restored is left to start on.
    for (const name of await readdir(dataDir)) await rm(path.join(dataDir, name), { recursive: true, force: true });
    throw error;
  } finally {
    await rm(unpacked, { recursive: true, force: true });
  }
  return { dataDir };
}

/** The entries of a tar archive, read strictly: an error for anything that is not a whole archive. */
async function countTarEntries(file: string): Promise<number> {
  let entries = 0;
  await tar.list({ file, strict: true, onReadEntry: () => (entries += 1) });
  return entries;
}

/** An error's message, its first line only (PGlite's and tinytar's can run on). */
function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]?.slice(0, 200) ?? '';
}

/** What to run on a PostgreSQL server instead: pg_dump of DATABASE_URL without its password, and the files. */
export function pgDumpCommand(databaseUrl: string, out: string): string {
  const url = new URL(databaseUrl);
  url.password = '';
  return `pg_dump --format=custom --file=${JSON.stringify(out)} ${JSON.stringify(url.toString())}`;
}
