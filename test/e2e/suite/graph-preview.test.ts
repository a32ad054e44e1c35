/**
 * The dependency graph and the live preview inside the real extension host: the commands open real
 * webview panels, the graph's page reports that it drew every atom and edge of the store, and a change
 * made through the workspace (the same path as an MCP tool) reaches both open panels without reopening
 * them. The UI run (test/e2e/ui-graph-preview.mjs) clicks, looks at and screenshots the same views.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { AtomicCodingApi } from '../../../src/extension.js';
import { readyExtension, report, until } from './support.js';

/** The parts of the panels this test reads (the command returns the extension's own panel object). */
interface RenderReport {
  nodes: number;
  edges: number;
  ms: number;
  update: boolean;
}
interface GraphPanelLike {
  lastRender: RenderReport | undefined;
  onDidRender: vscode.Event<RenderReport>;
  panel: vscode.WebviewPanel;
}
interface PreviewPanelLike {
  loadedGeneration: number;
  panel: vscode.WebviewPanel;
}

describe('Dependency graph and live preview webviews', function () {
  this.timeout(90_000);
  let api: AtomicCodingApi;

  const workspace = () => api.lifecycle!.workspace!;
  const edgeCount = () => workspace().atoms.all().reduce((n, a) => n + a.dependencies.length, 0);

  before(async () => {
    ({ api } = await readyExtension());
    await until('the session', () => api.lifecycle?.state === 'ready');
    await workspace().upsertMany([
      { name: 'gp_config', type: 'util', code: 'function gp_config(key) {\n  return key === "speed" ? 3 : 0;\n}\n', inputs: [{ name: 'key', type: 'string' }], outputs: [{ name: 'value', type: 'number' }] },
      { name: 'gp_step', type: 'feature', code: 'function gp_step(x) {\n  return x + gp_config("speed");\n}\n', inputs: [{ name: 'x', type: 'number' }], outputs: [{ name: 'next', type: 'number' }], dependencies: ['gp_config'] },
    ]);
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('Show Dependency Graph opens a webview that draws every atom and dependency of the store', async () => {
    const graph = await vscode.commands.executeCommand<GraphPanelLike>('atomicCoding.showGraph');
    assert.ok(graph?.panel, 'the command returns its panel');
    assert.equal(graph.panel.viewType, 'atomicCoding.graph');
    const rendered = await until('the graph to render', () => graph.lastRender);
    assert.equal(rendered.nodes, workspace().atoms.size);
    assert.equal(rendered.edges, edgeCount());
    report(`graph rendered ${rendered.nodes} atoms and ${rendered.edges} edges in ${rendered.ms} ms (webview timing)`);
    const again = await vscode.commands.executeCommand<GraphPanelLike>('atomicCoding.showGraph', 'gp_step');
    assert.equal(again, graph, 'a second Show Dependency Graph reuses the open panel');
  });

  it('a change to the atoms updates the open graph in place', async () => {
    const graph = await vscode.commands.executeCommand<GraphPanelLike>('atomicCoding.showGraph');
    const before = graph.lastRender!;
    const next = new Promise<RenderReport>((resolve) => {
      const sub = graph.onDidRender((r) => {
        if (r.nodes === before.nodes + 1) {
          sub.dispose();
          resolve(r);
        }
      });
    });
    await workspace().upsert({ name: 'gp_render', type: 'feature', code: 'function gp_render(x) {\n  return gp_step(x) * 2;\n}\n', dependencies: ['gp_step'] });
    const updated = await next;
    assert.equal(updated.update, true, 'updated in place, not reopened');
    assert.equal(updated.edges, before.edges + 1);
    report(`graph updated in place to ${updated.nodes} atoms in ${updated.ms} ms`);
  });

  it('Open Live Preview runs latest.js and runs it again after every successful build', async () => {
    const preview = await vscode.commands.executeCommand<PreviewPanelLike>('atomicCoding.openPreview');
    assert.equal(preview.panel.viewType, 'atomicCoding.preview');
    const first = await until('the bundle to load in the preview', () => preview.loadedGeneration || undefined);
    await workspace().upsert({ name: 'gp_step', type: 'feature', code: 'function gp_step(x) {\n  return x + gp_config("speed") + 1;\n}\n', inputs: [{ name: 'x', type: 'number' }], outputs: [{ name: 'next', type: 'number' }], dependencies: ['gp_config'] });
    const second = await until('the preview to reload', () => (preview.loadedGeneration > first ? preview.loadedGeneration : undefined));
    assert.ok(second > first);
    assert.match(workspace().builder.readBundle(), /gp_config\("speed"\) \+ 1/);
  });

  // A page outside the folder is refused (issue 12): test/unit/preview-security.test.ts covers that.
  it('a page chosen by an absolute path inside the folder is used, and editing it reloads the open preview', async () => {
    const preview = await vscode.commands.executeCommand<PreviewPanelLike>('atomicCoding.openPreview');
    const dir = mkdtempSync(join(api.lifecycle!.folder.fsPath, 'atomic-page-'));
    const page = join(dir, 'game.html');
    writeFileSync(page, '<!doctype html><html><body><canvas id="game"></canvas><script src="latest.js"></script></body></html>\n');
    const settings = vscode.workspace.getConfiguration('atomicCoding');
    try {
      const before = preview.loadedGeneration;
      await settings.update('preview.page', page, vscode.ConfigurationTarget.Workspace);
      const chosen = await until('the preview to load the chosen page', () => (preview.loadedGeneration > before ? preview.loadedGeneration : undefined));
      // VS Code starts watching a new path asynchronously, so an edit made the instant the setting
      // changed can come before the watch; edit again until seen.
      let edited: number | undefined;
      let attempts = 0;
      for (let attempt = 1; !edited && attempt <= 10; attempt++) {
        attempts = attempt;
        writeFileSync(page, `<!doctype html><html><body><p>edit ${attempt}</p><canvas id="game"></canvas><script src="latest.js"></script></body></html>\n`);
        edited = await until('the preview to reload after the page was edited', () => (preview.loadedGeneration > chosen ? preview.loadedGeneration : undefined), 3_000).catch(() => undefined);
      }
      assert.ok(edited, 'an edit of the chosen page reloads the preview');
      if (attempts > 1) report(`the chosen page's edit was seen at attempt ${attempts} (the watch starts asynchronously)`);
    } finally {
      await settings.update('preview.page', undefined, vscode.ConfigurationTarget.Workspace);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
