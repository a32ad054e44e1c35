/**
 * History and undo from the tree, inside the real extension host: the commands restore an old version
 * of an atom (as a new version, the atom_history tool's rules) and bring back a deleted atom; the
 * version compare opens VS Code's diff on the read-only `atom-history:` document. The commands are
 * called with their arguments, as the tree's menus and other commands do, so no prompt is shown.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AtomicCodingApi } from '../../../src/extension.js';
import { readyExtension, until } from './support.js';

interface RestoreReport {
  name: string;
  from: number;
  version: number;
}

describe('History and undo in the tree', function () {
  this.timeout(60_000);
  let api: AtomicCodingApi;

  before(async () => {
    ({ api } = await readyExtension());
    assert.equal(api.lifecycle?.state, 'ready', api.lifecycle?.error);
  });

  it('Show History restores version 1 of an atom that was changed, as a new version', async () => {
    const workspace = api.lifecycle!.workspace!;
    const v1 = 'function history_speed() {\n  return 1;\n}\n';
    const first = await workspace.upsert({ name: 'history_speed', type: 'util', code: v1, description: 'Speed, first take' });
    await workspace.upsert({ name: 'history_speed', type: 'util', code: 'function history_speed() {\n  return 2;\n}\n', description: 'Speed, second take' });
    const before = api.lifecycle!.get('history_speed')!;
    assert.equal(before.version, first.result.atom.version + 1);

    // Compare opens a diff of the old version's read-only document against the atom's editor.
    await vscode.commands.executeCommand('atomicCoding.showHistory', 'history_speed', first.result.atom.version, 'compare');
    const old = await until('the old version open as an atom-history: document', () =>
      vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'atom-history' && d.uri.path === '/history_speed.js'),
    );
    assert.ok(old.getText().endsWith(v1), 'it shows the old code');
    assert.match(old.getText(), /Speed, first take/);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');

    const report = (await vscode.commands.executeCommand('atomicCoding.showHistory', 'history_speed', first.result.atom.version, 'restore')) as RestoreReport;
    assert.deepEqual(report, { name: 'history_speed', from: first.result.atom.version, version: before.version + 1 });
    const after = api.lifecycle!.get('history_speed')!;
    assert.equal(after.code, v1);
    assert.equal(after.description, 'Speed, first take');
    assert.equal(after.version, before.version + 1, 'a restore is a new version; the history keeps the one it replaced');
    assert.equal(workspace.atoms.history('history_speed').length, 3);
  });

  it('Show History refuses a version that does not exist, and changes nothing', async () => {
    const before = api.lifecycle!.get('history_speed')!;
    const report = await vscode.commands.executeCommand('atomicCoding.showHistory', 'history_speed', 99, 'restore');
    assert.equal(report, undefined);
    assert.deepEqual(api.lifecycle!.get('history_speed'), before);
  });

  it('Restore Deleted Atom brings back a deleted atom as it was last', async () => {
    const workspace = api.lifecycle!.workspace!;
    const code = 'function history_gone() {\n  return "back";\n}\n';
    await workspace.upsert({ name: 'history_gone', type: 'feature', code });
    assert.equal(await vscode.commands.executeCommand('atomicCoding.deleteAtom', 'history_gone', { confirmed: true }), true);
    assert.equal(api.lifecycle!.get('history_gone'), undefined);
    assert.ok(workspace.atoms.deletedAtoms().some((d) => d.name === 'history_gone'), 'listed among the deleted atoms');

    const report = (await vscode.commands.executeCommand('atomicCoding.restoreDeleted', 'history_gone')) as RestoreReport;
    assert.equal(report.name, 'history_gone');
    assert.equal(report.from, 1);
    const restored = api.lifecycle!.get('history_gone');
    assert.ok(restored, 'the atom is back');
    assert.equal(restored.code, code);
    assert.equal(restored.type, 'feature');
    assert.equal(restored.version, report.version);
    assert.ok(!workspace.atoms.deletedAtoms().some((d) => d.name === 'history_gone'), 'no longer listed as deleted');
  });
});
