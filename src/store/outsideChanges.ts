/**
 * Changes made by others to the database files (a git checkout, a restored backup): the store
 * remembers the files as it last wrote them, and a watcher on `.atomic/` says when they differ,
 * so the store reloads instead of writing over someone else's version.
 */
import { statSync, watch, type FSWatcher } from 'node:fs';
import { basename } from 'node:path';

export class OutsideChanges {
  private ownStamp = '';
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly files: readonly string[]) {}

  /** Remembers the files as this process last wrote them. */
  stamp(): void {
    this.ownStamp = this.current();
  }

  /** True when the files are not as this process left them. */
  changed(): boolean {
    return this.current() !== this.ownStamp;
  }

  /**
   * Calls `noticed` (once a burst of events has settled for 150 ms) when one of the files in
   * `dir` changes. Without watching on this file system, writes still check `changed()` first.
   */
  watch(dir: string, noticed: () => void): void {
    const names = new Set(this.files.map((f) => basename(f)));
    try {
      this.watcher = watch(dir, (_event, file) => {
        if (!file || !names.has(file)) return;
        clearTimeout(this.timer);
        this.timer = setTimeout(noticed, 150);
      });
      this.watcher.on('error', () => {});
      this.watcher.unref();
    } catch {
      // No watching here: see above.
    }
  }

  close(): void {
    this.watcher?.close();
    clearTimeout(this.timer);
  }

  private current(): string {
    return this.files.map(stamp).join('|');
  }
}

/** Identity and size of a file, to tell our own writes from someone else's. */
function stamp(file: string): string {
  try {
    const s = statSync(file);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return 'none';
  }
}
