/**
 * The files of the text tree that were not taken, each with the reason, until they are fixed: an
 * invalid file (conflict markers, a syntax error, a function not named like the file, a cycle, a
 * missing dependency, too big) whose atom keeps its last good version, or a removed file whose atom
 * is still used. get_status, the log and VS Code's Problems panel show them; nothing not taken is
 * ever dropped silently.
 */
import { Emitter } from '../util/event.js';
import type { Logger } from '../util/log.js';

export interface TextProblem {
  /** The file, relative to the workspace folder (`atoms/x.js`). */
  file: string;
  /** Its absolute path. */
  path: string;
  reason: string;
}

export class TextProblems {
  private readonly byFile = new Map<string, TextProblem>();
  private readonly changes = new Emitter<readonly TextProblem[]>();
  private dirty = false;

  /** Fired with every problem, after a round that changed any. */
  readonly onDidChange = this.changes.event;

  constructor(private readonly log: Logger) {}

  /** Sorted by file. */
  all(): TextProblem[] {
    return [...this.byFile.values()].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  }

  get size(): number {
    return this.byFile.size;
  }

  has(file: string): boolean {
    return this.byFile.has(file);
  }

  /** Files with a problem, as the names of the atoms they stand for (`x.js` -> `x`). */
  files(): string[] {
    return [...this.byFile.keys()];
  }

  set(file: string, path: string, reason: string): void {
    if (this.byFile.get(file)?.reason === reason) return;
    this.byFile.set(file, { file, path, reason });
    this.log.warn(`text tree: ${file} was not taken: ${reason}`);
    this.dirty = true;
  }

  clear(file: string): void {
    if (!this.byFile.delete(file)) return;
    this.log.info(`text tree: ${file} is fine again`);
    this.dirty = true;
  }

  /** Announces the problems if they changed since the last announcement. */
  flush(): void {
    if (!this.dirty) return;
    this.dirty = false;
    this.changes.fire(this.all());
  }

  dispose(): void {
    this.changes.dispose();
  }
}
