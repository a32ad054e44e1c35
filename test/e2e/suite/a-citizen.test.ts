/**
 * A good citizen of VS Code (runs first, on the suite's fresh empty folder): the extension activates
 * without writing anything into a folder that holds no atoms, shows the "not started" welcome, and
 * writes .atomic/ only once the user asks (Start Atomic Coding Here).
 */
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { AtomicCodingApi } from '../../../src/extension.js';
import { EXTENSION_ID, report } from './support.js';

describe('A good citizen: nothing written until asked', function () {
  this.timeout(60_000);

  it('activates in a folder without atoms and writes nothing there', async () => {
    const folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const before = readdirSync(folder);
    const extension = vscode.extensions.getExtension<AtomicCodingApi>(EXTENSION_ID)!;
    const api = extension.isActive ? extension.exports : await extension.activate();
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(api.lifecycle?.state, 'idle', 'the store is not opened at activation');
    assert.ok(!existsSync(join(folder, '.atomic')), 'no .atomic/ written at activation');
    assert.ok(!existsSync(join(folder, 'atoms')), 'no atoms/ written at activation');
    assert.deepEqual(readdirSync(folder), before, 'the folder is as it was');
    assert.throws(() => api.lifecycle!.requireWorkspace(), /not started in this folder/);
    report(`activation in a folder without atoms wrote nothing (${before.length} entries before and after)`);
  });

  it('Start Atomic Coding Here opens the store and starts the server', async () => {
    const folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const state = await vscode.commands.executeCommand<string>('atomicCoding.startHere');
    assert.equal(state, 'ready');
    assert.ok(existsSync(join(folder, '.atomic')), '.atomic/ written once asked');
  });
});
