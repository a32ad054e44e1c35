/**
 * The live preview's host side. The webview panel runs latest.js in the workspace's page (the setting
 * atomicCoding.preview.page, else `preview.html` at the folder's root, else a built-in canvas page) and
 * is sent the new bundle after every successful build, or the error of a failed one. Console output and
 * runtime errors of the running bundle come back tied to their atoms and go to the output channel.
 * The same preview opens in an external browser from a loopback server (src/preview/previewServer.ts).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join } from 'node:path';
import * as vscode from 'vscode';
import { describeLocation } from '../preview/bundleMap.js';
import { PreviewServer, type BrowserReport } from '../preview/previewServer.js';
import type { BuildRecord } from '../store/atomStore.js';
import { makeNonce, type PanelDeps } from './graphPanel.js';
import { isPreviewToHost, type BundleLocation, type HostToPreview, type PreviewBuild, type PreviewToHost } from './webviewMessages.js';

/** Reports beyond this many per second are counted, not logged (a game loop can throw every frame). */
const MAX_LOGS_PER_SECOND = 50;

export class PreviewPanel implements vscode.Disposable {
  static current: PreviewPanel | undefined;
  static readonly viewType = 'atomicCoding.preview';

  private ready = false;
  private generation = 0;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly loadedEmitter = new vscode.EventEmitter<number>();
  private readonly reportEmitter = new vscode.EventEmitter<PreviewToHost>();
  /** The page started a bundle (its generation); for tests and the status. */
  readonly onDidLoad = this.loadedEmitter.event;
  /** Console lines and runtime errors from the running bundle. */
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
    panel.webview.html = previewHtml(panel.webview, deps.extensionUri);
    const limiter = new RateLimiter(deps);
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      panel.webview.onDidReceiveMessage((m: unknown) => this.receive(m, limiter)),
    );
    if (deps.session) {
      this.disposables.push(
        deps.session.onDidBuild((build) => void this.sendBuild(build)),
        watchPage(deps.session.folder, () => void this.sendBuild(this.deps.session?.lastBuild)),
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
        this.ready = true;
        void this.sendBuild(this.deps.session?.lastBuild);
        break;
      case 'loaded':
        this.loadedGeneration = m.generation;
        this.loadedEmitter.fire(m.generation);
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
      await this.post({ type: 'buildFailed', build: info });
      return;
    }
    const [bundle, page] = await Promise.all([readBundle(this.deps), readPage(this.deps)]);
    await this.post({ type: 'load', bundle, page, build: info, generation: ++this.generation });
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
      bundlePath: () => bundlePath(this.deps) ?? '',
      page: () => readPage(this.deps),
      port: vscode.workspace.getConfiguration('atomicCoding').get<number>('preview.port', 0),
    }).then((server) => {
      const limiter = new RateLimiter(this.deps);
      server.onDidReport((r) => limiter.allow() && logReport(this.deps, r));
      const session = this.deps.session;
      if (session) {
        const notify = (b: BuildRecord | undefined) => b && server.notifyBuild({ status: b.status === 'error' ? 'error' : 'success', error: b.error_message });
        this.disposables.push(
          session.onDidBuild(notify),
          watchPage(session.folder, () => notify(session.lastBuild)),
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

function toPreviewBuild(build: BuildRecord | undefined): PreviewBuild {
  return {
    status: build?.status === 'error' ? 'error' : 'success',
    atomCount: build?.atom_count ?? 0,
    createdAt: build?.created_at ?? new Date().toISOString(),
    error: build?.error_message ?? null,
  };
}

function bundlePath(deps: PanelDeps): string | undefined {
  return deps.session?.workspace?.builder.outputPath;
}

async function readBundle(deps: PanelDeps): Promise<string> {
  const path = bundlePath(deps);
  if (!path) return '';
  try {
    return await readFile(path, 'utf8');
  } catch {
    return '';
  }
}

/**
 * Calls `onChange` when the workspace's page is edited, created or deleted, and when the setting chooses
 * another page, which is then the one watched (inside the folder or anywhere, by absolute path).
 */
function watchPage(folder: vscode.Uri, onChange: () => void): vscode.Disposable {
  let watcher: vscode.Disposable | undefined;
  const watch = () => {
    watcher?.dispose();
    const { path } = pageLocation(folder);
    const files = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(dirname(path)), basename(path)));
    const subscriptions = [files, files.onDidChange(onChange), files.onDidCreate(onChange), files.onDidDelete(onChange)];
    watcher = vscode.Disposable.from(...subscriptions);
  };
  watch();
  const settings = vscode.workspace.onDidChangeConfiguration((e) => {
    if (!e.affectsConfiguration('atomicCoding.preview.page', folder)) return;
    watch();
    onChange();
  });
  return new vscode.Disposable(() => {
    settings.dispose();
    watcher?.dispose();
  });
}

/** Where the workspace's page is: the setting (relative to the folder, or absolute), else `preview.html` at its root. */
function pageLocation(folder: vscode.Uri): { path: string; chosen: boolean } {
  const setting = vscode.workspace.getConfiguration('atomicCoding', folder).get<string>('preview.page', '');
  if (!setting) return { path: join(folder.fsPath, 'preview.html'), chosen: false };
  return { path: isAbsolute(setting) ? setting : join(folder.fsPath, setting), chosen: true };
}

/** The workspace's page: the setting, else `preview.html` at the folder's root; null for the built-in one. */
async function readPage(deps: PanelDeps): Promise<string | null> {
  if (!deps.session) return null;
  const { path, chosen } = pageLocation(deps.session.folder);
  if (!chosen && !existsSync(path)) return null;
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    deps.log.warn(`preview: could not read the page ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); using the built-in page`);
    return null;
  }
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
  const editor = await vscode.commands.executeCommand<vscode.TextEditor | undefined>('atomicCoding.openAtom', name);
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

function previewHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const nonce = makeNonce();
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', 'preview.js'));
  const css = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'preview', 'preview.css'));
  // The game's frame (srcdoc) inherits this policy: its scripts and styles run with the same nonce.
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource} 'nonce-${nonce}'`,
    `img-src ${webview.cspSource} data: blob:`,
    `media-src data: blob:`,
    `font-src ${webview.cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
    `frame-src 'self' about:`,
  ].join('; ');
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
  <button id="reload" title="Run latest.js again">Reload</button>
  <button id="open-external" title="Open this preview in your browser (served on 127.0.0.1)">Open in Browser</button>
</div>
<div id="stage"><pre id="build-error" role="alert" hidden></pre></div>
<div id="console">
  <div class="console-header"><span>Console <span id="console-count">0</span></span> <button id="clear" title="Clear the console">Clear</button></div>
  <div id="console-list" role="log" aria-label="Console output and errors of the running bundle"></div>
</div>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}

/** Open Live Preview and Open Live Preview in Browser. */
export function registerPreviewCommands(deps: PanelDeps): vscode.Disposable[] {
  const browser = new BrowserPreview(deps);
  const needFolder = () => {
    void vscode.window.showInformationMessage('Atomic Coding: open a folder first; its atoms are stored in .atomic/ inside it.');
    return undefined;
  };
  return [
    browser,
    vscode.commands.registerCommand('atomicCoding.openPreview', () => (deps.session ? PreviewPanel.show(deps, browser) : needFolder())),
    vscode.commands.registerCommand('atomicCoding.openPreviewInBrowser', () => (deps.session ? browser.open() : needFolder())),
  ];
}
