/**
 * Auto-save does not flood history (a good citizen): with files.autoSave afterDelay, typing in an atom
 * holds its text until the user leaves the editor, which makes one version; half-typed code that does
 * not parse is shown as a problem on its editor line, not saved and not bundled. (Runs last: its atom
 * would change what the other files' tests count.)
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { AtomicCodingApi } from '../../../src/extension.js';
import { readyExtension, report, until } from './support.js';

describe('Auto-save folds typing into one version', function () {
  this.timeout(90_000);
  let api: AtomicCodingApi;
  const files = () => vscode.workspace.getConfiguration('files');

  before(async () => {
    ({ api } = await readyExtension());
    await files().update('autoSave', 'afterDelay', vscode.ConfigurationTarget.Global);
    await files().update('autoSaveDelay', 100, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await files().update('autoSave', 'off', vscode.ConfigurationTarget.Global);
    await files().update('autoSaveDelay', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('typing with auto-save on makes one version when the editor is left; broken code is a problem on its line', async () => {
    await vscode.commands.executeCommand('atomicCoding.newAtom', 'typing_test', 'util', 'Typing test');
    const uri = vscode.Uri.parse('atom:/typing_test.js');
    const document = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(document);
    const version = () => api.lifecycle!.get('typing_test')!.version;
    assert.equal(version(), 1);
    const bodyLine = document.getText().split('\n').indexOf('function typing_test() {') + 1;
    for (let i = 0; i < 5; i++) {
      await editor.edit((e) => e.insert(new vscode.Position(bodyLine, 0), `  // step ${i}\n`));
      await until('auto-save', () => !document.isDirty, 10_000);
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(version(), 1, 'five auto-saves while typing made no version');
    // Half-typed code: auto-saved, held, not in the store, no error notification.
    await editor.edit((e) => e.insert(new vscode.Position(bodyLine, 0), '  return 1 +;\n'));
    await until('auto-save of the broken text', () => !document.isDirty, 10_000);
    const brokenLine = document.getText().split('\n').indexOf('  return 1 +;') + 1;
    // Leave the editor: the held text goes to the store, which refuses it; a problem on its line.
    await vscode.commands.executeCommand('workbench.action.files.newUntitledFile');
    const problems = await until('a problem for the half-typed code', () => {
      const d = vscode.languages.getDiagnostics(uri).filter((x) => x.source === 'Atomic Coding');
      return d.length > 0 && d;
    });
    assert.equal(version(), 1, 'the half-typed code is not saved');
    assert.equal(problems[0]!.range.start.line + 1, brokenLine, `problem at editor line ${problems[0]!.range.start.line + 1}, broken code at ${brokenLine}: ${problems[0]!.message}`);
    // Fix it, leave again: one version with everything typed.
    const again = await vscode.window.showTextDocument(document);
    await again.edit((e) => e.replace(new vscode.Range(brokenLine - 1, 0, brokenLine, 0), '  return 1;\n'));
    await until('auto-save of the fixed text', () => !document.isDirty, 10_000);
    assert.equal(version(), 1);
    await vscode.commands.executeCommand('workbench.action.files.newUntitledFile');
    await until('the version made when leaving the editor', () => version() === 2);
    const atom = api.lifecycle!.get('typing_test')!;
    assert.ok(atom.code.includes('// step 4') && atom.code.includes('return 1;'), atom.code);
    await until('the problem cleared', () => vscode.languages.getDiagnostics(uri).filter((x) => x.source === 'Atomic Coding').length === 0);
    report(`auto-save: 7 auto-saves while typing, one version when the editor was left (v${atom.version}); half-typed code shown at editor line ${problems[0]!.range.start.line + 1}, not saved`);
  });

  it('in an atoms/<name>.js editor too: auto-saves while typing make one version when the editor is left; half-typed code is not reported meanwhile', async () => {
    const ws = api.lifecycle!.workspace!;
    await ws.upsert({ name: 'file_typing', type: 'util', description: 'File typing', code: 'function file_typing() {\n  return 0;\n}' });
    await ws.textTree!.written();
    const uri = vscode.Uri.file(join(ws.textTree!.folderPath, 'file_typing.js'));
    const document = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(document);
    const version = () => api.lifecycle!.get('file_typing')!.version;
    const fromTextTree = () => vscode.languages.getDiagnostics(uri).filter((d) => d.message.includes('the last good version'));
    const bodyLine = document.getText().split('\n').indexOf('function file_typing() {') + 1;
    for (let i = 0; i < 4; i++) {
      await editor.edit((e) => e.insert(new vscode.Position(bodyLine, 0), `  // step ${i}\n`));
      await until('auto-save', () => !document.isDirty, 10_000);
      await new Promise((r) => setTimeout(r, 300));
    }
    assert.ok(readFileSync(uri.fsPath, 'utf8').includes('// step 3'), 'auto-save wrote the file');
    assert.equal(version(), 1, 'four auto-saves of the file while typing made no version');
    await editor.edit((e) => e.insert(new vscode.Position(bodyLine, 0), '  return 1 +;\n'));
    await until('auto-save of the broken text', () => !document.isDirty, 10_000);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(version(), 1, 'the half-typed code is not imported');
    assert.deepEqual(fromTextTree().map((d) => d.message), [], 'nor reported while typing');
    const brokenLine = document.getText().split('\n').indexOf('  return 1 +;');
    await editor.edit((e) => e.replace(new vscode.Range(brokenLine, 0, brokenLine + 1, 0), ''));
    await until('auto-save of the fixed text', () => !document.isDirty, 10_000);
    assert.equal(version(), 1);
    // Leave the editor: one version with everything typed.
    await vscode.commands.executeCommand('workbench.action.files.newUntitledFile');
    await until('the version made when leaving the editor', () => version() === 2);
    const atom = api.lifecycle!.get('file_typing')!;
    assert.ok(atom.code.includes('// step 3') && atom.code.includes('// step 0'), atom.code);
    report(`auto-save in atoms/file_typing.js: 6 auto-saves while typing, one version when the editor was left (v${atom.version})`);
  });

  it('a held auto-save never goes over a version made outside meanwhile: a problem says so, the text stays, a save by hand keeps it', async () => {
    await vscode.commands.executeCommand('atomicCoding.newAtom', 'held_test', 'util', 'Held test');
    const uri = vscode.Uri.parse('atom:/held_test.js');
    const document = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(document);
    const atom = () => api.lifecycle!.get('held_test')!;
    const bodyLine = document.getText().split('\n').indexOf('function held_test() {') + 1;
    await editor.edit((e) => e.insert(new vscode.Position(bodyLine, 0), '  // mine\n'));
    await until('auto-save', () => !document.isDirty, 10_000);
    // An agent changes the same atom while the typed text is held.
    const outside = atom();
    await api.lifecycle!.workspace!.upsert({ ...outside, description: outside.description ?? undefined, code: outside.code.replace('{', '{\n  // theirs') });
    assert.equal(atom().version, 2);
    await vscode.commands.executeCommand('workbench.action.files.newUntitledFile');
    const problem = await until('the conflict shown', () => vscode.languages.getDiagnostics(uri).find((x) => /changed outside \(now v2\)/.test(x.message)));
    assert.match(problem.message, /Save by hand/);
    assert.equal(atom().version, 2, 'the held text did not go over the newer version');
    assert.ok(atom().code.includes('// theirs') && !atom().code.includes('// mine'), atom().code);
    // Back in the editor, the typed text is still there; a save by hand keeps it as a new version.
    const again = await vscode.window.showTextDocument(document);
    assert.ok(again.document.getText().includes('// mine'), 'the edits are still in the editor');
    await files().update('autoSave', 'off', vscode.ConfigurationTarget.Global);
    const line = again.document.getText().split('\n').indexOf('  // mine');
    await again.edit((e) => e.insert(new vscode.Position(line + 1, 0), '  // and more\n'));
    await vscode.commands.executeCommand('workbench.action.files.save');
    await until('saved by hand', () => atom().version === 3);
    assert.ok(atom().code.includes('// mine') && atom().code.includes('// and more'), atom().code);
    report(`auto-save conflict: held text kept over an outside v2, saved by hand as v${atom().version}`);
  });
});
