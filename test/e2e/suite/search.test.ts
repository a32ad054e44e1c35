/**
 * Search Atoms inside the real extension host: the quick pick runs the same search as the agents'
 * semantic_search (the shipped embedding model, fused with words), ranks an atom found only by its
 * meaning first, pins an atom named in the query, and opens the atom the user accepts.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AtomicCodingApi } from '../../../src/extension.js';
import { readyExtension, report, until } from './support.js';

/** The parts of the command's result this test reads. */
interface SearchItem extends vscode.QuickPickItem {
  name: string;
}
interface AtomSearchLike {
  quickPick: vscode.QuickPick<SearchItem>;
  results(): Promise<readonly SearchItem[]>;
}

describe('Search Atoms', function () {
  this.timeout(90_000);
  let api: AtomicCodingApi;

  before(async () => {
    ({ api } = await readyExtension());
    assert.equal(api.lifecycle?.state, 'ready', api.lifecycle?.error);
    await api.lifecycle!.workspace!.upsertMany([
      {
        name: 'search_clamp',
        type: 'util',
        description: 'Keeps a number between a lower and an upper bound',
        code: 'function search_clamp(x, lo, hi) {\n  return Math.min(hi, Math.max(lo, x));\n}\n',
        inputs: [{ name: 'x', type: 'number' }, { name: 'lo', type: 'number' }, { name: 'hi', type: 'number' }],
        outputs: [{ name: 'clamped', type: 'number' }],
      },
      {
        name: 'search_greet',
        type: 'feature',
        description: 'Builds the welcome message shown to a player',
        code: 'function search_greet(player) {\n  return "Welcome, " + player + "!";\n}\n',
        inputs: [{ name: 'player', type: 'string' }],
        outputs: [{ name: 'message', type: 'string' }],
      },
    ]);
  });

  it('the first search after a start does not wait for the model: words rank it, the title says so; then meaning', async () => {
    const search = api.lifecycle!.workspace!.search;
    const first = await search.search('search_greet');
    assert.equal(first.hits[0]?.atom.name, 'search_greet', 'a query naming an atom finds it first, model or not');
    report(`first search after the start: ${first.modelStarting ? 'by words (the model was still starting)' : 'with meaning (the model was up)'}`);
    // The model goes on starting; the next searches use meaning.
    await until('the model to answer', async () => !(await search.search('restrict a value to a range')).modelStarting, 60_000);
    // The packaged extension ships onnxruntime for this platform: the model's process, started by the
    // extension host with its own Node, runs the model on it (not on tfjs's slower wasm backend).
    const model = api.lifecycle!.workspace!.embeddings.memory?.();
    report(`the model process: ${JSON.stringify(model)}`);
    assert.equal(model?.runtime, 'onnxruntime', 'the model runs on onnxruntime in the extension host');
  });

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('finds an atom by what it does, with none of its words, and shows its signature and description', async () => {
    const search = await vscode.commands.executeCommand<AtomSearchLike>('atomicCoding.searchAtoms', 'restrict a value to a range');
    const items = await search.results();
    const names = items.map((i) => i.name);
    assert.ok(names.includes('search_clamp'), `search_clamp is found: ${names.join(', ')}`);
    assert.ok(names.indexOf('search_clamp') < names.indexOf('search_greet') || !names.includes('search_greet'), `clamp ranks above greet: ${names.join(', ')}`);
    const clamp = items.find((i) => i.name === 'search_clamp')!;
    assert.match(clamp.description ?? '', /^similarity 0\.\d\d · util · \(x: number, lo: number, hi: number\) => number$/);
    assert.equal(clamp.detail, 'Keeps a number between a lower and an upper bound');
    assert.ok(items.every((i) => i.alwaysShow), "every result stays visible whatever the pick's own filter thinks");
    assert.equal(search.quickPick.busy, false);
  });

  it('lists every atom by name before anything is typed', async () => {
    const search = await vscode.commands.executeCommand<AtomSearchLike>('atomicCoding.searchAtoms');
    const names = (await search.results()).map((i) => i.name);
    const all = api.lifecycle!.workspace!.atoms.all().map((a) => a.name);
    assert.deepEqual(names, [...all].sort((a, b) => a.localeCompare(b)));
    assert.ok(names.includes('search_clamp'));
  });

  it('pins an atom named in the query first, and opens the accepted result in its editor', async () => {
    const search = await vscode.commands.executeCommand<AtomSearchLike>('atomicCoding.searchAtoms', 'search_greet');
    const items = await search.results();
    assert.equal(items[0]?.name, 'search_greet');
    assert.match(items[0]?.description ?? '', /^name match · feature · \(player: string\) => string$/);
    // The pick's changes reach the workbench in a batch after this tick, so choose the row, wait until
    // the workbench reports it active, then accept it as Enter would.
    const active = new Promise<void>((resolve) => search.quickPick.onDidChangeActive((a) => a[0]?.name === 'search_greet' && resolve()));
    search.quickPick.activeItems = [items[0]!];
    await active;
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    const editor = await until('the accepted atom to open', () =>
      vscode.window.activeTextEditor?.document.uri.toString() === 'atom:/search_greet.js' ? vscode.window.activeTextEditor : undefined,
    );
    assert.match(editor.document.getText(), /function search_greet\(player\)/);
  });
});
