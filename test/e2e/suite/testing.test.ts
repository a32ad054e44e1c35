/**
 * The checks in VS Code: atoms with examples and test atoms as items of the Test Explorer (at their
 * file and lines), run with VS Code's own testing.runAll, failures in the Problems panel at the failing
 * line and in the Atoms tree, and all of it following changes made through the workspace.
 * Runs last (file order), on the atoms the earlier files left; it adds and removes its own.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import type { AtomicCodingApi } from '../../../src/extension.js';
import type { AtomNode } from '../../../src/views/atomTree.js';
import { CHECKS_DIAGNOSTIC_SOURCE } from '../../../src/views/checksTests.js';
import { readyExtension, report, until } from './support.js';

const clamp = {
  name: 'checks_clamp',
  type: 'util' as const,
  code: 'function checks_clamp(value, min, max) {\n  return Math.min(max, Math.max(min, value));\n}',
  inputs: [
    { name: 'value', type: 'number' as const },
    { name: 'min', type: 'number' as const },
    { name: 'max', type: 'number' as const },
  ],
  outputs: [{ name: 'clamped', type: 'number' as const }],
  description: 'Clamp a number between min and max',
  examples: [
    { args: [5, 0, 3], returns: 3 },
    { args: [-1, 0, 3], returns: 0 },
    // Wrong on purpose: clamp(2, 0, 3) is 2.
    { args: [2, 0, 3], returns: 5 },
  ],
};

const scenario = {
  name: 'test_checks_clamp_range',
  type: 'test' as const,
  code: 'function test_checks_clamp_range() {\n  const low = checks_clamp(-5, 0, 10);\n  assert(low === 0, "low end");\n  assert(checks_clamp(50, 0, 10) === 11, "high end is 11");\n}',
};

function labelsOf(items: vscode.TestItemCollection): string[] {
  const out: string[] = [];
  items.forEach((i) => out.push(i.label));
  return out;
}

function checkDiagnostics(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === CHECKS_DIAGNOSTIC_SOURCE);
}

function lineOf(text: string, fragment: string): number {
  const i = text.split('\n').findIndex((l) => l.includes(fragment));
  assert.ok(i >= 0, `${fragment} is in the file`);
  return i;
}

function treeItemOf(api: AtomicCodingApi, name: string): vscode.TreeItem {
  const groups = api.tree.getChildren();
  for (const g of groups) {
    const node = api.tree.getChildren(g).find((n: AtomNode) => n.kind === 'atom' && n.name === name);
    if (node) return api.tree.getTreeItem(node);
  }
  throw new Error(`${name} is not in the tree`);
}

describe('Atom checks in the Test Explorer, the Problems panel and the tree', function () {
  this.timeout(60_000);
  let api: AtomicCodingApi;

  before(async () => {
    api = (await readyExtension()).api;
    assert.ok(api.checks, 'the checks view exists when a folder is open');
  });

  after(async () => {
    const workspace = api.lifecycle?.workspace;
    for (const name of [scenario.name, clamp.name]) if (workspace?.atoms.has(name)) await workspace.delete(name);
  });

  it('lists every atom with examples (a child per example) and every test atom, at their file and lines', async () => {
    const workspace = api.lifecycle!.workspace!;
    await workspace.upsert(clamp);
    await workspace.upsert(scenario);
    const controller = api.checks!.controller;
    const item = await until('the clamp item with three examples', () => {
      const i = controller.items.get(clamp.name);
      return i && i.children.size === 3 && i;
    });
    assert.ok(controller.items.get(scenario.name), 'the test atom is an item');
    assert.equal(controller.items.get(scenario.name)!.children.size, 0, 'a test atom is one item');
    assert.ok(!controller.items.get('physics_config'), 'atoms without checks are not items');
    // The text tree's file (atoms/checks_clamp.js), its function line and @example lines.
    await workspace.textTree!.written();
    assert.equal(item.uri!.scheme, 'file');
    assert.match(item.uri!.fsPath, /\/atoms\/checks_clamp\.js$/);
    const text = readFileSync(item.uri!.fsPath, 'utf8');
    assert.equal(item.range!.start.line, lineOf(text, 'function checks_clamp('));
    const children: vscode.TestItem[] = [];
    item.children.forEach((c) => children.push(c));
    assert.deepEqual(children.map((c) => c.label), ['checks_clamp(5, 0, 3) => 3', 'checks_clamp(-1, 0, 3) => 0', 'checks_clamp(2, 0, 3) => 5']);
    assert.equal(children[2]!.range!.start.line, lineOf(text, '@example checks_clamp(2, 0, 3) => 5'));
    report(`Test Explorer items: ${labelsOf(controller.items).join(', ')}; clamp's examples at lines ${children.map((c) => c.range!.start.line + 1).join(', ')} of ${item.uri!.fsPath}`);
  });

  it('shows failing checks in the Problems panel at the failing line, after the background run', async () => {
    const clampUri = api.checks!.uriOf(clamp.name);
    const testUri = api.checks!.uriOf(scenario.name);
    const [example] = await until('a diagnostic for the failing example', () => {
      const d = checkDiagnostics(clampUri);
      return d.length > 0 && d;
    });
    const clampText = readFileSync(clampUri.fsPath, 'utf8');
    assert.equal(example!.range.start.line, lineOf(clampText, '@example checks_clamp(2, 0, 3) => 5'));
    assert.match(example!.message, /checks_clamp\(2, 0, 3\) returned 2, expected 5/);
    assert.equal(example!.severity, vscode.DiagnosticSeverity.Error);
    assert.equal(checkDiagnostics(clampUri).length, 1, 'only the failing example');
    const [failedAssert] = await until('a diagnostic for the failing test', () => {
      const d = checkDiagnostics(testUri);
      return d.length > 0 && d;
    });
    const testText = readFileSync(testUri.fsPath, 'utf8');
    assert.equal(failedAssert!.range.start.line, lineOf(testText, 'high end is 11'), 'at the failing assert, not the function line');
    assert.match(failedAssert!.message, /high end is 11/);
    report(`Problems: "${example!.message}" at line ${example!.range.start.line + 1}; "${failedAssert!.message}" at line ${failedAssert!.range.start.line + 1}`);
  });

  it('marks the atom in the tree: a red error icon, the count, the message in the tooltip', async () => {
    const item = await until('the tree shows the failure', () => {
      const i = treeItemOf(api, clamp.name);
      return String(i.description).includes('failing') && i;
    });
    assert.match(String(item.description), /^✗ 1 of 3 examples failing · \(value: number, min: number, max: number\) => number$/);
    assert.equal((item.iconPath as vscode.ThemeIcon).id, 'error');
    // The tooltip's Markdown escapes text: spaces as &nbsp;, parentheses with a backslash.
    const tooltip = (item.tooltip as vscode.MarkdownString).value.replace(/&nbsp;/g, ' ').replace(/\\/g, '');
    assert.match(tooltip, /Checks:\*\* ✗ 1 of 3 examples failing/);
    assert.match(tooltip, /✗ checks_clamp\(2, 0, 3\) returned 2, expected 5/);
    assert.match(String(treeItemOf(api, scenario.name).description), /✗ test failing/);
  });

  it("runs them from VS Code's testing.runAll, reporting each example and test", async () => {
    const ended = new Promise<{ name: string; passed: string[]; failed: string[] }>((resolve) => {
      const sub = api.checks!.onDidEndRun((e) => {
        if (e.name !== 'Atom checks') return;
        sub.dispose();
        resolve(e);
      });
    });
    // As a person would: Run All, and again if nothing ran. The command resolves once its run is over,
    // or at once with "No tests found" while VS Code has not taken the controller's items in yet (its
    // root counts only once the items arrive), so a short wait after it tells the two apart.
    let run: Awaited<typeof ended> | undefined;
    for (let attempt = 0; attempt < 10 && !run; attempt++) {
      await vscode.commands.executeCommand('testing.runAll');
      run = await Promise.race([ended, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 2_000))]);
    }
    assert.ok(run, 'no run after testing.runAll, ten times');
    assert.ok(run.failed.includes(`${clamp.name}#2`), JSON.stringify(run));
    assert.ok(run.passed.includes(`${clamp.name}#0`) && run.passed.includes(`${clamp.name}#1`), JSON.stringify(run));
    assert.ok(run.failed.includes(scenario.name), JSON.stringify(run));
    report(`testing.runAll: passed ${run.passed.join(', ')}; failed ${run.failed.join(', ')}`);
  });

  it('follows changes: a fixed example clears its problem and the tree says ✓, a removed test atom leaves the explorer', async () => {
    const workspace = api.lifecycle!.workspace!;
    const clampUri = api.checks!.uriOf(clamp.name);
    const testUri = api.checks!.uriOf(scenario.name);
    await workspace.upsert({ ...clamp, examples: [...clamp.examples.slice(0, 2), { args: [2, 0, 3], returns: 2 }] });
    await until('the example problem cleared', () => checkDiagnostics(clampUri).length === 0);
    await until('the tree shows the examples passing', () => String(treeItemOf(api, clamp.name).description).endsWith('✓ 3 examples'));
    assert.equal((treeItemOf(api, clamp.name).iconPath as vscode.ThemeIcon).id, 'tools', 'the type icon is back');
    await until('the item label follows the new example', () => api.checks!.controller.items.get(clamp.name)?.children.get(`${clamp.name}#2`)?.label === 'checks_clamp(2, 0, 3) => 2');
    await workspace.delete(scenario.name);
    await until('the test atom leaves the explorer', () => !api.checks!.controller.items.get(scenario.name));
    await until('its problem goes with it', () => checkDiagnostics(testUri).length === 0);
  });
});
