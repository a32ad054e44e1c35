/**
 * One writer per workspace. The writer holds `.atomic/lock` (created exclusively, holding its
 * pid). A lock whose process is gone is stale and taken over; a live one means another process
 * owns the workspace, and the caller should talk to that process's server instead.
 *
 * A lock is sealed with this machine's secret (checkSeal.ts): a lock committed to a repository,
 * naming a pid that happens to run here (1 always does), carries no valid seal and is stale.
 */
import { closeSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { isProcessAlive } from '../util/process.js';
import { readPlainFileSync } from '../util/safeFile.js';
import { machineSeal } from './checkSeal.js';

export class WorkspaceLockedError extends Error {
  constructor(
    readonly lockFile: string,
    readonly pid: number,
  ) {
    super(
      `the workspace is open in another Atomic Coding process (pid ${pid}). ` +
        'Connect to its server (see .atomic/server.json) or close it first.',
    );
    this.name = 'WorkspaceLockedError';
  }
}

interface LockInfo {
  pid: number;
  host: string;
  since: string;
  /** machineSeal('lock', [pid, host, since]); absent where this machine has no secret. */
  seal?: string;
}

function lockSeal(info: LockInfo): string | null {
  return machineSeal('lock', [info.pid, info.host, info.since]);
}

/** The lock's owner, when the file is a plain file (never a link or FIFO) holding a lock shaped as ours. */
export function readLock(file: string): LockInfo | undefined {
  try {
    const info = JSON.parse(readPlainFileSync(file, 4096).toString('utf8')) as LockInfo;
    return typeof info === 'object' && info !== null && Number.isSafeInteger(info.pid) && typeof info.host === 'string' ? info : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process of this user on this machine wrote `info` (its seal matches), so its pid is worth asking about. */
export function writtenHere(info: LockInfo): boolean {
  const expected = lockSeal(info);
  return expected === null || info.seal === expected;
}

export class WorkspaceLock {
  private held = false;

  constructor(readonly file: string) {}

  acquire(): void {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const fd = openSync(this.file, 'wx', 0o600);
        const info: LockInfo = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
        const seal = lockSeal(info);
        writeSync(fd, JSON.stringify(seal ? { ...info, seal } : info));
        closeSync(fd);
        this.held = true;
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const owner = readLock(this.file);
      if (owner && owner.host === hostname() && writtenHere(owner) && isProcessAlive(owner.pid) && owner.pid !== process.pid) {
        throw new WorkspaceLockedError(this.file, owner.pid);
      }
      // Stale (its process is gone), unreadable (torn by a crash), or ours from before a reload.
      try {
        unlinkSync(this.file);
      } catch {}
    }
    throw new Error(`could not take the workspace lock ${this.file}; remove it if no Atomic Coding process is running`);
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    const owner = readLock(this.file);
    if (owner?.pid === process.pid) {
      try {
        unlinkSync(this.file);
      } catch {}
    }
  }
}
