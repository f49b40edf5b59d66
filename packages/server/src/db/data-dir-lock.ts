// PGlite does not lock its folder: two processes on one DATA_DIR would corrupt it. A pid file does.
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export class DataDirLockedError extends Error {
  constructor(dataDir: string, pid: number) {
    super(
      `DATA_DIR ${dataDir} is in use by another Parley process (pid ${pid}); stop it or start this one with another DATA_DIR`,
    );
    this.name = 'DataDirLockedError';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readPid(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Takes DATA_DIR for this process; returns the release function. A lock left by a dead process is taken over. */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockFile = path.join(dataDir, 'parley.pid');
  const tmpFile = `${lockFile}.${process.pid}`;
  writeFileSync(tmpFile, String(process.pid));
  try {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        linkSync(tmpFile, lockFile); // atomic: fails when the lock file exists
        return () => {
          if (readPid(lockFile) === process.pid) unlinkSync(lockFile);
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const owner = readPid(lockFile);
      if (owner !== undefined && owner !== process.pid && isAlive(owner)) throw new DataDirLockedError(dataDir, owner);
      try {
        unlinkSync(lockFile); // stale: its process is gone (for example after kill -9)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    throw new Error(`could not lock DATA_DIR ${dataDir}`);
  } finally {
    unlinkSync(tmpFile);
  }
}
