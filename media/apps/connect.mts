/**
 * What both chat apps share: the connection to the host (the ext-apps SDK's App over postMessage), the
 * host's theme and style variables, and reading a tool result's text.
 *
 * The pages are styled with VS Code's variable names (the editor's graph CSS and theme.ts read them);
 * apps.css maps them to the MCP Apps style variables a host provides, with VS Code's dark colours as
 * fallbacks. Cytoscape needs concrete colours, so after every theme change each variable is resolved once
 * (a host may give `light-dark(...)` or `var(...)` values) and written back as a plain colour.
 */
import { App, applyDocumentTheme, applyHostStyleVariables, PostMessageTransport, type McpUiHostContext } from '@modelcontextprotocol/ext-apps';

const RESOLVED = [
  '--vscode-editor-background',
  '--vscode-editor-foreground',
  '--vscode-foreground',
  '--vscode-descriptionForeground',
  '--vscode-editorLineNumber-foreground',
  '--vscode-focusBorder',
  '--vscode-errorForeground',
  '--vscode-charts-red',
  '--vscode-charts-blue',
  '--vscode-charts-green',
  '--vscode-charts-yellow',
];

export interface Connected {
  app: App;
  /** Resolves once the host has answered ui/initialize (handlers are set before, so nothing is missed). */
  ready: Promise<void>;
}

/** Connects to the host; `setup` registers the app's handlers before the handshake, `themed` runs after each theme change. */
export function connect(name: string, setup: (app: App) => void, themed: () => void = () => {}): Connected {
  const app = new App({ name, version: '1.0.0' }, {}, { autoResize: true });
  const apply = (context: McpUiHostContext | undefined) => {
    if (!context) return;
    if (context.theme) applyDocumentTheme(context.theme);
    if (context.styles?.variables) applyHostStyleVariables(context.styles.variables);
    resolveColours();
    themed();
  };
  app.onhostcontextchanged = (context) => apply(context);
  setup(app);
  const ready = app.connect(new PostMessageTransport(window.parent, window.parent)).then(() => apply(app.getHostContext()));
  return { app, ready };
}

/** The variables this page wrote (a host's own values on the root are left alone). */
const written = new Set<string>();

/** Writes each colour variable back as the concrete colour it computes to (see the header). */
function resolveColours(): void {
  const root = document.documentElement;
  const probe = document.createElement('span');
  probe.hidden = true;
  document.body.append(probe);
  for (const name of RESOLVED) {
    if (written.has(name)) root.style.removeProperty(name);
    else if (root.style.getPropertyValue(name)) continue;
    written.add(name);
    probe.style.color = `var(${name})`;
    const colour = getComputedStyle(probe).color;
    if (colour) root.style.setProperty(name, colour);
  }
  probe.remove();
}

/** The text of a tool result (its text items joined), as the model reads it. */
export function resultText(result: { content?: { type: string; text?: string }[] }): string {
  return (result.content ?? [])
    .filter((c) => c.type === 'text')
    .map((c) => c.text ?? '')
    .join('');
}

export const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/** Shows an atom's code (a read_atoms answer) in a `<pre>`, with `line` (1-based, in the code) marked. */
export function showCode(pre: HTMLElement, text: string, line?: number | null): void {
  pre.replaceChildren();
  const lines = text.split('\n');
  // read_atoms' header comments come before the code: line 1 of the code is the line of `function`.
  const first = lines.findIndex((l) => /^(async\s+)?function\b/.test(l));
  lines.forEach((l, i) => {
    const row = document.createElement('span');
    row.textContent = `${l}\n`;
    if (line && first >= 0 && i === first + line - 1) row.className = 'mark';
    pre.append(row);
  });
  pre.hidden = false;
  // The marked line in the middle of the pane (the pane scrolls, the page does not).
  const mark = pre.querySelector<HTMLElement>('.mark');
  if (mark) pre.scrollTop = mark.offsetTop - pre.offsetTop - pre.clientHeight / 2;
}
