/**
 * The text tree's files that were not taken (conflict markers, a syntax error, a function not named
 * like its file, a cycle, a missing dependency, too big, a removed file whose atom is still used) as
 * diagnostics on those files, in the Problems panel and under the editor's squiggle, until they are
 * fixed. It only mirrors TextTreeView.onDidChangeProblems, and follows the workspace across restarts.
 */
import * as vscode from 'vscode';
import type { TextProblem } from '../textTree/problems.js';
import type { WorkspaceLifecycle } from '../lifecycle.js';

export class TextTreeDiagnostics implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection('atomicCoding.textTree');
  private readonly subscriptions: vscode.Disposable[];
  private treeSubscription: { dispose(): void } | undefined;

  constructor(private readonly lifecycle: Pick<WorkspaceLifecycle, 'workspace' | 'onDidChangeState'>) {
    this.subscriptions = [lifecycle.onDidChangeState(() => this.follow())];
    this.follow();
  }

  private follow(): void {
    this.treeSubscription?.dispose();
    const tree = this.lifecycle.workspace?.textTree;
    this.treeSubscription = tree?.onDidChangeProblems((problems) => this.show(problems));
    this.show(tree?.problems() ?? []);
  }

  private show(problems: readonly TextProblem[]): void {
    this.collection.clear();
    for (const p of problems) {
      // A reason that names a place in the file ("at line 14, column 3": lines of the file) is shown there.
      const at = /\bat line (\d+)(?:, column (\d+))?/.exec(p.reason);
      const line = at ? Math.max(0, Number(at[1]) - 1) : 0;
      const column = at?.[2] ? Math.max(0, Number(at[2]) - 1) : 0;
      const diagnostic = new vscode.Diagnostic(
        new vscode.Range(line, column, line, 1000),
        `Not taken into the atom store: ${p.reason}`,
        vscode.DiagnosticSeverity.Error,
      );
      diagnostic.source = 'Atomic Coding';
      this.collection.set(vscode.Uri.file(p.path), [diagnostic]);
    }
  }

  dispose(): void {
    this.treeSubscription?.dispose();
    for (const s of this.subscriptions) s.dispose();
    this.collection.dispose();
  }
}
