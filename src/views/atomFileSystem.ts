/**
 * The `atom:` file system: every atom is a file `atom:/<name>.js` whose text is a JSDoc header (type,
 * description, ports, dependencies) followed by the code (see atomDocument.ts). Opening one gives a normal
 * text editor, so undo, search, formatting and JavaScript language features work as for any file.
 *
 * Saving validates and upserts through AtomWorkspace.upsert, the same path as the upsert_atom tool. A
 * refused save throws, so VS Code keeps the editor's text (still dirty), shows the reason, and nothing
 * changes in the store. Changes made by anyone else fire onDidChangeFile, so open editors follow them.
 *
 * Auto-save (files.autoSave afterDelay) does not write to the store at every pause in typing: its saves
 * are held as the editor's pending text (the editor reads it back, so nothing is lost) and go to the
 * store as one version when the user leaves the editor (another editor, the window loses focus, the
 * editor closes), saves by hand, or stops typing for a few seconds (FLUSH_AFTER_IDLE_MS: in VS Code for
 * the Web auto-save is on by default, and a Ctrl+S on an editor auto-save left clean writes nothing). A held text that the store refuses (half-typed code that does not
 * parse yet) is shown as a problem on its line in the editor, not as an error notification, and stays
 * held until it is fixed.
 */
import * as vscode from 'vscode';
import type { Atom } from '../atoms/model.js';
import { NAME_PATTERN } from '../atoms/model.js';
import type { StoreChange } from '../store/reader.js';
import type { AtomWorkspace } from '../workspace.js';
import { codeLineOffset, documentPlace, formatAtomDocument, inDocumentLines, sameAtom, toDraft } from './atomDocument.js';

export const ATOM_SCHEME = 'atom';

export function atomUri(name: string): vscode.Uri {
  return vscode.Uri.from({ scheme: ATOM_SCHEME, path: `/${name}.js` });
}

/** The atom name in `atom:/<name>.js`, or undefined for any other path. */
export function atomNameOf(uri: vscode.Uri): string | undefined {
  if (uri.scheme !== ATOM_SCHEME) return undefined;
  const m = /^\/([^/]+)\.js$/.exec(uri.path);
  return m ? m[1] : undefined;
}

export interface WorkspaceAccess {
  /** The open workspace, or undefined while none is (starting, failed, no folder). */
  readonly workspace: AtomWorkspace | undefined;
  onDidChangeAtoms: vscode.Event<StoreChange>;
}

/** A held auto-save goes to the store when no further one came for this long. */
export const FLUSH_AFTER_IDLE_MS = 5_000;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class AtomFileSystemProvider implements vscode.FileSystemProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.emitter.event;
  private readonly subscriptions: vscode.Disposable[];
  /** Texts saved by auto-save, by atom name, not yet in the store. */
  private readonly pending = new Map<string, string>();
  /** The version each held text was typed over: a store at another version changed outside meanwhile. */
  private readonly pendingBase = new Map<string, number>();
  /** Documents whose save in progress was started by auto-save (onWillSaveTextDocument says AfterDelay). */
  private readonly autoSaving = new Set<string>();
  private readonly problems = vscode.languages.createDiagnosticCollection('atomicCoding.autoSave');
  private readonly idleTimers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(
    private readonly access: WorkspaceAccess,
    private readonly onSaved: (atom: Atom, created: boolean) => void = () => {},
    private readonly onRefused: (name: string, reason: string) => void = () => {},
  ) {
    this.subscriptions = [
      access.onDidChangeAtoms((change) => this.announce(change)),
      vscode.workspace.onWillSaveTextDocument((e) => {
        if (e.document.uri.scheme !== ATOM_SCHEME) return;
        if (e.reason === vscode.TextDocumentSaveReason.AfterDelay) this.autoSaving.add(e.document.uri.toString());
        else this.autoSaving.delete(e.document.uri.toString());
      }),
      // Leaving the editor is when an auto-saved atom becomes a version.
      vscode.window.onDidChangeActiveTextEditor((editor) => void this.flushPending(editor?.document.uri)),
      vscode.window.onDidChangeWindowState((state) => {
        if (!state.focused) void this.flushPending();
      }),
      vscode.workspace.onDidCloseTextDocument((document) => {
        const name = atomNameOf(document.uri);
        if (name && this.pending.has(name)) void this.flush(document.uri, name);
      }),
    ];
  }

  dispose(): void {
    for (const t of this.idleTimers.values()) clearTimeout(t);
    void this.flushPending();
    for (const s of this.subscriptions) s.dispose();
    this.problems.dispose();
    this.emitter.dispose();
  }

  private dropPending(name: string): void {
    this.pending.delete(name);
    this.pendingBase.delete(name);
  }

  /** Whether an atom has auto-saved text not yet in the store (for tests and the status). */
  hasPending(name: string): boolean {
    return this.pending.has(name);
  }

  /** Takes every held auto-save into the store, except the one of `keep` (the editor still in use). */
  async flushPending(keep?: vscode.Uri): Promise<void> {
    for (const name of [...this.pending.keys()]) {
      const uri = atomUri(name);
      if (keep && keep.toString() === uri.toString()) continue;
      await this.flush(uri, name);
    }
  }

  /** One held auto-save into the store: a refusal is a problem on its line, the text stays held. */
  private async flush(uri: vscode.Uri, name: string): Promise<void> {
    const text = this.pending.get(name);
    if (text === undefined) return;
    const current = this.access.workspace?.atoms.get(name);
    const base = this.pendingBase.get(name);
    if (current && base !== undefined && current.version !== base) {
      // Changed outside (an agent, a rename, a checkout) after these edits were typed: never silently
      // over it. The text stays held (the editor shows it, nothing is lost); a save by hand keeps it,
      // and the newer version stays in the history.
      const diagnostic = new vscode.Diagnostic(
        new vscode.Range(0, 0, 0, 1000),
        `Not saved to the atom store: ${name} changed outside (now v${current.version}) after these edits, typed over v${base}. ` +
          'Save by hand (Ctrl+S) to keep your text as a new version over it; the newer version stays in Show History, where Compare shows both.',
        vscode.DiagnosticSeverity.Warning,
      );
      diagnostic.source = 'Atomic Coding';
      this.problems.set(uri, [diagnostic]);
      return;
    }
    try {
      await this.save(uri, name, text);
      if (this.pending.get(name) === text) this.dropPending(name);
      this.problems.delete(uri);
    } catch (err) {
      const reason = (err as Error).message;
      const at = documentPlace(reason.replace(/\bat line (\d+)(, column \d+)?/, 'at line $1$2 of the code'), 0);
      const line = Math.max(0, (at?.line ?? 1) - 1);
      const diagnostic = new vscode.Diagnostic(new vscode.Range(line, Math.max(0, (at?.column ?? 1) - 1), line, 1000), `Not saved to the atom store yet: ${reason}`, vscode.DiagnosticSeverity.Warning);
      diagnostic.source = 'Atomic Coding';
      this.problems.set(uri, [diagnostic]);
    }
  }

  private announce(change: StoreChange): void {
    if (change.kind === 'reload') {
      const names = this.access.workspace?.atoms.all().map((a) => a.name) ?? [];
      this.emitter.fire(names.map((n) => ({ type: vscode.FileChangeType.Changed, uri: atomUri(n) })));
      return;
    }
    const type =
      change.kind === 'delete'
        ? vscode.FileChangeType.Deleted
        : change.previous
          ? vscode.FileChangeType.Changed
          : vscode.FileChangeType.Created;
    this.emitter.fire([{ type, uri: atomUri(change.atom.name) }]);
  }

  watch(): vscode.Disposable {
    // Every atom change is announced anyway (see announce); there is nothing per-watch to set up.
    return new vscode.Disposable(() => {});
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    if (uri.path === '/') return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0 };
    const atom = this.atomAt(uri);
    return {
      type: vscode.FileType.File,
      ctime: Date.parse(atom.created_at),
      // The version keeps mtime moving on every save, even two within one millisecond; VS Code compares
      // it to detect that an open editor is stale.
      mtime: Date.parse(atom.updated_at) + atom.version,
      size: encoder.encode(this.pending.get(atom.name) ?? this.documentText(uri, atom)).byteLength,
    };
  }

  readDirectory(uri: vscode.Uri): [string, vscode.FileType][] {
    if (uri.path !== '/') throw vscode.FileSystemError.FileNotFound(uri);
    return this.workspace(uri)
      .atoms.all()
      .map((a) => [`${a.name}.js`, vscode.FileType.File]);
  }

  readFile(uri: vscode.Uri): Uint8Array {
    const held = this.pending.get(this.nameOf(uri));
    return encoder.encode(held ?? this.documentText(uri, this.atomAt(uri)));
  }

  /** The atom's document in the layout of its file in atoms/ (so a save changes only the lines edited). */
  private documentText(uri: vscode.Uri, atom: Atom): string {
    return this.workspace(uri).textTree?.layoutText(atom) ?? formatAtomDocument(atom);
  }

  async writeFile(uri: vscode.Uri, content: Uint8Array, options: { create: boolean; overwrite: boolean }): Promise<void> {
    const name = this.nameOf(uri);
    const workspace = this.workspace(uri);
    const existing = workspace.atoms.get(name);
    if (!existing && !options.create) throw vscode.FileSystemError.FileNotFound(uri);
    if (existing && !options.overwrite) throw vscode.FileSystemError.FileExists(uri);
    const text = decoder.decode(content);
    if (existing && this.autoSaving.delete(uri.toString())) {
      // Auto-save: held until the user leaves the editor or pauses (one version, no half-typed bundle).
      if (!this.pending.has(name)) this.pendingBase.set(name, existing.version);
      this.pending.set(name, text);
      clearTimeout(this.idleTimers.get(name));
      this.idleTimers.set(
        name,
        setTimeout(() => {
          this.idleTimers.delete(name);
          void this.flush(uri, name);
        }, FLUSH_AFTER_IDLE_MS),
      );
      return;
    }
    this.dropPending(name);
    clearTimeout(this.idleTimers.get(name));
    this.problems.delete(uri);
    await this.save(uri, name, text);
  }

  /** Validates and upserts a document's text; a refusal throws with lines as the editor numbers them. */
  private async save(uri: vscode.Uri, name: string, text: string): Promise<void> {
    const workspace = this.workspace(uri);
    const existing = workspace.atoms.get(name);
    try {
      const draft = toDraft(name, text, existing);
      if (existing && sameAtom(existing, draft)) return;
      const { result } = await workspace.upsert(draft);
      this.onSaved(result.atom, result.created);
    } catch (err) {
      // VS Code shows "Unable to write file '<uri>' (<name>: <message>)" and keeps the editor dirty.
      // Lines named as the editor numbers them: the header's lines come before the code's.
      const refused = new Error(inDocumentLines((err as Error).message ?? String(err), codeLineOffset(text)));
      refused.name = 'Save refused';
      this.onRefused(name, refused.message);
      throw refused;
    }
  }

  async delete(uri: vscode.Uri): Promise<void> {
    await this.workspace(uri).delete(this.nameOf(uri));
  }

  /**
   * A rename goes through the same rename as the rename_atom tool: every atom whose code calls the old
   * name is rewritten, all or nothing. A refused rename (the name is taken, not snake_case, a caller
   * would grow past 2 KB) throws with the reason and changes nothing.
   */
  async rename(oldUri: vscode.Uri, newUri: vscode.Uri, options: { overwrite: boolean }): Promise<void> {
    const from = this.nameOf(oldUri);
    const to = atomNameOf(newUri);
    if (!to) throw vscode.FileSystemError.NoPermissions(`${newUri.path}: an atom's file is atom:/<name>.js with a snake_case name.`);
    const workspace = this.workspace(oldUri);
    if (workspace.atoms.has(to) && !options.overwrite) throw vscode.FileSystemError.FileExists(newUri);
    try {
      await workspace.rename(from, to);
    } catch (err) {
      const refused = new Error((err as Error).message ?? String(err));
      refused.name = 'Rename refused';
      throw refused;
    }
  }

  createDirectory(): void {
    throw vscode.FileSystemError.NoPermissions('Atoms live in one flat namespace; folders are not supported.');
  }

  private workspace(uri: vscode.Uri): AtomWorkspace {
    const workspace = this.access.workspace;
    if (!workspace) throw vscode.FileSystemError.Unavailable(`${uri.path}: the atom store is not open (see Atomic Coding: Show Output)`);
    return workspace;
  }

  private nameOf(uri: vscode.Uri): string {
    const name = atomNameOf(uri);
    if (!name || !NAME_PATTERN.test(name)) {
      throw vscode.FileSystemError.FileNotFound(`${uri.path}: atom files are named atom:/<snake_case_name>.js`);
    }
    return name;
  }

  private atomAt(uri: vscode.Uri): Atom {
    const atom = this.workspace(uri).atoms.get(this.nameOf(uri));
    if (!atom) throw vscode.FileSystemError.FileNotFound(uri);
    return atom;
  }
}
