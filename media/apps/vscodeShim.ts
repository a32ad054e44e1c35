/**
 * The editor's graph page (media/graph/main.ts) talks to VS Code through `acquireVsCodeApi()`. In the
 * chat app there is no VS Code webview API, so the build injects this module in its place (esbuild's
 * `inject`, scripts/buildApps.mjs): the page's messages go to the app's controller (graph.mts), and the
 * controller's messages reach the page as the window messages it already listens for. The page itself
 * is reused unchanged.
 */
import type { GraphToHost, HostToGraph } from '../../src/protocol/webviewMessages.js';

const listeners: ((message: GraphToHost) => void)[] = [];
let state: unknown;

export function acquireVsCodeApi(): { postMessage(message: GraphToHost): void; setState(s: unknown): void; getState(): unknown } {
  return {
    postMessage: (message) => listeners.forEach((l) => l(message)),
    setState: (s) => void (state = s),
    getState: () => state,
  };
}

/** What the graph page says (ready, selected, open, rendered, error). */
export function onGraphPage(listener: (message: GraphToHost) => void): void {
  listeners.push(listener);
}

/**
 * Tells the graph page something, as the editor's panel would. A MessageEvent with no source: the
 * ext-apps transport only accepts messages whose source is the host's window, so it ignores these.
 */
export function toGraphPage(message: HostToGraph): void {
  window.dispatchEvent(new MessageEvent('message', { data: message }));
}
