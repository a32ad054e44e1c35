/**
 * The atom graph as an MCP App, shown in the chat for get_code_structure and query_graph. It is the
 * editor's graph page (media/graph/main.ts, unchanged: layers, type colours, click to light up what an
 * atom uses and what uses it, impact, trees) driven by this controller instead of the editor's panel:
 * - the data is the tool result it is shown for (get_code_structure's JSON or minimal lines); for
 *   query_graph, whose text is an answer rather than the map, it asks the host for get_code_structure;
 * - a query_graph call selects the atom it asked about, with its impact or its tree lit up;
 * - clicking an atom reads its code through the host (read_atoms, read-only) and shows it below.
 */
import { onGraphPage, toGraphPage } from './vscodeShim.js';
import '../graph/main.js';
import type { App } from '@modelcontextprotocol/ext-apps';
import type { GraphToHost } from '../../src/protocol/webviewMessages.js';
import { $, connect, resultText, showCode } from './connect.mjs';
import { focusOf, parseStructure, snapshotOf } from './structure.js';

const notice = $('notice');
const code = $<HTMLPreElement>('code');
let args: Record<string, unknown> = {};
let reading = 0;

function say(text: string, kind: 'info' | 'error' = 'info'): void {
  notice.textContent = text;
  notice.className = kind;
  notice.hidden = !text;
}

const { app } = connect(
  'Atomic Coding graph',
  (app) => {
    app.ontoolinput = (params) => void (args = params.arguments ?? {});
    app.ontoolresult = (result) => void show(app, result).catch((err: Error) => say(`The graph could not be drawn: ${err.message}`, 'error'));
  },
  // The graph page restyles itself when the body's class changes (VS Code's theme switch).
  () => document.body.classList.toggle('host-themed-alt'),
);

/** The tool this view belongs to: the host says so in toolInfo; else query_graph is the one with an operation. */
function toolName(): string {
  return app.getHostContext()?.toolInfo?.tool.name ?? (typeof args.operation === 'string' ? 'query_graph' : 'get_code_structure');
}

async function show(app: App, result: Parameters<NonNullable<App['ontoolresult']>>[0]): Promise<void> {
  const text = resultText(result);
  const tool = toolName();
  let nodes = !result.isError && tool === 'get_code_structure' ? parseStructure(text) : null;
  if (result.isError) say(text, 'error');
  else if (tool !== 'get_code_structure') say(text.split('\n')[0] ?? '');
  if (!nodes) {
    if (!app.getHostCapabilities()?.serverTools) {
      say(`${result.isError ? `${text}\n` : ''}This chat cannot call tools from an app, so the map is not shown here; the answer above is the tool's text.`, 'error');
      return;
    }
    const map = await app.callServerTool({ name: 'get_code_structure', arguments: {} });
    nodes = parseStructure(resultText(map));
    if (!nodes) throw new Error(resultText(map) || 'get_code_structure gave no map');
  }
  toGraphPage({ type: 'graph', snapshot: snapshotOf(nodes) });
  const focus = tool === 'query_graph' && !result.isError ? focusOf(args) : null;
  if (focus && nodes.some((n) => n.name === focus.name)) {
    toGraphPage({ type: 'focus', name: focus.name, mode: focus.mode });
    const impact = $<HTMLButtonElement>('impact');
    if ((impact.getAttribute('aria-pressed') === 'true') !== focus.impact) impact.click();
    // The whole answer in view (the page centres the atom at a readable zoom, which can hide what it lights up).
    requestAnimationFrame(() => $('fit').click());
  }
}

/** A click selects an atom (the page lights up its neighbours); its code is read through the host. */
async function readAtom(name: string): Promise<void> {
  const mine = ++reading;
  if (!app.getHostCapabilities()?.serverTools) return;
  const result = await app.callServerTool({ name: 'read_atoms', arguments: { names: [name] } });
  if (mine !== reading) return;
  showCode(code, resultText(result));
  code.dataset.atom = name;
}

onGraphPage((m: GraphToHost) => {
  if (m.type === 'selected') {
    if (m.name) void readAtom(m.name).catch((err: Error) => say(`Could not read ${m.name}: ${err.message}`, 'error'));
    else {
      reading++;
      code.hidden = true;
      code.dataset.atom = '';
    }
  } else if (m.type === 'open') void readAtom(m.name).catch(() => {});
  else if (m.type === 'error') say(m.message, 'error');
});
