/**
 * Auto-save in an `atoms/<name>.js` editor does not make a version at every pause in typing. VS Code
 * writes the file (it must: that is what auto-save is), but the text tree holds the file out of its
 * imports (TextTree.hold) from the first auto-save until the person leaves the editor (another editor,
 * the window loses focus, the editor closes), saves by hand, or stops typing for FLUSH_AFTER_IDLE_MS;
 * then the file is imported once: one version. Half-typed code auto-saved meanwhile is neither imported
 * nor reported each second; if the file still does not parse on release, the text tree reports it in
 * Problems on its line, as for any file. The same rule as the `atom:` editor's (atomFileSystem.ts).
 *
 * Nothing can be lost: the file holds the text throughout, and a crash while held leaves a file the next
 * open imports (files changed while nothing watched). An agent's change to a held atom does not go over
 * the file; the release takes the file, and the agent's version stays in the history (textTree.ts).
 */
import * as vscode from 'vscode';
import { FLUSH_AFTER_IDLE_MS, type WorkspaceAccess } from './atomFileSystem.js';

interface Hold {
  release: { dispose(): void };
  timer: ReturnType<typeof setTimeout> | undefined;
  /** A save by hand is under way: release once it is written. */
  releaseAfterSave: boolean;
}

export class AtomFileAutoSave implements vscode.Disposable {
  /** Held files, by document URI. */
  private readonly holds = new Map<string, Hold>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly access: WorkspaceAccess,
    /** The atom an `atoms/<name>.js` document is the file of; undefined for any other document. */
    private readonly fileAtom: (document: vscode.TextDocument) => string | undefined,
  ) {
    this.disposables.push(
      vscode.workspace.onWillSaveTextDocument((e) => this.willSave(e.document, e.reason)),
      vscode.workspace.onDidSaveTextDocument((document) => {
        if (this.holds.get(document.uri.toString())?.releaseAfterSave) this.release(document.uri.toString());
      }),
      // Leaving the editor is when the typing becomes a version.
      vscode.window.onDidChangeActiveTextEditor((editor) => this.releaseAll(editor?.document.uri.toString())),
      vscode.window.onDidChangeWindowState((state) => {
        if (!state.focused) this.releaseAll();
      }),
      vscode.workspace.onDidCloseTextDocument((document) => this.release(document.uri.toString())),
    );
  }

  /** Whether a file's auto-saves are held now (tests, the status). */
  isHeld(uri: vscode.Uri): boolean {
    return this.holds.has(uri.toString());
  }

  dispose(): void {
    this.releaseAll();
    for (const d of this.disposables) d.dispose();
  }

  private willSave(document: vscode.TextDocument, reason: vscode.TextDocumentSaveReason): void {
    const key = document.uri.toString();
    const held = this.holds.get(key);
    if (reason !== vscode.TextDocumentSaveReason.AfterDelay) {
      // By hand (or on focus change): this save is the version.
      if (held) held.releaseAfterSave = true;
      return;
    }
    const name = this.fileAtom(document);
    const tree = this.access.workspace?.textTree;
    if (!name || !tree) return;
    const hold = held ?? { release: tree.hold(name), timer: undefined, releaseAfterSave: false };
    this.holds.set(key, hold);
    // Stopped typing for a while: the version is made even if the editor stays open.
    if (hold.timer) clearTimeout(hold.timer);
    hold.timer = setTimeout(() => this.release(key), FLUSH_AFTER_IDLE_MS);
  }

  private release(key: string): void {
    const hold = this.holds.get(key);
    if (!hold) return;
    this.holds.delete(key);
    if (hold.timer) clearTimeout(hold.timer);
    hold.release.dispose();
  }

  /** Releases every held file but `keep`'s (the editor still in use). */
  private releaseAll(keep?: string): void {
    for (const key of [...this.holds.keys()]) if (key !== keep) this.release(key);
  }
}
