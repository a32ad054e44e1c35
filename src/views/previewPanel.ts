/**
 * The live preview's host side. The webview panel runs latest.js in the workspace's page (the setting
 * atomicCoding.preview.page, else `preview.html` at the folder's root, else a built-in canvas page; a
 * page outside the folder is refused, src/preview/pageFile.ts) and is sent the new bundle after every
 * successful build, or the error of a failed one. Console output and runtime errors of the running
 * bundle come back tied to their atoms and go to the output channel.
 * The same preview opens in an external browser from a loopback server (src/preview/previewServer.ts).
 */
import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as vscode from 'vscode';
import { describeLocation } from '../preview/bundleMap.js';
import { webviewCsp } from '../preview/csp.js';
import { BrowserLiveLoop, describeUpdate, planUpdate, type LiveState } from '../preview/hotSwap.js';
import { isProgramAtom, type Atom } from '../atoms/model.js';
import { PAGE_SETTING, pagePath, readPageFile } from '../preview/pageFile.js';
import { PreviewServer, type BrowserReport, type ServedPage } from '../preview/previewServer.js';
import type { BuildRecord } from '../store/builds.js';
import { isPreviewToHost, type BundleLocation, type HostToPreview, type PreviewBuild, type PreviewToHost } from '../protocol/webviewMessages.js';
import type { PanelDeps } from './webview.js';
import { Commands } from './commandIds.js';
import { registerPreviewDebug } from './previewDebug.js';

/** Reports beyond this many per second are counted, not logged (a game loop can throw every frame). */
const MAX_LOGS_PER_SECOND = 50;

export class PreviewPanel implements vscode.Disposable {
  static current: PreviewPanel | undefined;
  static readonly viewType = 'atomicCoding.preview';

  private ready = false;
  private generation = 0;
  /** What the page runs now (its atoms, boot atom and page); undefined: nothing runs (hot swap: restart). */
  private running: LiveState | undefined;
  /** The next update is a restart for this reason (the Restart button, a failed swap). */
  private restartReason: string | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly loadedEmitter = new vscode.EventEmitter<number>();
  private readonly reportEmitter = new vscode.EventEmitter<PreviewToHost>();
  /** The page started a bundle (its generation); for tests and the status. */
  readonly onDidLoad = this.loadedEmitter.event;
  /** Console lines and runtime errors from the running bundle, and the swaps it took (`swapped`, with the atoms' names). */
  readonly onDidReport = this.reportEmitter.event;
  loadedGeneration = 0;

  static show(deps: PanelDeps, browser: BrowserPreview): PreviewPanel {
    if (PreviewPanel.current) {
      PreviewPanel.current.panel.reveal(undefined, true);
      return PreviewPanel.current;
    }
    const panel = vscode.window.createWebviewPanel(PreviewPanel.viewType, 'Live Preview', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
      enableScripts: true,
      retainContextWhenHidden: true,
      localResourceRoots: [vscode.Uri.joinPath(deps.extensionUri, 'dist'), vscode.Uri.joinPath(deps.extensionUri, 'media')],
    });
    PreviewPanel.current = new PreviewPanel(panel, deps, browser);
    return PreviewPanel.current;
  }

  private constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly deps: PanelDeps,
    private readonly browser: BrowserPreview,
  ) {
    panel.iconPath = vscode.Uri.joinPath(deps.extensionUri, 'media', 'icons', 'atom.svg');
    panel.webview.html = previewHtml(panel.webview, deps.extensionUri, hotSwapSetting());
    const limiter = new RateLimiter(deps);
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      panel.webview.onDidReceiveMessage((m: unknown) => this.receive(m, limiter)),
    );
    if (deps.lifecycle) {
      this.disposables.push(
        deps.lifecycle.onDidBuild((build) => void this.sendBuild(build)),
        watchPage(deps.lifecycle.folder, () => void this.sendBuild(this.deps.lifecycle?.lastBuild)),
      );
    }
  }

  private receive(m: unknown, limiter: RateLimiter): void {
    if (!isPreviewToHost(m)) {
      this.deps.log.warn('preview: ignored a malformed message from the webview');
      return;
    }
    switch (m.type) {
      case 'ready':
        // The first message, the Restart button, or a page that cannot take a swap: start it again.
        if (this.ready && this.running) this.restartReason = 'Restart button';
        this.ready = true;
        this.running = undefined;
        void this.sendBuild(this.deps.lifecycle?.lastBuild);
        break;
      case 'loaded':
        this.loadedGeneration = m.generation;
        this.loadedEmitter.fire(m.generation);
        break;
      case 'swapped':
        this.loadedGeneration = m.generation;
        this.loadedEmitter.fire(m.generation);
        this.reportEmitter.fire(m);
        break;
      case 'swapFailed':
        this.deps.log.warn(`preview: the swap failed (${m.message}); restarting`);
        this.restartReason = `the swap failed: ${m.message}`;
        this.running = undefined;
        void this.sendBuild(this.deps.lifecycle?.lastBuild);
        break;
      case 'console':
        if (limiter.allow()) logReport(this.deps, { kind: 'console', level: m.level, text: m.text, atom: m.atom, line: m.line, atomLine: m.atomLine });
        this.reportEmitter.fire(m);
        break;
      case 'runtimeError':
        if (limiter.allow()) logReport(this.deps, { kind: 'error', message: m.message, atom: m.atom, line: m.line, atomLine: m.atomLine });
        this.reportEmitter.fire(m);
        break;
      case 'openExternal':
        void this.browser.open().then((url) => {
          if (url) void this.post({ type: 'external', url });
        });
        break;
      case 'openAtom':
        void openAtomAt(m.name, m.line);
        break;
    }
  }

  /** Sends the bundle of a successful build, or the error of a failed one. */
  private async sendBuild(build: BuildRecord | undefined): Promise<void> {
    if (!this.ready) return;
    const info = toPreviewBuild(build);
    if (build?.status === 'error') {
      this.running = undefined;
      await this.post({ type: 'buildFailed', build: info });
      return;
    }
    const page = await readPage(this.deps);
    if (page !== null && typeof page === 'object') {
      // A refused page: its reason instead of the page, and no bundle (it would run against nothing).
      this.running = undefined;
      await this.post({ type: 'load', bundle: '', page: null, refused: page.refused, build: info, generation: ++this.generation });
      return;
    }
    const hotSwap = hotSwapSetting();
    const next = liveState(this.deps, page);
    const forced = this.restartReason;
    this.restartReason = undefined;
    const update = !next ? { kind: 'restart' as const, reason: 'started' } : forced && this.running ? { kind: 'restart' as const, reason: forced } : planUpdate(this.running, next, hotSwap);
    if (update.kind === 'none' && next) {
      this.running = next;
      return;
    }
    if (update.kind === 'swap' && next) {
      this.running = next;
      const from = this.generation;
      this.deps.log.info(`preview: ${describeUpdate(update)}`);
      await this.post({ type: 'swap', atoms: update.atoms, from, generation: ++this.generation, build: info });
      return;
    }
    const reason = update.kind === 'restart' && update.reason !== 'started' ? update.reason : (forced ?? undefined);
    if (reason) this.deps.log.info(`preview: restarted: ${reason}`);
    this.running = next;
    const bundle = await readBundle(this.deps);
    await this.post({ type: 'load', bundle, page, build: info, generation: ++this.generation, hotSwap, ...(reason ? { reason } : {}) });
  }

  private post(message: HostToPreview): Thenable<boolean> {
    return this.panel.webview.postMessage(message);
  }

  dispose(): void {
    if (PreviewPanel.current === this) PreviewPanel.current = undefined;
    for (const d of this.disposables.splice(0)) d.dispose();
    this.loadedEmitter.dispose();
    this.reportEmitter.dispose();
    this.panel.dispose();
  }
}

/** The loopback server for an external browser: started on first use, told about every build. */
export class BrowserPreview implements vscode.Disposable {
  private server: Promise<PreviewServer> | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly deps: PanelDeps) {}

  /** Starts the server if needed and opens its page in the default browser; returns its address. */
  async open(): Promise<string | undefined> {
    try {
      const server = await this.start();
      this.deps.log.info(`preview: serving ${server.url} for external browsers (127.0.0.1 only)`);
      // Not awaited: VS Code may ask before opening a browser, and the address is useful meanwhile.
      void vscode.env.asExternalUri(vscode.Uri.parse(server.url)).then(
        (external) => vscode.env.openExternal(external),
        (err: Error) => this.deps.log.warn(`preview: could not open a browser: ${err.message}`),
      );
      return server.url;
    } catch (err) {
      const message = `could not start the preview server: ${(err as Error).message}. Set atomicCoding.preview.port to 0 (a free port) or another port.`;
      this.deps.log.error(`preview: ${message}`);
      void vscode.window.showErrorMessage(`Atomic Coding: ${message}`);
      this.server = undefined;
      return undefined;
    }
  }

  start(): Promise<PreviewServer> {
    this.server ??= PreviewServer.start({
      bundle: () => readCheckedBundle(this.deps),
      page: () => readPage(this.deps),
      port: vscode.workspace.getConfiguration('atomicCoding').get<number>('preview.port', 0),
      hotSwap: hotSwapSetting,
      sourceMap: () => readSourceMap(this.deps),
    }).then(async (server) => {
      const limiter = new RateLimiter(this.deps);
      server.onDidReport((r) => limiter.allow() && logReport(this.deps, r));
      const lifecycle = this.deps.lifecycle;
      if (lifecycle) {
        // What the browser's pages run (every page loads the newest bundle): swapped into, or restarted.
        const pageText = async () => {
          const page = await readPage(this.deps);
          return page !== null && typeof page === 'object' ? undefined : page;
        };
        const first = await pageText();
        const loop = new BrowserLiveLoop(server, first === undefined ? undefined : liveState(this.deps, first));
        const notify = async (b: BuildRecord | undefined, pageChanged = false) => {
          if (!b) return;
          if (b.status === 'error') return loop.failed(b.error_message);
          const page = await pageText();
          const update = loop.built(page === undefined ? undefined : liveState(this.deps, page), hotSwapSetting(), pageChanged);
          if (server.listeners > 0 && (update.kind === 'swap' || (update.kind === 'restart' && update.reason !== 'started'))) {
            this.deps.log.info(`preview (browser): ${describeUpdate(update)}`);
          }
        };
        this.disposables.push(
          lifecycle.onDidBuild((b) => void notify(b)),
          watchPage(lifecycle.folder, () => void notify(lifecycle.lastBuild, true)),
        );
      }
      this.disposables.push({ dispose: () => void server.close() });
      return server;
    });
    return this.server;
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
    this.server = undefined;
  }
}

/** atomicCoding.preview.hotSwap: changed atoms are swapped into the running preview (default on). */
function hotSwapSetting(): boolean {
  return vscode.workspace.getConfiguration('atomicCoding').get<boolean>('preview.hotSwap', true) !== false;
}

/** What a preview started now runs: the program's atoms, the boot atom, the page; undefined without a workspace. */
function liveState(deps: PanelDeps, page: string | null): LiveState | undefined {
  const workspace = deps.lifecycle?.workspace;
  if (!workspace) return undefined;
  const atoms = new Map<string, Atom>();
  for (const atom of workspace.atoms.all()) if (isProgramAtom(atom)) atoms.set(atom.name, atom);
  return { atoms, entry: workspace.bootAtom(), page };
}

function toPreviewBuild(build: BuildRecord | undefined): PreviewBuild {
  return {
    status: build?.status === 'error' ? 'error' : 'success',
    atomCount: build?.atom_count ?? 0,
    createdAt: build?.created_at ?? new Date().toISOString(),
    error: build?.error_message ?? null,
  };
}

/**
 * latest.js through the builder, which reads it only inside the workspace folder and only when it is a
 * bundle; throws an Error saying why when there is none.
 */
function readCheckedBundle(deps: PanelDeps): string {
  const builder = deps.lifecycle?.workspace?.builder;
  if (!builder) throw new Error('No bundle yet: the workspace is not open.');
  return builder.readBundle();
}

/** latest.js.map next to latest.js, read as the bundle is (inside the folder only), or undefined. */
async function readSourceMap(deps: PanelDeps): Promise<string | undefined> {
  const builder = deps.lifecycle?.workspace?.builder;
  const path = builder?.outputPath;
  if (!builder || !path) return undefined;
  try {
    // A build's map is written after its event: the one that goes with the bundle just announced.
    await builder.mapWritten();
    const text = await readFile(`${path}.map`, 'utf8');
    if (!text.startsWith('{"version":3')) {
      deps.log.warn(`preview: ${path}.map is not a source map (${text.length} characters): the debugger is not given one`);
      return undefined;
    }
    // Served from an address, the map names the atoms' files by absolute file URLs, which a debugger opens.
    const map = JSON.parse(text) as { sources: string[] };
    map.sources = map.sources.map((source) => (/^[a-z][a-z0-9+.-]*:/i.test(source) ? source : pathToFileURL(resolve(dirname(path), source)).href));
    return JSON.stringify(map);
  } catch (err) {
    deps.log.warn(`preview: the source map could not be read (${(err as Error).message}): the debugger is not given one`);
    return undefined;
  }
}

/**
 * latest.js for the webview, or '' when there is none (the panel then says so; a bundle path outside
 * the folder is reported by every build already).
 */
async function readBundle(deps: PanelDeps): Promise<string> {
  try {
    return readCheckedBundle(deps);
  } catch {
    return '';
  }
}

/**
 * Calls `onChange` when the workspace's page is edited, created or deleted, and when the setting chooses
 * another page, which is then the one watched (a page outside the folder is refused when read).
 */
function watchPage(folder: vscode.Uri, onChange: () => void): vscode.Disposable {
  let watcher: vscode.Disposable | undefined;
  const watch = () => {
    watcher?.dispose();
    const path = pagePath(folder.fsPath, pageSetting(folder));
    const files = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(dirname(path)), basename(path)));
    const subscriptions = [files, files.onDidChange(onChange), files.onDidCreate(onChange), files.onDidDelete(onChange)];
    watcher = vscode.Disposable.from(...subscriptions);
  };
  watch();
  const settings = vscode.workspace.onDidChangeConfiguration((e) => {
    if (!e.affectsConfiguration(PAGE_SETTING, folder)) return;
    watch();
    onChange();
  });
  return new vscode.Disposable(() => {
    settings.dispose();
    watcher?.dispose();
  });
}

/** The setting atomicCoding.preview.page of the folder ('' when unset). */
function pageSetting(folder: vscode.Uri): string {
  const setting = vscode.workspace.getConfiguration('atomicCoding', folder).get<unknown>('preview.page', '');
  return typeof setting === 'string' ? setting : '';
}

/** The last refusal logged, so a refused page is logged once, not at every build. */
let loggedRefusal: string | undefined;

/**
 * The workspace's page: the setting, else `preview.html` at the folder's root, null for the built-in one,
 * or the reason it is refused (it lies outside the folder), which is logged.
 */
async function readPage(deps: PanelDeps): Promise<ServedPage> {
  if (!deps.lifecycle) return null;
  const page = await readPageFile(deps.lifecycle.folder.fsPath, pageSetting(deps.lifecycle.folder));
  if (page.kind !== 'refused') loggedRefusal = undefined;
  if (page.kind === 'page') return page.html;
  if (page.kind === 'builtin') {
    if (page.warning) deps.log.warn(`preview: ${page.warning}`);
    return null;
  }
  if (loggedRefusal !== page.message) deps.log.error(`preview: ${page.message}`);
  loggedRefusal = page.message;
  return { refused: page.message };
}

function logReport(deps: PanelDeps, r: BrowserReport): void {
  const location: BundleLocation = { atom: r.atom, line: r.line, atomLine: r.atomLine };
  const where = describeLocation(location);
  const suffix = where ? ` (${where})` : '';
  if (r.kind === 'error') deps.log.error(`preview: runtime error${suffix}: ${r.message}`);
  else if (r.level === 'error') deps.log.error(`preview: console.error${suffix}: ${r.text}`);
  else if (r.level === 'warn') deps.log.warn(`preview: console.warn${suffix}: ${r.text}`);
  else deps.log.info(`preview: console.${r.level}${suffix}: ${r.text}`);
}

async function openAtomAt(name: string, line: number | null): Promise<void> {
  const editor = await vscode.commands.executeCommand<vscode.TextEditor | undefined>(Commands.openAtom, name);
  if (!editor || !line) return;
  // The editor shows a header above the code; find the function's line and count from there.
  const start = editor.document.getText().split('\n').findIndex((l) => l.startsWith(`function ${name}`));
  const target = editor.document.lineAt(Math.min(editor.document.lineCount - 1, Math.max(0, start) + line - 1)).range;
  editor.selection = new vscode.Selection(target.start, target.end);
  editor.revealRange(target, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}

/** Lets MAX_LOGS_PER_SECOND reports through each second and says how many it held back. */
class RateLimiter {
  private windowStart = 0;
  private count = 0;
  private dropped = 0;

  constructor(private readonly deps: PanelDeps) {}

  allow(): boolean {
    const now = Date.now();
    if (now - this.windowStart >= 1000) {
      if (this.dropped) this.deps.log.warn(`preview: ${this.dropped} more reports in the last second were not logged`);
      this.windowStart = now;
      this.count = 0;
      this.dropped = 0;
    }
    if (++this.count <= MAX_LOGS_PER_SECOND) return true;
    this.dropped++;
    return false;
  }
}

function previewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, hotSwap: boolean): string {
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', 'preview.js'));
  const css = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'preview', 'preview.css'));
  // The game's frame (srcdoc) inherits this policy and adds its own, with its own nonce (src/preview/csp.ts).
  const csp = webviewCsp(webview.cspSource, hotSwap);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${css}">
<title>Live Preview</title>
</head>
<body>
<div id="toolbar" role="toolbar" aria-label="Preview controls">
  <span id="state" role="status" data-status="waiting">Waiting for the bundle…</span>
  <span id="external" hidden>Browser: <a id="external-url" href="#"></a></span>
  <button id="reload" title="Start latest.js again from the beginning">Restart</button>
  <button id="open-external" title="Open this preview in your browser (served on 127.0.0.1)">Open in Browser</button>
</div>
<div id="stage"><pre id="build-error" role="alert" hidden></pre></div>
<div id="console">
  <div class="console-header"><span>Console <span id="console-count">0</span></span> <button id="clear" title="Clear the console">Clear</button></div>
  <div id="console-list" role="log" aria-label="Console output and errors of the running bundle"></div>
</div>
<script src="${script}"></script>
</body>
</html>`;
}

/** Open Live Preview, Open Live Preview in Browser and Debug Live Preview (previewDebug.ts). */
export function registerPreviewCommands(deps: PanelDeps): vscode.Disposable[] {
  const browser = new BrowserPreview(deps);
  const needFolder = () => {
    void vscode.window.showInformationMessage('Atomic Coding: open a folder first; its atoms are stored in .atomic/ inside it.');
    return undefined;
  };
  return [
    browser,
    vscode.commands.registerCommand(Commands.openPreview, () => (deps.lifecycle ? PreviewPanel.show(deps, browser) : needFolder())),
    vscode.commands.registerCommand(Commands.openPreviewInBrowser, () => (deps.lifecycle ? browser.open() : needFolder())),
    ...registerPreviewDebug(() => deps.lifecycle?.folder, () => browser.start(), Commands.debugPreview),
  ];
}
