/**
 * The running game as an MCP App, shown in the chat for upsert_atom and upsert_atoms: after a change, a
 * person sees the bundle run. It reads latest.js through the host (the atoms://bundle resource) and runs
 * it as the editor's live preview does (src/preview/page.ts): in a sandboxed frame with its own
 * Content-Security-Policy and nonce, on the built-in page with a `<canvas id="game">`. The frame's console
 * output and runtime errors are tied to their atom and line (src/preview/bundleMap.ts); clicking one shows
 * that atom's code (read_atoms through the host) with the line marked.
 */
import type { App } from '@modelcontextprotocol/ext-apps';
import { BundleMap } from '../../src/preview/bundleMap.js';
import type { PreludeReport } from '../../src/preview/page.js';
import type { BundleLocation } from '../../src/protocol/webviewMessages.js';
import { appendConsoleEntry, mountBundleFrame } from '../shared/frame.js';
import { $, connect, resultText, showCode } from './connect.mjs';

const BUNDLE_URI = 'atoms://bundle';
const MAX_ENTRIES = 300;

const stage = $('stage');
const state = $('state');
const problem = $<HTMLPreElement>('problem');
const consoleList = $('console-list');
const consoleCount = $('console-count');
const code = $<HTMLPreElement>('code');

let frame: HTMLIFrameElement | undefined;
let map = new BundleMap('');
let entries = 0;
let errors = 0;
let runs = 0;

const { app } = connect('Atomic Coding game', (app) => {
  app.ontoolresult = (result) => {
    const text = resultText(result);
    $('result').textContent = text.split('\n')[0] ?? '';
    $('result').className = result.isError ? 'error' : '';
    void run(app);
  };
});

function setState(status: string, text: string): void {
  state.textContent = text;
  state.dataset.status = status;
  state.dataset.runs = String(runs);
  state.dataset.errors = String(errors);
}

async function run(app: App): Promise<void> {
  if (!app.getHostCapabilities()?.serverResources) {
    showProblem('This chat does not let apps read resources, so the game cannot be loaded here. Open it in the editor: Atomic Coding: Open Live Preview.');
    setState('unsupported', 'cannot read the bundle in this chat');
    return;
  }
  setState('loading', 'Reading latest.js…');
  let bundle: string;
  try {
    const read = await app.readServerResource({ uri: BUNDLE_URI });
    const first = read.contents[0];
    bundle = first && 'text' in first ? first.text : '';
  } catch (err) {
    showProblem(`The bundle could not be read: ${(err as Error).message}`);
    setState('failed', 'no bundle');
    return;
  }
  load(bundle);
}

function load(bundle: string): void {
  runs++;
  map = new BundleMap(bundle);
  problem.hidden = true;
  frame = mountBundleFrame(stage, frame, null, bundle, 'The game: latest.js running');
  const atoms = map.atoms.length;
  setState(bundle ? 'running' : 'empty', bundle ? `latest.js · ${atoms} atom${atoms === 1 ? '' : 's'} · run ${runs}` : 'No bundle yet.');
  addEntry('info', `— started (run ${runs}) —`, null);
}

function showProblem(text: string): void {
  frame?.remove();
  frame = undefined;
  problem.textContent = text;
  problem.hidden = false;
}

function addEntry(level: string, text: string, location: BundleLocation | null): void {
  appendConsoleEntry(consoleList, MAX_ENTRIES, level, text, location, {
    title: (atom) => `Show the code of ${atom}`,
    open: (atom, line) => void readAtom(atom, line),
  });
  entries++;
  consoleCount.textContent = errors ? `${entries} (${errors} errors)` : String(entries);
}

async function readAtom(name: string, line: number | null): Promise<void> {
  if (!app.getHostCapabilities()?.serverTools) return;
  const result = await app.callServerTool({ name: 'read_atoms', arguments: { names: [name] } });
  showCode(code, resultText(result), line);
  code.dataset.atom = name;
}

/** A report from the frame's prelude (src/preview/page.ts); anything else the frame sends is ignored. */
window.addEventListener('message', (event: MessageEvent) => {
  if (!frame || event.source !== frame.contentWindow) return;
  const r = event.data as PreludeReport;
  if (!r || typeof r !== 'object' || r.source !== 'atomic-preview') return;
  if (r.kind === 'console') addEntry(String(r.level), String(r.text).slice(0, 4000), map.locate(r.stack));
  else if (r.kind === 'error') {
    errors++;
    state.dataset.errors = String(errors);
    addEntry('error', String(r.message).slice(0, 4000), map.locate(r.stack, r.line));
  }
});

$('reload').addEventListener('click', () => void run(app));
$('clear').addEventListener('click', () => {
  consoleList.replaceChildren();
  entries = 0;
  errors = 0;
  consoleCount.textContent = '0';
});
