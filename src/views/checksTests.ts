/**
 * The checks (examples and test atoms, run by src/verify/verification.ts) in VS Code: the Test Explorer
 * and the gutter (a TestController: one item per atom with checks, a child per example; a test atom is
 * one item), and the Problems panel (a diagnostic per failing check). Both point at the atom's file: the
 * text tree's `atoms/<name>.js` when it is on, else the `atom:` document, at the function line, the
 * `@example` line, or the line the check failed on.
 *
 * It only mirrors the runner: Run in the Test Explorer or the gutter asks it to run now; the runs it
 * makes by itself after every change are reported as test runs too (so the Test Explorer never shows a
 * stale verdict), and every result updates the diagnostics and the Atoms tree. Follows the workspace
 * across restarts.
 */
import { join } from 'node:path';
import * as vscode from 'vscode';
import { atomDocumentLines, type AtomDocumentLines } from '../atoms/atomDocument.js';
import { hasChecks, type CheckResult } from '../atoms/checks.js';
import { formatExample } from '../atoms/examples.js';
import type { Atom } from '../atoms/model.js';
import type { WorkspaceLifecycle } from '../lifecycle.js';
import type { StoreChange } from '../store/reader.js';
import type { AtomWorkspace } from '../workspace.js';
import { atomUri } from './atomFileSystem.js';

export const CHECKS_CONTROLLER_ID = 'atomicCoding.checks';
export const CHECKS_DIAGNOSTIC_SOURCE = 'Atomic Coding checks';

type Lifecycle = Pick<WorkspaceLifecycle, 'workspace' | 'onDidChangeState' | 'onDidChangeAtoms'>;

export class AtomChecksView implements vscode.Disposable {
  readonly controller: vscode.TestController;
  readonly diagnostics = vscode.languages.createDiagnosticCollection('atomicCoding.checks');
  private readonly resultsChanged = new vscode.EventEmitter<readonly string[]>();
  /** Fired after the results of these atoms changed and the diagnostics show them (the tree refreshes). */
  readonly onDidChangeResults = this.resultsChanged.event;
  private readonly runs = new vscode.EventEmitter<{ name: string; passed: string[]; failed: string[] }>();
  /** Fired as a test run ends, with the ids of the items it marked passed and failed (for tests and logs). */
  readonly onDidEndRun = this.runs.event;
  private readonly subscriptions: vscode.Disposable[] = [];
  private verificationSubscription: { dispose(): void } | undefined;
  /** The uri each atom's diagnostics were set on, so they can be cleared when the atom goes. */
  private readonly diagnosed = new Map<string, vscode.Uri>();
  /** Runs asked for in the Test Explorer in progress: they report their own results. */
  private requested = 0;

  constructor(private readonly lifecycle: Lifecycle) {
    this.controller = vscode.tests.createTestController(CHECKS_CONTROLLER_ID, 'Atom checks');
    this.controller.createRunProfile('Run', vscode.TestRunProfileKind.Run, (request, token) => this.runRequest(request, token), true);
    this.controller.refreshHandler = async () => {
      this.sync();
      await this.lifecycle.workspace?.verification.run();
    };
    this.subscriptions.push(
      this.controller,
      this.diagnostics,
      this.resultsChanged,
      this.runs,
      lifecycle.onDidChangeState(() => this.follow()),
      lifecycle.onDidChangeAtoms((change) => this.follows(change)),
    );
    this.follow();
  }

  private get workspace(): AtomWorkspace | undefined {
    return this.lifecycle.workspace;
  }

  /** Subscribes to the open workspace's runner (a restart replaces it) and shows what it knows. */
  private follow(): void {
    this.verificationSubscription?.dispose();
    this.verificationSubscription = this.workspace?.verification.onDidChange((names) => this.showResults(names, true));
    this.sync();
    // What the runner knows already (a restart opens a new one: the old workspace's diagnostics go).
    const known = new Set([...this.diagnosed.keys(), ...(this.workspace?.atoms.all().filter(hasChecks).map((a) => a.name) ?? [])]);
    this.showResults([...known], false);
  }

  /** The file a check of `name` points at: the text tree's, else the `atom:` document. */
  uriOf(name: string): vscode.Uri {
    const tree = this.workspace?.textTree;
    return tree ? vscode.Uri.file(join(tree.folderPath, `${name}.js`)) : atomUri(name);
  }

  /** One atom changed: only its item (a reload, or an unknown change, syncs them all). */
  private follows(change: StoreChange): void {
    if (change.kind === 'reload' || !this.workspace) return this.sync();
    const name = change.atom.name;
    const atom = this.workspace.atoms.get(name);
    if (atom && hasChecks(atom)) {
      this.syncItem(atom);
      return;
    }
    this.controller.items.delete(name);
    if (this.diagnosed.has(name)) this.showResults([name], false);
  }

  /** The items follow the store: one per atom with checks, children per example. */
  private sync(): void {
    const workspace = this.workspace;
    const atoms = workspace ? workspace.atoms.all().filter(hasChecks) : [];
    const keep = new Set(atoms.map((a) => a.name));
    this.controller.items.forEach((item) => {
      if (!keep.has(item.id)) this.controller.items.delete(item.id);
    });
    for (const atom of atoms) this.syncItem(atom);
    // Diagnostics of atoms that are gone (or lost their checks) go too; the rest follow their results.
    const gone = [...this.diagnosed.keys()].filter((n) => !keep.has(n));
    if (gone.length > 0) this.showResults(gone, false);
  }

  private syncItem(atom: Atom): vscode.TestItem {
    const uri = this.uriOf(atom.name);
    let item = this.controller.items.get(atom.name);
    if (!item || item.uri?.toString() !== uri.toString()) {
      item = this.controller.createTestItem(atom.name, atom.name, uri);
      this.controller.items.add(item);
    }
    const lines = this.documentLines(atom);
    item.range = lineRange(lines.functionLine);
    item.description = atom.type === 'test' ? 'test' : undefined;
    const children: vscode.TestItem[] = [];
    for (const [index, example] of (atom.examples ?? []).entries()) {
      if (atom.type === 'test') break;
      const label = formatExample(atom.name, example);
      const id = `${atom.name}#${index}`;
      let child = item.children.get(id);
      if (!child || child.label !== label) child = this.controller.createTestItem(id, label, uri);
      child.range = lineRange(lines.exampleLines[index] ?? lines.functionLine);
      children.push(child);
    }
    item.children.replace(children);
    return item;
  }

  /** The item a result belongs to: the example's child, or the test atom's item. */
  private itemOf(result: CheckResult): vscode.TestItem | undefined {
    const item = this.controller.items.get(result.atom);
    if (result.kind === 'test') return item;
    return item?.children.get(`${result.atom}#${result.index}`);
  }

  /** Where a failing check points: the failing line in the atom's own code, else its @example or function line. */
  private locationOf(result: CheckResult, lines: AtomDocumentLines | undefined): vscode.Location {
    const uri = this.uriOf(result.atom);
    if (!lines) return new vscode.Location(uri, lineRange(0));
    if (result.at && result.at.atom === result.atom) return new vscode.Location(uri, lineRange(lines.codeStart + result.at.line - 1));
    const line = result.kind === 'example' ? (lines.exampleLines[result.index] ?? lines.functionLine) : lines.functionLine;
    return new vscode.Location(uri, lineRange(line));
  }

  /** Where it failed when that is inside another atom (a dependency): for the message's related information. */
  private failedInOtherAtom(result: CheckResult): vscode.Location | undefined {
    const at = result.at;
    if (!at || at.atom === result.atom) return undefined;
    const other = this.workspace?.atoms.get(at.atom);
    if (!other) return undefined;
    return new vscode.Location(this.uriOf(at.atom), lineRange(this.documentLines(other).codeStart + at.line - 1));
  }

  private linesOf(name: string): AtomDocumentLines | undefined {
    const atom = this.workspace?.atoms.get(name);
    return atom ? this.documentLines(atom) : undefined;
  }

  /** The lines of the atom's document as its editor shows it (its file's own header layout when there is one). */
  private documentLines(atom: Atom): AtomDocumentLines {
    return atomDocumentLines(atom, this.workspace?.textTree?.documentText(atom));
  }

  /** Diagnostics for these atoms' latest results; with `report`, a test run carrying them (a run after a change). */
  private showResults(names: readonly string[], report: boolean): void {
    const verification = this.workspace?.verification;
    for (const name of names) {
      const previous = this.diagnosed.get(name);
      if (previous) this.diagnostics.delete(previous);
      this.diagnosed.delete(name);
      const results = verification?.resultsOf(name) ?? [];
      const failing = results.filter((r) => !r.ok);
      if (failing.length === 0) continue;
      const lines = this.linesOf(name);
      const uri = this.uriOf(name);
      this.diagnostics.set(
        uri,
        failing.map((r) => {
          const d = new vscode.Diagnostic(this.locationOf(r, lines).range, r.message ?? `${r.label} failed`, vscode.DiagnosticSeverity.Error);
          d.source = CHECKS_DIAGNOSTIC_SOURCE;
          d.code = r.kind === 'example' ? `example ${r.index + 1}` : 'test';
          const other = this.failedInOtherAtom(r);
          if (other) d.relatedInformation = [new vscode.DiagnosticRelatedInformation(other, `thrown in ${r.at!.atom} at line ${r.at!.line}`)];
          return d;
        }),
      );
      this.diagnosed.set(name, uri);
    }
    if (report && this.requested === 0 && verification) {
      const results = names.flatMap((n) => [...verification.resultsOf(n)]);
      if (results.length > 0) this.report(results, 'Atom checks (after a change)');
    }
    this.resultsChanged.fire(names);
  }

  /** One finished test run with these results (the runner already ran them). */
  private report(results: readonly CheckResult[], name: string): void {
    const items = uniqueItems(results.map((r) => this.controller.items.get(r.atom)));
    if (items.length === 0) return;
    const run = this.controller.createTestRun(new vscode.TestRunRequest(items), name, true);
    const outcome = this.record(run, results);
    run.end();
    this.runs.fire({ name, ...outcome });
  }

  private record(run: vscode.TestRun, results: readonly CheckResult[]): { passed: string[]; failed: string[] } {
    const outcome = { passed: [] as string[], failed: [] as string[] };
    const byAtom = new Map<string, CheckResult[]>();
    for (const r of results) byAtom.set(r.atom, [...(byAtom.get(r.atom) ?? []), r]);
    for (const [atom, of] of byAtom) {
      const lines = this.linesOf(atom);
      for (const r of of) {
        const item = this.itemOf(r);
        if (!item) continue;
        if (r.ok) {
          run.passed(item, r.ms);
          outcome.passed.push(item.id);
          continue;
        }
        const message = new vscode.TestMessage(r.message ?? `${r.label} failed`);
        message.location = this.failedInOtherAtom(r) ?? this.locationOf(r, lines);
        run.failed(item, message, r.ms);
        outcome.failed.push(item.id);
      }
      // An atom with examples: its own item sums its children.
      const parent = this.controller.items.get(atom);
      if (parent && of[0]!.kind === 'example') {
        const ms = of.reduce((sum, r) => sum + r.ms, 0);
        if (of.every((r) => r.ok)) run.passed(parent, ms);
        // No message of its own: the failing example's is at its @example line; one here would repeat it at the function line.
        else run.failed(parent, [], ms);
      }
    }
    return outcome;
  }

  /** Run (Test Explorer, gutter, testing.runAll): the runner runs the atoms now; their results are reported. */
  private async runRequest(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    const verification = this.workspace?.verification;
    const run = this.controller.createTestRun(request, 'Atom checks', true);
    let outcome = { passed: [] as string[], failed: [] as string[] };
    this.requested++;
    try {
      if (!verification) {
        run.appendOutput('The atom store is not open.\r\n');
        return;
      }
      const excluded = new Set((request.exclude ?? []).map((i) => i.id));
      const included: vscode.TestItem[] = [];
      if (request.include) included.push(...request.include);
      else this.controller.items.forEach((i) => included.push(i));
      const wanted = included.filter((i) => !excluded.has(i.id));
      const names = [...new Set(wanted.map((i) => i.id.split('#')[0]!))];
      for (const item of wanted) run.started(item);
      if (token.isCancellationRequested || names.length === 0) return;
      // A chosen example runs with its atom's others (one quick sandbox call each), and the checks of the
      // atoms that depend on the chosen ones run too: all are results of this run, all are shown.
      outcome = this.record(run, await verification.run(names));
    } catch (err) {
      run.appendOutput(`The checks could not run: ${(err as Error).message}\r\n`);
    } finally {
      this.requested--;
      run.end();
      this.runs.fire({ name: 'Atom checks', ...outcome });
    }
  }

  dispose(): void {
    this.verificationSubscription?.dispose();
    for (const s of this.subscriptions) s.dispose();
  }
}

function lineRange(line: number): vscode.Range {
  return new vscode.Range(Math.max(0, line), 0, Math.max(0, line), 1000);
}

function uniqueItems(items: (vscode.TestItem | undefined)[]): vscode.TestItem[] {
  return [...new Set(items.filter((i): i is vscode.TestItem => i !== undefined))];
}
