/**
 * The `atom:` file system: every atom is a file `atom:/<name>.js` whose text is a JSDoc header (type,
 * description, ports, dependencies) followed by the code (see atomDocument.ts). Opening one gives a normal
 * text editor, so undo, search, formatting and JavaScript language features work as for any file.
 *
 * Saving validates and upserts through AtomWorkspace.upsert, the same path as the upsert_atom tool. A
 * refused save throws, so VS Code keeps the editor's text (still dirty), shows the reason, and nothing
 * changes in the store. Changes made by anyone else fire onDidChangeFile, so open editors follow them.
 */
import * as vscode from 'vscode';
import type { Atom } from '../atoms/model.js';
import { NAME_PATTERN } from '../atoms/model.js';
import type { StoreChange } from '../store/reader.js';
import type { AtomWorkspace } from '../workspace.js';
import { codeLineOffset, formatAtomDocument, inDocumentLines, sameAtom, toDraft } from './atomDocument.js';

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

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class AtomFileSystemProvider implements vscode.FileSystemProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.emitter.event;
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly access: WorkspaceAccess,
    private readonly onSaved: (atom: Atom, created: boolean) => void = () => {},
    private readonly onRefused: (name: string, reason: string) => void = () => {},
  ) {
    this.subscription = access.onDidChangeAtoms((change) => this.announce(change));
  }

  dispose(): void {
    this.subscription.dispose();
    this.emitter.dispose();
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
      size: encoder.encode(this.documentText(uri, atom)).byteLength,
    };
  }

  readDirectory(uri: vscode.Uri): [string, vscode.FileType][] {
    if (uri.path !== '/') throw vscode.FileSystemError.FileNotFound(uri);
    return this.workspace(uri)
      .atoms.all()
      .map((a) => [`${a.name}.js`, vscode.FileType.File]);
  }

  readFile(uri: vscode.Uri): Uint8Array {
    return encoder.encode(this.documentText(uri, this.atomAt(uri)));
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
