/**
 * One writer per workspace. The writer holds `.atomic/lock` (created exclusively, holding its
 * pid). A lock whose process is gone is stale and taken over; a live one means another process
 * owns the workspace, and the caller should talk to that process's server instead.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { isProcessAlive } from '../util/process.js';

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
}

export function readLock(file: string): LockInfo | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as LockInfo;
  } catch {
    return undefined;
  }
}

export class WorkspaceLock {
  private held = false;

  constructor(readonly file: string) {}

  acquire(): void {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const fd = openSync(this.file, 'wx', 0o600);
        const info: LockInfo = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
        writeSync(fd, JSON.stringify(info));
        closeSync(fd);
        this.held = true;
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const owner = readLock(this.file);
      if (owner && owner.host === hostname() && isProcessAlive(owner.pid) && owner.pid !== process.pid) {
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
