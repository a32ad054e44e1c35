/**
 * A save of `atoms/<name>.js` over a newer version is never silent. VS Code's own "the file is newer"
 * check (an mtime compared at save) catches it for `atom:` editors (their mtime includes the version),
 * but the e2e run showed that a text-tree file rewritten under a dirty editor was saved over without a
 * word. So each open atom file remembers the version its text was based on (the version when it was
 * last clean); a save of unsaved edits when the store has moved past it is reported, with the newer
 * version one click away (compare, restore: it stays in the atom's history either way).
 */
import * as vscode from 'vscode';
import { formatAtomDocument } from '../atoms/atomDocument.js';
import type { Logger } from '../util/log.js';
import type { WorkspaceAccess } from './atomFileSystem.js';

export interface SaveConflict {
  name: string;
  /** The version the editor's text was based on. */
  based: number;
  /** The newer version the save replaced. */
  overwritten: number;
}

export class AtomFileConflicts implements vscode.Disposable {
  private readonly base = new Map<string, number>();
  private readonly disposables: vscode.Disposable[] = [];
  /** The last conflict reported (tests). */
  lastConflict: SaveConflict | undefined;

  constructor(
    private readonly access: WorkspaceAccess,
    private readonly fileAtom: (document: vscode.TextDocument) => string | undefined,
    private readonly log: Logger,
  ) {
    const note = (d: vscode.TextDocument) => {
      const name = this.fileAtom(d);
      const version = name && this.access.workspace?.atoms.get(name)?.version;
      if (version && !d.isDirty) this.base.set(d.uri.toString(), version);
    };
    for (const d of vscode.workspace.textDocuments) note(d);
    this.disposables.push(
      vscode.workspace.onDidOpenTextDocument(note),
      vscode.workspace.onDidChangeTextDocument((e) => note(e.document)),
      vscode.workspace.onDidCloseTextDocument((d) => this.base.delete(d.uri.toString())),
      access.onDidChangeAtoms(() => vscode.workspace.textDocuments.forEach(note)),
      vscode.workspace.onWillSaveTextDocument((e) => this.check(e.document)),
    );
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }

  private check(document: vscode.TextDocument): void {
    const name = this.fileAtom(document);
    const workspace = this.access.workspace;
    const atom = name && workspace?.atoms.get(name);
    const based = this.base.get(document.uri.toString());
    if (!name || !workspace || !atom || !document.isDirty || based === undefined || atom.version <= based) return;
    const conflict = { name, based, overwritten: atom.version };
    this.lastConflict = conflict;
    this.log.warn(`${name}: saved over v${atom.version} (changed outside while the editor had unsaved edits based on v${based})`);
    const compare = `Compare with v${atom.version}`;
    const restore = `Restore v${atom.version}`;
    void vscode.window
      .showWarningMessage(
        `${name} changed outside (v${based} → v${atom.version}) while this editor had unsaved edits; saving replaced v${atom.version}, which stays in its history.`,
        compare,
        restore,
      )
      .then(async (choice) => {
        if (choice === compare) {
          const newer = await vscode.workspace.openTextDocument({ content: formatAtomDocument(atom), language: 'javascript' });
          await vscode.commands.executeCommand('vscode.diff', newer.uri, document.uri, `${name}: v${atom.version} (outside) ↔ your save`);
        } else if (choice === restore) {
          await workspace.restore(name, atom.version);
        }
      });
  }
}
