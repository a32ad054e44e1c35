/**
 * The dependency graph's host side: one webview panel per window (Show Dependency Graph, the tree's
 * title button, an atom's context menu). It sends the store's graph as a snapshot when the page is ready
 * and again after every change, whoever made it; the page updates in place. Double-click opens an atom.
 */
import * as vscode from 'vscode';
import { Commands } from './commandIds.js';
import { graphSnapshot } from '../protocol/graphSnapshot.js';
import { isGraphToHost, type GraphSnapshot, type GraphToHost, type GraphViewMode, type HostToGraph } from '../protocol/webviewMessages.js';
import { makeNonce, type PanelDeps } from './webview.js';

type RenderReport = Extract<GraphToHost, { type: 'rendered' }>;

export class GraphPanel implements vscode.Disposable {
  static current: GraphPanel | undefined;
  static readonly viewType = 'atomicCoding.graph';

  private ready = false;
  /**
   * The snapshot is posted with the page, before it says ready, and again (the same generation) when it says
   * ready: VS Code's webview host keeps messages until the page has loaded, but when the page takes over
   * 200 ms to load it hands them to the frame's first, blank document, and they are lost (its pre/index.html,
   * `loadTimeout`); in the UI runs that was most first opens on a busy machine, which then waited for the
   * page's second 'ready' a second later. The page drops a generation it has already drawn.
   */
  private changedBeforeReady = false;
  private generation = 0;
  private last: { snapshot: GraphSnapshot; generation: number } | undefined;
  private pendingFocus: { name: string; mode?: GraphViewMode } | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly renderEmitter = new vscode.EventEmitter<RenderReport>();
  /** Each render the page reports, with its timing (tests and the output channel read it). */
  readonly onDidRender = this.renderEmitter.event;
  lastRender: RenderReport | undefined;
  /** What the page selected last (a click, the search box). */
  selected: string | null = null;

  /** Opens the graph or brings it forward; `focus` selects an atom in it. */
  static show(deps: PanelDeps, focus?: string, mode?: GraphViewMode): GraphPanel {
    const existing = GraphPanel.current;
    if (existing) {
      existing.panel.reveal(undefined, true);
      if (focus) existing.focus(focus, mode);
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(GraphPanel.viewType, 'Atom Graph', { viewColumn: vscode.ViewColumn.Active, preserveFocus: false }, {
      enableScripts: true,
      // The graph keeps its zoom, position and selection while its tab is in the background.
      retainContextWhenHidden: true,
      localResourceRoots: [vscode.Uri.joinPath(deps.extensionUri, 'dist'), vscode.Uri.joinPath(deps.extensionUri, 'media')],
    });
    GraphPanel.current = new GraphPanel(panel, deps);
    if (focus) GraphPanel.current.focus(focus, mode);
    return GraphPanel.current;
  }

  private constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly deps: PanelDeps,
  ) {
    panel.iconPath = vscode.Uri.joinPath(deps.extensionUri, 'media', 'icons', 'atom.svg');
    panel.webview.html = graphHtml(panel.webview, deps.extensionUri);
    // Built and posted while the page loads, not after it says ready: that round trip and the snapshot
    // (50 ms at 1,000 atoms) were on the way to the first paint.
    if (deps.lifecycle.atoms()) this.sendSnapshot();
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      panel.webview.onDidReceiveMessage((m: unknown) => this.receive(m)),
    );
    this.disposables.push(deps.lifecycle.onDidChangeAtoms(() => this.scheduleUpdate()));
  }

  focus(name: string, mode?: GraphViewMode): void {
    if (!this.ready) this.pendingFocus = { name, mode };
    else void this.post({ type: 'focus', name, mode });
  }

  private receive(m: unknown): void {
    if (!isGraphToHost(m)) {
      this.deps.log.warn('graph: ignored a malformed message from the webview');
      return;
    }
    switch (m.type) {
      case 'ready':
        this.ready = true;
        // The page may lack what was posted before it loaded, and a page loaded again has nothing: the
        // snapshot goes again, built anew if the atoms changed meanwhile (after 'ready' every change is sent).
        if (this.changedBeforeReady || !this.last) this.sendSnapshot();
        else this.postLast(this.last);
        this.changedBeforeReady = false;
        break;
      case 'open':
        void vscode.commands.executeCommand(Commands.openAtom, m.name);
        break;
      case 'rendered':
        this.lastRender = m;
        this.deps.log.info(
          m.groups !== undefined
            ? `graph: ${m.update ? 'updated' : 'rendered'} the summary, ${m.groups} group${m.groups === 1 ? '' : 's'} of atoms, in ${m.ms} ms (layout ${m.layoutMs} ms)`
            : `graph: ${m.update ? 'updated' : 'rendered'} ${m.nodes} atom${m.nodes === 1 ? '' : 's'} and ${m.edges} dependenc${m.edges === 1 ? 'y' : 'ies'} in ${m.ms} ms (layout ${m.layoutMs} ms)`,
        );
        this.renderEmitter.fire(m);
        break;
      case 'selected':
        this.selected = m.name;
        break;
      case 'error':
        this.deps.log.error(`graph webview: ${m.message}`);
        break;
    }
  }

  /** Many changes in a burst (an agent's batch) make one update. */
  private scheduleUpdate(): void {
    if (!this.ready) {
      this.changedBeforeReady = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.sendSnapshot(), 60);
  }

  private sendSnapshot(): void {
    this.last = { snapshot: graphSnapshot(this.deps.lifecycle.atoms() ?? []), generation: ++this.generation };
    this.postLast(this.last);
  }

  /** Posts a snapshot built before (and, once the page is ready, the atom it is to select). */
  private postLast({ snapshot, generation }: { snapshot: GraphSnapshot; generation: number }): void {
    void this.post({ type: 'graph', snapshot, generation, sentAt: Date.now() });
    if (this.ready) this.sendPendingFocus();
  }

  private sendPendingFocus(): void {
    const focus = this.pendingFocus;
    this.pendingFocus = undefined;
    if (focus) void this.post({ type: 'focus', name: focus.name, mode: focus.mode });
  }

  private post(message: HostToGraph): Thenable<boolean> {
    return this.panel.webview.postMessage(message);
  }

  dispose(): void {
    if (GraphPanel.current === this) GraphPanel.current = undefined;
    clearTimeout(this.timer);
    for (const d of this.disposables.splice(0)) d.dispose();
    this.renderEmitter.dispose();
    this.panel.dispose();
  }
}

/** The page: toolbar, graph, status line; a CSP that runs only our nonce'd script. */
function graphHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const nonce = makeNonce();
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', 'graph.js'));
  const layoutWorker = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', 'graph-layout.js'));
  const css = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'graph', 'graph.css'));
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource} 'nonce-${nonce}'`,
    `img-src ${webview.cspSource} data:`,
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
    // The layout worker's script is fetched from the extension and started from a blob.
    `connect-src ${webview.cspSource}`,
    'worker-src blob:',
  ].join('; ');
  const typeBox = (t: string, title: string) =>
    `<label title="${title}"><input type="checkbox" data-type="${t}" checked><span class="swatch ${t}"></span>${t}</label>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<!-- cytoscape adds this style element unless it exists; here it carries the nonce. -->
<style id="__________cytoscape_stylesheet" nonce="${nonce}">.__________cytoscape_container { position: relative; }</style>
<link rel="stylesheet" href="${css}">
<title>Atom Graph</title>
</head>
<body data-layout-worker="${layoutWorker}">
<div id="toolbar" role="toolbar" aria-label="Graph controls">
  <input id="search" type="search" list="names" placeholder="Find an atom (Enter)" aria-label="Find an atom">
  <datalist id="names"></datalist>
  ${typeBox('core', 'Show core atoms')} ${typeBox('feature', 'Show feature atoms')} ${typeBox('util', 'Show util atoms')}
  <select id="mode" aria-label="View">
    <option value="graph">Whole graph</option>
    <option value="needs">Tree: what it needs</option>
    <option value="neededBy">Tree: what needs it</option>
  </select>
  <button id="impact" aria-pressed="false" title="Light up every atom that depends on the selected one, transitively">Impact</button>
  <button id="fit" title="Fit the graph to the window">Fit</button>
  <button id="relayout" title="Lay the whole graph out again in layers">Layout</button>
  <button id="groups" title="Show the atoms in groups of atoms named alike (a big graph's summary)" hidden>Groups</button>
  <span class="legend"><span><span class="swatch unused"></span> unused</span><span><span class="swatch cycle"></span> cycle</span></span>
</div>
<div id="graph" role="img" aria-label="Dependency graph of the atoms"></div>
<div id="hint" hidden>Select an atom (click it or find it) to see its tree.</div>
<div id="status" role="status" aria-live="polite">Loading…</div>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}

/** Show Dependency Graph: with an atom (a name or a tree node) it selects that atom. */
export function registerGraphCommand(deps: PanelDeps): vscode.Disposable {
  return vscode.commands.registerCommand(Commands.showGraph, (arg?: string | { kind?: string; name?: string }, mode?: GraphViewMode) => {
    const name = typeof arg === 'string' ? arg : arg?.kind === 'atom' ? arg.name : undefined;
    return GraphPanel.show(deps, name, mode);
  });
}
