/**
 * The live preview webview. It runs latest.js inside a sandboxed frame (scripts only, no access to this
 * page or to VS Code) built from the workspace's page or the built-in canvas page, and starts it again
 * after every successful build. The frame's console output and runtime errors arrive from the prelude
 * script; each is tied to its atom (BundleMap), shown in the console panel and sent to the host's
 * output channel. A failed build replaces the frame with the error, so no stale page looks fine.
 * The frame has its own Content-Security-Policy and nonce, fresh for every load (src/preview/csp.ts):
 * it can run its inline scripts and load nothing from any address.
 */
import { BundleMap } from '../../src/preview/bundleMap.js';
import type { PreludeReport } from '../../src/preview/page.js';
import type { BundleLocation, HostToPreview, PreviewBuild, PreviewToHost } from '../../src/protocol/webviewMessages.js';
import { isHostToPreview } from '../../src/protocol/webviewMessages.js';
import { appendConsoleEntry, mountBundleFrame } from '../shared/frame.js';

declare function acquireVsCodeApi(): { postMessage(message: PreviewToHost): void };
const vscode = acquireVsCodeApi();
const post = (m: PreviewToHost) => vscode.postMessage(m);

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const stage = $('stage');
const state = $('state');
const failure = $<HTMLPreElement>('build-error');
const consoleList = $('console-list');
const consoleCount = $('console-count');
const external = $<HTMLAnchorElement>('external-url');

const MAX_ENTRIES = 500;
let frame: HTMLIFrameElement | undefined;
let map = new BundleMap('');
let generation = 0;
let errors = 0;
let entries = 0;

function load(bundle: string, page: string | null, build: PreviewBuild, gen: number, hotSwap: boolean, reason: string | undefined): void {
  generation = gen;
  map = new BundleMap(bundle);
  failure.hidden = true;
  frame = mountBundleFrame(stage, frame, page, bundle, 'Preview of latest.js', hotSwap);
  setState(bundle ? 'running' : 'empty', bundle ? `latest.js · ${build.atomCount} atom${build.atomCount === 1 ? '' : 's'} · built ${time(build.createdAt)}` : 'No bundle yet: create an atom and the preview starts.');
  addEntry('info', reason ? `restarted: ${reason}` : `— started: build of ${time(build.createdAt)} —`, null);
}

/**
 * The running page takes the changed atoms in place (src/preview/hotSwap.ts); a page that is not the
 * one the host swaps from (it failed, or was restarted meanwhile) asks for a restart instead.
 */
function swap(m: Extract<HostToPreview, { type: 'swap' }>): void {
  if (!frame?.contentWindow || m.from !== generation) {
    post({ type: 'ready' });
    return;
  }
  generation = m.generation;
  frame.contentWindow.postMessage({ source: 'atomic-host', kind: 'swap', id: m.generation, atoms: m.atoms }, '*');
  setState('running', `latest.js · ${m.build.atomCount} atom${m.build.atomCount === 1 ? '' : 's'} · swapped ${time(m.build.createdAt)}`);
}

function showFailure(build: PreviewBuild): void {
  showProblem(`The last build failed, so nothing runs (the previous page would be stale).\n\n${build.error ?? ''}`);
  setState('failed', `build failed at ${time(build.createdAt)}`);
}

/** The workspace's page may not be shown: its reason instead of the page, and nothing runs. */
function showRefused(reason: string, gen: number): void {
  generation = gen;
  showProblem(`The preview page was not shown, so nothing runs.\n\n${reason}`);
  setState('refused', 'preview page refused: see the message below');
  addEntry('error', reason, null);
}

function showProblem(text: string): void {
  frame?.remove();
  frame = undefined;
  failure.textContent = text;
  failure.hidden = false;
}

function setState(status: string, text: string): void {
  state.textContent = text;
  state.dataset.status = status;
  state.dataset.generation = String(generation);
  state.dataset.errors = String(errors);
}

function addEntry(level: string, text: string, location: BundleLocation | null): void {
  appendConsoleEntry(consoleList, MAX_ENTRIES, level, text, location, {
    title: (atom) => `Open ${atom}`,
    open: (atom, line) => post({ type: 'openAtom', name: atom, line }),
  });
  entries++;
  consoleCount.textContent = errors ? `${entries} (${errors} error${errors === 1 ? '' : 's'})` : String(entries);
}

/** A report from the frame's prelude; anything else the frame sends is ignored. */
function receiveReport(r: PreludeReport): void {
  if (r.kind === 'loaded') {
    post({ type: 'loaded', generation });
    return;
  }
  if (r.kind === 'swapped') {
    const names = Array.isArray(r.names) ? r.names.map(String) : [];
    addEntry('info', `swapped: ${names.join(', ')}`, null);
    post({ type: 'swapped', generation: Number(r.id) || 0, names });
    return;
  }
  if (r.kind === 'swapFailed') {
    addEntry('error', `swap failed: ${String(r.message).slice(0, 2000)}`, null);
    post({ type: 'swapFailed', generation: Number(r.id) || 0, message: String(r.message).slice(0, 2000) });
    return;
  }
  if (r.kind === 'console') {
    const location = map.locate(r.stack);
    const text = String(r.text).slice(0, 8000);
    addEntry(r.level, text, location);
    post({ type: 'console', level: r.level as 'log', text, ...location });
  } else {
    const location = map.locate(r.stack, r.line);
    errors++;
    const message = String(r.message).slice(0, 8000);
    addEntry('error', message, location);
    state.dataset.errors = String(errors);
    post({ type: 'runtimeError', message, stack: r.stack ? String(r.stack).slice(0, 8000) : null, ...location });
  }
}

window.addEventListener('message', (event: MessageEvent) => {
  const data: unknown = event.data;
  if (frame && event.source === frame.contentWindow) {
    const r = data as PreludeReport;
    if (r && typeof r === 'object' && r.source === 'atomic-preview' && ['console', 'error', 'loaded', 'swapped', 'swapFailed'].includes(r.kind)) receiveReport(r);
    return;
  }
  if (!isHostToPreview(data)) return;
  const m: HostToPreview = data;
  if (m.type === 'load' && m.refused !== undefined) showRefused(m.refused, m.generation);
  else if (m.type === 'load') load(m.bundle, m.page, m.build, m.generation, m.hotSwap === true, m.reason);
  else if (m.type === 'swap') swap(m);
  else if (m.type === 'buildFailed') showFailure(m.build);
  else {
    external.textContent = m.url;
    external.href = m.url;
    external.parentElement!.hidden = false;
  }
});

$('reload').addEventListener('click', () => post({ type: 'ready' }));
$('open-external').addEventListener('click', () => post({ type: 'openExternal' }));
$('clear').addEventListener('click', () => {
  consoleList.replaceChildren();
  entries = 0;
  errors = 0;
  consoleCount.textContent = '0';
});

function time(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleTimeString();
}

post({ type: 'ready' });
