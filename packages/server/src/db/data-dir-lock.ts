// PGlite does not lock its folder: two processes on one DATA_DIR would corrupt it. A pid file does.
// The file holds the holder's pid and, on Linux, its start time (/proc/<pid>/stat), so that a pid the kernel gave
// to another process since, or a holder killed but not yet reaped (a zombie: after a supervisor SIGKILLs the whole
// process group of `npm start`, node is orphaned and reaped a moment later, or never under an init that does not
// reap), does not keep the folder: `process.kill(pid, 0)` calls a zombie alive.
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export class DataDirLockedError extends Error {
  constructor(dataDir: string, pid: number) {
    super(
      `DATA_DIR ${dataDir} is in use by another Parley process (pid ${pid}); stop it or start this one with another DATA_DIR`,
    );
    this.name = 'DataDirLockedError';
  }
}

/** How long a start waits for a live holder to let go (one stopping after SIGTERM) before refusing. */
export const LOCK_WAIT_MS = 3_000;
const RETRY_MS = 100;

interface Holder {
  pid: number;
  /** Field 22 of /proc/<pid>/stat (clock ticks since boot); undefined off Linux or in a file of an older version. */
  startTime?: string | undefined;
}

/** State and start time of a process from /proc; undefined when /proc has no such process or no /proc at all. */
function procStat(pid: number): { state: string; startTime: string } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so fields are counted after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const [state, startTime] = [fields[0], fields[19]];
  return state && startTime ? { state, startTime } : undefined;
}

const hasProc = (): boolean => procStat(process.pid) !== undefined;

function signalable(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The holder runs: not gone, not a zombie (Z) or dead (X), and the same process that took the lock. */
export function holderAlive(holder: Holder): boolean {
  if (!hasProc()) return signalable(holder.pid);
  const stat = procStat(holder.pid);
  if (!stat || stat.state === 'Z' || stat.state === 'X') return false;
  return holder.startTime === undefined || holder.startTime === stat.startTime;
}

function readHolder(file: string): Holder | undefined {
  try {
    const [pidText, startTime] = readFileSync(file, 'utf8').trim().split(/\s+/);
    const pid = Number.parseInt(pidText ?? '', 10);
    return Number.isInteger(pid) && pid > 0 ? { pid, startTime } : undefined;
  } catch {
    return undefined;
  }
}

function removeStale(lockFile: string): void {
  try {
    unlinkSync(lockFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * Takes DATA_DIR for this process; resolves to the release function. A lock left by a dead, zombie or other
 * process (the pid reused) is taken over; a live holder is waited for up to `waitMs`, then refused.
 */
export async function lockDataDir(dataDir: string, waitMs: number = LOCK_WAIT_MS): Promise<() => void> {
  mkdirSync(dataDir, { recursive: true });
  const lockFile = path.join(dataDir, 'parley.pid');
  const tmpFile = `${lockFile}.${process.pid}`;
  const self = procStat(process.pid);
  writeFileSync(tmpFile, self ? `${process.pid} ${self.startTime}\n` : `${process.pid}\n`);
  const deadline = performance.now() + waitMs;
  try {
    for (;;) {
      try {
        linkSync(tmpFile, lockFile); // atomic: fails when the lock file exists
        return () => {
          if (readHolder(lockFile)?.pid === process.pid) unlinkSync(lockFile);
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = readHolder(lockFile);
      if (holder === undefined || holder.pid === process.pid || !holderAlive(holder)) {
        removeStale(lockFile); // for example after kill -9, or a file half written by a process killed meanwhile
        continue;
      }
      if (performance.now() >= deadline) throw new DataDirLockedError(dataDir, holder.pid);
      await sleep(RETRY_MS);
    }
  } finally {
    unlinkSync(tmpFile);
  }
}
