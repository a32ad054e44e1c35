/**
 * Hot swap in the VS Code preview panel, in the real extension host and its real webview: a changed atom's
 * new code runs in the page that is already running, the page keeps its state (a counter in the boot
 * atom's closure goes on from where it was), and the panel reports `swapped: <names>`; a change to the
 * boot atom restarts the page instead (the counter starts over).
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AtomicCodingApi } from '../../../src/extension.js';
import { readyExtension, report, until } from './support.js';

type Report = { type: 'console'; text: string } | { type: 'swapped'; names: string[]; generation: number } | { type: string };
interface PreviewPanelLike {
  loadedGeneration: number;
  panel: vscode.WebviewPanel;
  onDidReport: vscode.Event<Report>;
}

const label = (letter: string) => `function hs_label() {\n  return '${letter}';\n}\n`;
const loop = (ms: number) =>
  `function game_loop() {\n  let ticks = 0;\n  setInterval(() => {\n    ticks += 1;\n    console.log('hs ' + hs_label() + ' ' + ticks);\n  }, ${ms});\n}\n`;

describe('Hot swap in the live preview panel', function () {
  this.timeout(120_000);
  let api: AtomicCodingApi;
  const disposables: vscode.Disposable[] = [];
  const workspace = () => api.lifecycle!.workspace!;

  before(async () => {
    ({ api } = await readyExtension());
    await until('the session', () => api.lifecycle?.state === 'ready');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await workspace().upsertMany([
      { name: 'hs_label', type: 'util', code: label('A') },
      { name: 'game_loop', type: 'core', code: loop(100), dependencies: ['hs_label'] },
    ]);
    await workspace().builder.idle();
  });

  after(async () => {
    for (const d of disposables.splice(0)) d.dispose();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('a changed atom is swapped into the running page: the panel says swapped, the new code runs, and the counter goes on', async () => {
    const preview = await vscode.commands.executeCommand<PreviewPanelLike>('atomicCoding.openPreview');
    const lines: string[] = [];
    const swaps: string[][] = [];
    disposables.push(
      preview.onDidReport((m) => {
        if (m.type === 'console' && 'text' in m) lines.push(m.text);
        if (m.type === 'swapped' && 'names' in m) swaps.push(m.names);
      }),
    );
    /** The counts the page logged with `letter`, in order. */
    const counts = (letter: string, from = 0) =>
      lines.slice(from).flatMap((l) => {
        const m = new RegExp(`^hs ${letter} (\\d+)$`).exec(l);
        return m ? [Number(m[1])] : [];
      });

    await until('the page to count to 5 with the first label', () => counts('A').some((n) => n >= 5), 60_000);
    const before = Math.max(...counts('A'));
    const generation = preview.loadedGeneration;
    await workspace().upsert({ name: 'hs_label', type: 'util', code: label('B') });
    const swapped = await until('the panel to report the swap', () => swaps.find((names) => names.includes('hs_label')), 60_000);
    assert.deepEqual(swapped, ['hs_label'], 'only the changed atom is swapped');
    const afterSwap = await until('the new label to run', () => counts('B').length > 0 && counts('B'), 30_000);
    report(`hot swap in the panel: swapped: ${swapped.join(', ')}; the counter went on from ${before} to ${afterSwap[0]} (generation ${generation} -> ${preview.loadedGeneration})`);
    assert.ok(afterSwap[0]! > before, `the counter goes on after the swap (${before} before, ${afterSwap[0]} after): the page was not restarted`);
    assert.ok(preview.loadedGeneration > generation, 'the swap is a new generation of the page');

    // The boot atom cannot be swapped (it ran once, at the start): a change to it restarts the page.
    const mark = lines.length;
    const swapsBefore = swaps.length;
    await workspace().upsert({ name: 'game_loop', type: 'core', code: loop(90), dependencies: ['hs_label'] });
    const restarted = await until('the restarted page to count', () => counts('B', mark).includes(1) && counts('B', mark), 60_000);
    assert.equal(swaps.length, swapsBefore, 'a change to the boot atom is not swapped');
    report(`a boot atom change restarted the panel's page: the counter started over (${restarted.slice(restarted.indexOf(1), restarted.indexOf(1) + 3).join(', ')} …)`);
  });
});
