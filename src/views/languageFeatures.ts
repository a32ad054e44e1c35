/**
 * Atoms as first-class JavaScript in the editor, in both places an atom is edited: the `atom:`
 * editor (`atom:/<name>.js`) and its file in the text tree (`atoms/<name>.js`). Go to Definition,
 * Find All References, hover, completion, parameter hints, rename (through workspace.rename, the
 * rename_atom path), diagnostics at call sites and a code lens above the function.
 *
 * Providers of our own over the store, not TypeScript's JavaScript service: every answer reads the
 * store as it is now (atoms.get, a scan of the codes that mention a name), so it follows every change
 * whoever made it, with nothing generated to keep in step and no second program in memory. The
 * analysis itself is pure: atoms/callSites.ts. A location in another atom is given in the same kind of
 * editor as the one asked from (an `atom:` editor leads to `atom:` editors, a file to files).
 */
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import { codeCallers } from '../atoms/calls.js';
import { analyzeDocument, callContext, callProblems, nameAt, wordAt, type DocumentAnalysis } from '../atoms/callSites.js';
import { formatAtomDocument, parseAtomDocument } from '../atoms/atomDocument.js';
import { NAME_PATTERN, type Atom, type Port } from '../atoms/model.js';
import { formatSignature } from '../atoms/signature.js';
import type * as Core from '../core.js';
import type { Logger } from '../util/log.js';
import type { AtomWorkspace } from '../workspace.js';
import { ATOM_SCHEME, atomNameOf, atomUri, type WorkspaceAccess } from './atomFileSystem.js';
import { Commands } from './commandIds.js';

/** Internal commands (not contributed: the code lens calls them). */
export const LensCommands = {
  run: 'atomicCoding.lens.run',
  examples: 'atomicCoding.lens.examples',
} as const;

type Kind = 'atom' | 'file';

export interface LanguageFeatureOptions {
  access: WorkspaceAccess;
  log: Logger;
  /** The workspace folder and the atoms folder setting, for the file selector. */
  folder: vscode.Uri;
  atomsFolder: string;
  /** Fired when the workspace opens or closes: the open documents are checked again. */
  onDidChangeState?: vscode.Event<unknown>;
}

export class AtomLanguageFeatures implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('atomic-coding');
  private readonly lensEmitter = new vscode.EventEmitter<void>();
  /** Bumped on every store change: cached analyses of other atoms and the completion list expire with it. */
  private generation = 0;
  private readonly cache = new Map<string, { key: string; analysis: DocumentAnalysis }>();
  private completions: { generation: number; items: vscode.CompletionItem[] } | undefined;
  private pending: ReturnType<typeof setTimeout> | undefined;
  private verificationSubscription: { dispose(): void } | undefined;
  private verificationOf: AtomWorkspace | undefined;

  constructor(private readonly options: LanguageFeatureOptions) {
    const selector: vscode.DocumentSelector = [
      { scheme: ATOM_SCHEME, language: 'javascript' },
      { scheme: 'file', language: 'javascript', pattern: new vscode.RelativePattern(options.folder, `${options.atomsFolder}/*.js`) },
    ];
    const L = vscode.languages;
    this.disposables.push(
      this.diagnostics,
      this.lensEmitter,
      L.registerDefinitionProvider(selector, { provideDefinition: (d, p) => this.definition(d, p) }),
      L.registerReferenceProvider(selector, { provideReferences: (d, p, c) => this.references(d, p, c.includeDeclaration) }),
      L.registerHoverProvider(selector, { provideHover: (d, p) => this.hover(d, p) }),
      L.registerCompletionItemProvider(selector, { provideCompletionItems: (d, p) => this.complete(d, p) }),
      L.registerSignatureHelpProvider(selector, { provideSignatureHelp: (d, p) => this.signatureHelp(d, p) }, '(', ','),
      L.registerRenameProvider(selector, { prepareRename: (d, p) => this.prepareRename(d, p), provideRenameEdits: (d, p, n) => this.rename(d, p, n) }),
      L.registerCodeLensProvider(selector, { onDidChangeCodeLenses: this.lensEmitter.event, provideCodeLenses: (d) => this.lenses(d) }),
      vscode.commands.registerCommand(LensCommands.run, (name: string, args?: unknown[]) => this.run(name, args)),
      vscode.commands.registerCommand(LensCommands.examples, (name: string) => this.showExamples(name)),
      options.access.onDidChangeAtoms(() => {
        this.generation++;
        this.watchVerification();
        this.lensEmitter.fire();
        this.schedule();
      }),
      ...(options.onDidChangeState ? [options.onDidChangeState(() => (this.generation++, this.lensEmitter.fire(), this.schedule()))] : []),
      vscode.workspace.onDidOpenTextDocument((d) => this.check(d)),
      vscode.workspace.onDidChangeTextDocument((e) => this.schedule(e.document)),
      vscode.workspace.onDidCloseTextDocument((d) => {
        this.diagnostics.delete(d.uri);
        this.cache.delete(d.uri.toString());
      }),
    );
    for (const d of vscode.workspace.textDocuments) this.check(d);
  }

  dispose(): void {
    if (this.pending) clearTimeout(this.pending);
    this.verificationSubscription?.dispose();
    for (const d of this.disposables) d.dispose();
  }

  // ---- the document and the store ----------------------------------------------------------

  private get workspace(): AtomWorkspace | undefined {
    return this.options.access.workspace;
  }

  /** The atom a document is, and which kind of editor it is in; undefined for any other document. */
  atomOf(document: vscode.TextDocument): { name: string; kind: Kind } | undefined {
    if (document.uri.scheme === ATOM_SCHEME) {
      const name = atomNameOf(document.uri);
      return name && NAME_PATTERN.test(name) ? { name, kind: 'atom' } : undefined;
    }
    const folder = this.workspace?.textTree?.folderPath;
    if (document.uri.scheme !== 'file' || !folder || dirname(document.uri.fsPath) !== folder) return undefined;
    const m = /([^/\\]+)\.js$/.exec(document.uri.fsPath);
    return m && NAME_PATTERN.test(m[1]!) ? { name: m[1]!, kind: 'file' } : undefined;
  }

  private uriOf(name: string, kind: Kind): vscode.Uri | undefined {
    if (kind === 'atom') return atomUri(name);
    const folder = this.workspace?.textTree?.folderPath;
    return folder ? vscode.Uri.file(join(folder, `${name}.js`)) : atomUri(name);
  }

  /** The analysis of an open document, cached per text version and store generation. */
  private analyze(document: vscode.TextDocument, name: string): DocumentAnalysis {
    const key = `${document.version}:${this.generation}`;
    const hit = this.cache.get(document.uri.toString());
    if (hit && hit.key === key) return hit.analysis;
    const text = document.getText();
    const analysis = analyzeDocument(text, this.inputsOf(name, text), (n) => this.workspace?.atoms.get(n)?.outputs);
    this.cache.set(document.uri.toString(), { key, analysis });
    return analysis;
  }

  /** The inputs the document's header declares (as typed), else the stored atom's. */
  private inputsOf(name: string, text: string): readonly Port[] {
    try {
      const { draft, hasHeader } = parseAtomDocument(name, text);
      if (hasHeader) return draft.inputs ?? [];
    } catch {
      // A header being typed: the stored interface until it reads again.
    }
    return this.workspace?.atoms.get(name)?.inputs ?? [];
  }

  /** Another atom's text as its editor of `kind` has it now: the open document's, else the stored atom's. */
  private textOf(atom: Atom, kind: Kind): { uri: vscode.Uri; text: string } | undefined {
    const uri = this.uriOf(atom.name, kind);
    if (!uri) return undefined;
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    return { uri, text: open ? open.getText() : (this.workspace?.textTree?.documentText(atom) ?? formatAtomDocument(atom)) };
  }

  /** The atom's own name in its editor of `kind`. */
  private definitionOf(atom: Atom, kind: Kind): vscode.Location | undefined {
    const t = this.textOf(atom, kind);
    if (!t) return undefined;
    const own = analyzeDocument(t.text).own;
    const range = own ? rangeIn(t.text, own.start, own.end) : new vscode.Range(0, 0, 0, 0);
    return new vscode.Location(t.uri, range);
  }

  /** The atom named at the position: a call or reference to an atom, or the function's own name. */
  private target(document: vscode.TextDocument, position: vscode.Position): { atom: Atom; kind: Kind; own: boolean; range: vscode.Range } | undefined {
    const self = this.atomOf(document);
    const workspace = this.workspace;
    if (!self || !workspace) return undefined;
    const hit = nameAt(this.analyze(document, self.name), document.offsetAt(position));
    if (!hit) return undefined;
    const atom = workspace.atoms.get(hit.own ? self.name : hit.name);
    if (!atom) return undefined;
    return { atom, kind: self.kind, own: hit.own, range: new vscode.Range(document.positionAt(hit.start), document.positionAt(hit.end)) };
  }

  // ---- 1. definition and references ------------------------------------------------------------

  private definition(document: vscode.TextDocument, position: vscode.Position): vscode.Location | undefined {
    const t = this.target(document, position);
    if (!t || t.own) return undefined;
    return this.definitionOf(t.atom, t.kind);
  }

  /** The call sites of the atom in the atoms that call it (each in the same kind of editor). */
  private callSitesOf(name: string, kind: Kind): vscode.Location[] {
    const workspace = this.workspace;
    if (!workspace) return [];
    const out: vscode.Location[] = [];
    for (const caller of codeCallers(workspace.atoms.mayName([name]), name)) {
      const atom = workspace.atoms.get(caller);
      const t = atom && this.textOf(atom, kind);
      if (!t) continue;
      for (const call of analyzeDocument(t.text).references) {
        if (call.name === name) out.push(new vscode.Location(t.uri, rangeIn(t.text, call.start, call.end)));
      }
    }
    return out;
  }

  private references(document: vscode.TextDocument, position: vscode.Position, includeDeclaration: boolean): vscode.Location[] | undefined {
    const t = this.target(document, position);
    if (!t) return undefined;
    const out = this.callSitesOf(t.atom.name, t.kind);
    if (includeDeclaration) {
      const def = this.definitionOf(t.atom, t.kind);
      if (def) out.unshift(def);
    }
    return out;
  }

  // ---- 2. hover ------------------------------------------------------------------------------

  private hover(document: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    const t = this.target(document, position);
    if (!t) return undefined;
    return new vscode.Hover(this.describe(t.atom, t.own), t.range);
  }

  private usedBy(name: string): number {
    return this.workspace?.atoms.dependents(name).length ?? 0;
  }

  private describe(atom: Atom, withExamples: boolean): vscode.MarkdownString {
    const md = new vscode.MarkdownString();
    md.appendCodeblock(`function ${atom.name}${formatSignature(atom).replace(/\) => /, '): ')}`, 'typescript');
    if (atom.description) md.appendMarkdown(`${escapeMarkdown(atom.description)}\n\n`);
    const port = (p: Port) => `- \`${p.name}${p.optional ? '?' : ''}: ${p.type}\`${p.description ? ` — ${escapeMarkdown(p.description)}` : ''}\n`;
    if (atom.inputs.length > 0) md.appendMarkdown(`**Inputs**\n\n${atom.inputs.map(port).join('')}\n`);
    if (atom.outputs.length > 0) md.appendMarkdown(`**Outputs**\n\n${atom.outputs.map(port).join('')}\n`);
    const n = this.usedBy(atom.name);
    md.appendMarkdown(`*${atom.type}* · v${atom.version} · used by ${n} atom${n === 1 ? '' : 's'}\n\n`);
    if (withExamples && atom.examples?.length) {
      const results = this.workspace?.verification.resultsOf(atom.name) ?? [];
      md.appendMarkdown(`**Examples**\n\n`);
      atom.examples.forEach((e, i) => {
        const r = results.find((x) => x.kind === 'example' && x.index === i);
        const mark = r ? (r.ok ? '✓' : '✗') : '·';
        const call = `${atom.name}(${e.args.map((a) => JSON.stringify(a)).join(', ')})`;
        const expected = 'throws' in e && e.throws !== undefined ? `throws "${e.throws}"` : `=> ${JSON.stringify(e.returns)}`;
        md.appendMarkdown(`- ${mark} \`${call} ${expected}\`${r && !r.ok && r.message ? ` — ${escapeMarkdown(r.message)}` : ''}\n`);
      });
    }
    return md;
  }

  // ---- 3. completion and signature help --------------------------------------------------------

  private complete(document: vscode.TextDocument, position: vscode.Position): vscode.CompletionItem[] | undefined {
    const self = this.atomOf(document);
    const workspace = this.workspace;
    if (!self || !workspace) return undefined;
    const text = document.getText();
    const offset = document.offsetAt(position);
    const analysis = this.analyze(document, self.name);
    if (offset < analysis.codeOffset) return undefined;
    const word = wordAt(text, offset);
    const before = word ? word.start : offset;
    if (/\.\s*$/.test(text.slice(Math.max(0, before - 8), before))) return undefined; // a property, not a call
    if (!this.completions || this.completions.generation !== this.generation) {
      this.completions = { generation: this.generation, items: workspace.atoms.all().map((a) => this.completionItem(a)) };
    }
    return this.completions.items.filter((i) => i.label !== self.name);
  }

  private completionItem(atom: Atom): vscode.CompletionItem {
    const item = new vscode.CompletionItem({ label: atom.name, detail: formatSignature(atom).replace(/^\((.*)\) => (.*)$/, '($1): $2'), description: atom.type }, vscode.CompletionItemKind.Function);
    item.insertText = new vscode.SnippetString(`${atom.name}($0)`);
    item.command = { title: 'parameter hints', command: 'editor.action.triggerParameterHints' };
    item.documentation = new vscode.MarkdownString(atom.description ? escapeMarkdown(atom.description) : '');
    // Atoms first among the words and globals other providers offer.
    item.sortText = `0_${atom.name}`;
    return item;
  }

  private signatureHelp(document: vscode.TextDocument, position: vscode.Position): vscode.SignatureHelp | undefined {
    const self = this.atomOf(document);
    const workspace = this.workspace;
    if (!self || !workspace) return undefined;
    const context = callContext(document.getText(), document.offsetAt(position));
    const atom = context && context.name !== self.name ? workspace.atoms.get(context.name) : undefined;
    if (!context || !atom) return undefined;
    const parts: string[] = [];
    const params: vscode.ParameterInformation[] = [];
    let label = `${atom.name}(`;
    atom.inputs.forEach((p, i) => {
      if (i > 0) label += ', ';
      const part = `${p.name}${p.optional ? '?' : ''}: ${p.type}`;
      params.push(new vscode.ParameterInformation([label.length, label.length + part.length], p.description));
      label += part;
      parts.push(part);
    });
    label += `): ${formatSignature(atom).replace(/^.*\) => /, '')}`;
    const signature = new vscode.SignatureInformation(label, atom.description ? new vscode.MarkdownString(escapeMarkdown(atom.description)) : undefined);
    signature.parameters = params;
    signature.activeParameter = Math.min(context.argument, Math.max(0, params.length - 1));
    const help = new vscode.SignatureHelp();
    help.signatures = [signature];
    help.activeSignature = 0;
    help.activeParameter = signature.activeParameter;
    return help;
  }

  // ---- 4. rename -------------------------------------------------------------------------------

  private prepareRename(document: vscode.TextDocument, position: vscode.Position): { range: vscode.Range; placeholder: string } | undefined {
    const t = this.target(document, position);
    // Not an atom: another provider (the JavaScript service's) renames locals.
    return t ? { range: t.range, placeholder: t.atom.name } : undefined;
  }

  /**
   * The rename as one file rename `atom:/<old>.js` -> `atom:/<new>.js`: applying it calls the atom
   * file system's rename, which is workspace.rename (rename_atom's path: all or nothing, callers
   * rewritten in the store; their editors and files follow the store). VS Code's rename preview
   * (Ctrl+Enter, Shift+Enter before 1.139) lists it as `/<old>.js → /<new>.js` (the callers, in the
   * entry's description, show only where the preview groups by category); their text edits come from
   * the store, not from this edit, so a refused rename changes nothing anywhere.
   */
  private rename(document: vscode.TextDocument, position: vscode.Position, newName: string): vscode.WorkspaceEdit | undefined {
    const t = this.target(document, position);
    const workspace = this.workspace;
    if (!t || !workspace) return undefined;
    const to = newName.trim();
    if (!NAME_PATTERN.test(to)) throw new Error(`"${to}" is not an atom name: lowercase letters, digits and underscores, starting with a letter`);
    if (to === t.atom.name) return new vscode.WorkspaceEdit();
    if (workspace.atoms.has(to)) throw new Error(`an atom named ${to} exists already`);
    const callers = codeCallers(workspace.atoms.mayName([t.atom.name]), t.atom.name);
    const edit = new vscode.WorkspaceEdit();
    edit.renameFile(atomUri(t.atom.name), atomUri(to), { overwrite: false }, {
      needsConfirmation: false,
      label: `Rename atom ${t.atom.name} to ${to}`,
      description: callers.length ? `rename_atom: also rewrites ${callers.join(', ')}` : 'rename_atom: no atom calls it',
    });
    if (t.kind === 'file') this.followRename(document.uri, t.atom.name, to);
    return edit;
  }

  /** After a rename from a file editor, the renamed atom's file takes the old file's place. */
  private followRename(oldUri: vscode.Uri, from: string, to: string): void {
    const sub = this.options.access.onDidChangeAtoms((change) => {
      if (change.kind !== 'upsert' || change.atom.name !== to) return;
      sub.dispose();
      clearTimeout(timer);
      const wasActive = vscode.window.activeTextEditor?.document.uri.toString() === oldUri.toString();
      void (async () => {
        await this.workspace?.textTree?.written();
        const uri = this.uriOf(to, 'file');
        if (wasActive && uri) await vscode.window.showTextDocument(uri);
        this.options.log.info(`renamed ${from} to ${to} from its file: opened ${to}.js`);
      })();
    });
    const timer = setTimeout(() => sub.dispose(), 60_000);
  }

  // ---- 5. diagnostics --------------------------------------------------------------------------

  private schedule(document?: vscode.TextDocument): void {
    if (document && !this.atomOf(document)) return;
    if (this.pending) clearTimeout(this.pending);
    this.pending = setTimeout(() => {
      this.pending = undefined;
      for (const d of vscode.workspace.textDocuments) this.check(d);
    }, 150);
  }

  private check(document: vscode.TextDocument): void {
    const self = this.atomOf(document);
    const workspace = this.workspace;
    if (!self || !workspace) return;
    const analysis = this.analyze(document, self.name);
    const problems = callProblems(analysis, (n) => (n === self.name ? undefined : workspace.atoms.get(n)), () => workspace.atoms.all().map((x) => x.name)).filter((p) => p.callee !== self.name);
    this.diagnostics.set(
      document.uri,
      problems.map((p) => {
        const d = new vscode.Diagnostic(
          new vscode.Range(document.positionAt(p.start), document.positionAt(p.end)),
          p.message,
          p.kind === 'type' ? vscode.DiagnosticSeverity.Warning : vscode.DiagnosticSeverity.Error,
        );
        d.source = 'Atomic Coding';
        d.code = p.kind === 'unknown' ? 'unknown-call' : p.kind === 'arity' ? 'call-arity' : 'call-type';
        return d;
      }),
    );
  }

  /** The diagnostics of a document now (tests; the Problems panel reads the collection). */
  checkNow(document: vscode.TextDocument): readonly vscode.Diagnostic[] {
    this.check(document);
    return this.diagnostics.get(document.uri) ?? [];
  }

  // ---- 6. code lens ----------------------------------------------------------------------------

  private watchVerification(): void {
    const workspace = this.workspace;
    if (workspace === this.verificationOf) return;
    this.verificationSubscription?.dispose();
    this.verificationOf = workspace;
    this.verificationSubscription = workspace?.verification.onDidChange(() => this.lensEmitter.fire());
  }

  private lenses(document: vscode.TextDocument): vscode.CodeLens[] {
    this.watchVerification();
    const self = this.atomOf(document);
    const atom = self && this.workspace?.atoms.get(self.name);
    if (!self || !atom) return [];
    const own = this.analyze(document, self.name).own;
    const range = own ? new vscode.Range(document.positionAt(own.start), document.positionAt(own.end)) : new vscode.Range(0, 0, 0, 0);
    const n = this.usedBy(atom.name);
    const lenses = [
      new vscode.CodeLens(range, {
        title: `used by ${n}`,
        command: 'editor.action.showReferences',
        arguments: [document.uri, range.start, this.callSitesOf(atom.name, self.kind)],
      }),
      new vscode.CodeLens(range, { title: `v${atom.version}`, command: Commands.showHistory, arguments: [atom.name] }),
      new vscode.CodeLens(range, { title: '▶ run', command: LensCommands.run, arguments: [atom.name] }),
    ];
    const count = atom.examples?.length ?? 0;
    if (count > 0) {
      const results = (this.workspace?.verification.resultsOf(atom.name) ?? []).filter((r) => r.kind === 'example');
      const failed = results.filter((r) => !r.ok).length;
      const title =
        results.length === 0 ? `${count} example${count === 1 ? '' : 's'} (not run yet)` : failed === 0 ? `✓ ${count} example${count === 1 ? '' : 's'}` : `✗ ${failed} of ${count} example${count === 1 ? '' : 's'} failing`;
      lenses.push(new vscode.CodeLens(range, { title, command: LensCommands.examples, arguments: [atom.name] }));
    }
    return lenses;
  }

  /** ▶ run: the atom in the sandbox (run_atom), with its first example's arguments or the ones asked for; the answer opens beside. */
  private async run(name: string, given?: unknown[]): Promise<string | undefined> {
    const workspace = this.workspace;
    const atom = workspace?.atoms.get(name);
    if (!workspace || !atom) return undefined;
    let args = given ?? atom.examples?.[0]?.args;
    if (!args && atom.inputs.length > 0) {
      const typed = await vscode.window.showInputBox({
        title: `Run ${name}`,
        prompt: `Arguments as a JSON array: ${formatSignature(atom)}`,
        value: JSON.stringify(atom.inputs.map((p) => (p.type === 'number' ? 0 : p.type === 'string' ? '' : p.type === 'boolean' ? false : p.type === 'void' ? null : []))),
        validateInput: (v) => {
          try {
            return Array.isArray(JSON.parse(v)) ? undefined : 'a JSON array, e.g. [1, "a"]';
          } catch {
            return 'a JSON array, e.g. [1, "a"]';
          }
        },
      });
      if (typed === undefined) return undefined;
      args = JSON.parse(typed) as unknown[];
    }
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- dist/core.js, loaded by the lifecycle already
    const core = require(join(__dirname, 'core.js')) as typeof Core;
    let text: string;
    try {
      const out = await core.runAtomTool.run({ name, args: args ?? [] } as never, { workspace, connectedClients: () => 0, serverVersion: '' });
      text = typeof out === 'string' ? out : out.text;
    } catch (err) {
      text = `${name} did not run: ${(err as Error).message}`;
    }
    await this.showText(`// ▶ ${name}(${(args ?? []).map((a) => JSON.stringify(a)).join(', ')})\n${text.split('\n').map((l) => `// ${l}`).join('\n')}\n`);
    return text;
  }

  private async showExamples(name: string): Promise<string | undefined> {
    const results = this.workspace?.verification.resultsOf(name) ?? [];
    const text = results.map((r) => `${r.ok ? '✓' : '✗'} ${r.label}${r.message ? `: ${r.message}` : ''} (${r.ms} ms)`).join('\n') || `${name}: the examples have not run yet`;
    await this.showText(text);
    return text;
  }

  private async showText(content: string): Promise<void> {
    const doc = await vscode.workspace.openTextDocument({ content, language: 'javascript' });
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: true, preserveFocus: true });
  }
}

function rangeIn(text: string, start: number, end: number): vscode.Range {
  return new vscode.Range(positionIn(text, start), positionIn(text, end));
}

function positionIn(text: string, offset: number): vscode.Position {
  let line = 0;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return new vscode.Position(line, offset - lineStart);
}

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}
