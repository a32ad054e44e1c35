/**
 * Shows the search index's long jobs (filling the vector index, embedding a backlog of atoms) as a
 * window progress in the status bar, so a first search that waits on them is explained. Nothing waits
 * on the progress: it only mirrors SearchIndex.onProgress, and it follows the workspace across restarts.
 */
import * as vscode from 'vscode';
import type { IndexProgress } from '../search/searchIndex.js';
import type { WorkspaceLifecycle } from '../lifecycle.js';

/** Jobs smaller than this finish before anyone would read a progress. */
const MIN_TOTAL = 20;
/** Ends a progress whose job stopped reporting (the index closed mid-way). */
const IDLE_MS = 30_000;

const PHASE_TEXT: Record<IndexProgress['phase'], string> = {
  indexing: 'loading the search index',
  embedding: 'embedding atoms for semantic search',
};

export class IndexProgressReporter implements vscode.Disposable {
  private readonly subscriptions: vscode.Disposable[];
  private indexSubscription: { dispose(): void } | undefined;
  private active: { report(p: IndexProgress): void; end(): void } | undefined;
  private _last: IndexProgress | undefined;

  constructor(private readonly lifecycle: WorkspaceLifecycle) {
    this.subscriptions = [lifecycle.onDidChangeState(() => this.follow())];
    this.follow();
  }

  /** The last progress shown, for tests. */
  get last(): IndexProgress | undefined {
    return this._last;
  }

  private follow(): void {
    this.indexSubscription?.dispose();
    this.indexSubscription = this.lifecycle.workspace?.search.onProgress((p) => this.onProgress(p));
    if (!this.indexSubscription) this.active?.end();
  }

  private onProgress(p: IndexProgress): void {
    if (p.total < MIN_TOTAL) return;
    this._last = p;
    if (!this.active && p.done < p.total) this.active = this.start();
    this.active?.report(p);
    if (p.done >= p.total) this.active?.end();
  }

  private start(): { report(p: IndexProgress): void; end(): void } {
    let resolve!: () => void;
    let report: ((p: IndexProgress) => void) | undefined;
    let timer: NodeJS.Timeout | undefined;
    const finished = new Promise<void>((r) => (resolve = r));
    const handle = {
      report: (p: IndexProgress) => {
        report?.(p);
        clearTimeout(timer);
        timer = setTimeout(handle.end, IDLE_MS);
      },
      end: () => {
        clearTimeout(timer);
        if (this.active === handle) this.active = undefined;
        resolve();
      },
    };
    void vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Atomic Coding' }, (progress) => {
      report = (p) => progress.report({ message: `${PHASE_TEXT[p.phase]} ${p.done}/${p.total}` });
      if (this._last) report(this._last);
      return finished;
    });
    return handle;
  }

  dispose(): void {
    this.active?.end();
    this.indexSubscription?.dispose();
    for (const s of this.subscriptions) s.dispose();
  }
}
