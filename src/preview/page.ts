/**
 * The preview page: the workspace's own `preview.html` or a built-in page with a canvas, with a small
 * prelude script in front of everything (it reports console output and runtime errors) and the bundle
 * where the page loads `latest.js`. Pure string work, shared by the webview and the loopback server.
 */
import { frameCsp, withCsp } from './csp.js';

/** The built-in page: a canvas with the id `game`, sized for the sample, and the bundle. */
export const DEFAULT_PAGE = `<!doctype html>
<html>
<head>
<meta charset="utf-8">
<title>Atomic Coding preview</title>
<style>
  html, body { margin: 0; height: 100%; background: #14161a; color: #ddd; font: 13px system-ui, sans-serif; }
  body { display: flex; align-items: center; justify-content: center; }
  canvas { display: block; max-width: 100%; max-height: 100%; outline: none; }
</style>
</head>
<body>
<canvas id="game" width="800" height="450" tabindex="0"></canvas>
<script src="latest.js"></script>
</body>
</html>
`;

/** How the prelude reports: to the webview that holds the page's frame, or to the loopback server. */
export type PreludeTransport = 'parent' | 'http';

/** What the prelude sends; the receiver maps `stack`/`line` to an atom with BundleMap. */
export type PreludeReport =
  | { source: 'atomic-preview'; kind: 'console'; level: string; text: string; stack: string | null }
  | { source: 'atomic-preview'; kind: 'error'; message: string; stack: string | null; line: number | null }
  | { source: 'atomic-preview'; kind: 'loaded' };

/**
 * The script that runs before the bundle. It wraps `console` and listens for errors and rejected
 * promises, and sends each as a PreludeReport. Over HTTP it also follows the server's build events:
 * reload after a successful build, show the error of a failed one. `base` is the server's path of the
 * preview (its secret prefix, ending in `/`); the reports and the events are under it.
 */
export function preludeScript(transport: PreludeTransport, base = '/'): string {
  const at = (name: string) => JSON.stringify(base + name);
  const send =
    transport === 'parent'
      ? `function send(m) { try { parent.postMessage(m, '*'); } catch (e) {} }`
      : `function send(m) { try { fetch(${at('log')}, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(m), keepalive: true }); } catch (e) {} }`;
  const live =
    transport === 'http'
      ? `
  var events = new EventSource(${at('events')});
  events.addEventListener('reload', function () { location.reload(); });
  events.addEventListener('buildFailed', function (e) {
    var error = ''; try { error = JSON.parse(e.data).error; } catch (x) {}
    document.documentElement.innerHTML = '';
    var pre = document.createElement('pre');
    pre.id = 'atomic-build-error';
    pre.textContent = 'The last build failed; this page shows no stale result.\\n\\n' + error;
    pre.style.cssText = 'color:#f48771;background:#1e1e1e;margin:0;padding:16px;white-space:pre-wrap;min-height:100vh;font:13px monospace';
    document.documentElement.appendChild(pre);
  });`
      : '';
  return `(function () {
  "use strict";
  ${send}
  var MAX = 4000;
  function show(v) {
    if (typeof v === 'string') return v;
    if (v instanceof Error) return v.stack || String(v);
    try { var s = JSON.stringify(v); return s === undefined ? String(v) : s; } catch (e) { return String(v); }
  }
  ['log', 'info', 'warn', 'error', 'debug'].forEach(function (level) {
    var original = console[level];
    console[level] = function () {
      var text = Array.prototype.map.call(arguments, show).join(' ');
      if (text.length > MAX) text = text.slice(0, MAX) + '…';
      send({ source: 'atomic-preview', kind: 'console', level: level, text: text, stack: String(new Error().stack || '') });
      return original.apply(console, arguments);
    };
  });
  window.addEventListener('error', function (e) {
    var stack = e.error && e.error.stack ? String(e.error.stack) : null;
    send({ source: 'atomic-preview', kind: 'error', message: String(e.message || e.error || 'error'), stack: stack, line: e.lineno || null });
  });
  window.addEventListener('unhandledrejection', function (e) {
    var r = e.reason;
    send({ source: 'atomic-preview', kind: 'error', message: 'Unhandled promise rejection: ' + (r && r.message ? r.message : show(r)), stack: r && r.stack ? String(r.stack) : null, line: null });
  });
  window.addEventListener('load', function () { send({ source: 'atomic-preview', kind: 'loaded' }); });${live}
})();`;
}

export interface ComposeOptions {
  /** The page's HTML; null for DEFAULT_PAGE. */
  page: string | null;
  prelude: string;
  /** The `<script>` element that runs the bundle. */
  bundleTag: string;
  /** Added to every script and style element, for a Content-Security-Policy with a nonce. */
  nonce?: string;
}

const LATEST_TAG = /<script\b[^>]*\bsrc\s*=\s*["']?[^"'\s>]*latest\.js(?:\?[^"'\s>]*)?["']?[^>]*>\s*<\/script\s*>/i;

/**
 * The page with the prelude first in <head> and the bundle where the page loads `latest.js` (or at the
 * end of <body> when it does not).
 */
export function composePage({ page, prelude, bundleTag, nonce }: ComposeOptions): string {
  let html = page ?? DEFAULT_PAGE;
  if (nonce) html = html.replace(/<(script|style)\b(?![^>]*\bnonce=)/gi, `<$1 nonce="${nonce}"`);
  const preludeTag = `<script${nonce ? ` nonce="${nonce}"` : ''}>${prelude}</script>`;
  // Functions as replacements: a `$` in the bundle must stay a `$`.
  if (LATEST_TAG.test(html)) html = html.replace(LATEST_TAG, () => bundleTag);
  else if (/<\/body\s*>/i.test(html)) html = html.replace(/<\/body\s*>/i, (end) => `${bundleTag}\n${end}`);
  else html += bundleTag;
  if (/<head\b[^>]*>/i.test(html)) html = html.replace(/<head\b[^>]*>/i, (head) => `${head}${preludeTag}`);
  else html = preludeTag + html;
  return html;
}

/**
 * The frame's whole document in the webview: the page with the prelude, the bundle inline, every script
 * and style carrying the frame's own `nonce`, and the frame's own policy in front (see csp.ts).
 */
export function framePage(page: string | null, bundle: string, nonce: string): string {
  const policies = frameCsp(nonce);
  const html = composePage({ page, prelude: preludeScript('parent'), bundleTag: bundle ? inlineBundleTag(bundle, nonce) : '', nonce });
  return withCsp(html, policies);
}

/**
 * The page shown instead of a page that may not be shown (one outside the workspace folder): the
 * reason, and nothing of the file.
 */
export function refusedPage(message: string): string {
  const text = message.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return `<!doctype html>
<html>
<head>
<meta charset="utf-8">
<title>Atomic Coding preview: page refused</title>
<style>
  html, body { margin: 0; min-height: 100%; background: #1e1e1e; color: #f48771; font: 13px monospace; }
  pre { margin: 0; padding: 16px; white-space: pre-wrap; }
</style>
</head>
<body>
<pre id="atomic-page-refused">The preview page was not shown.

${text}</pre>
</body>
</html>
`;
}

/**
 * The bundle as an inline script: its first line is line 1 of the script, and `sourceURL` names it
 * `latest.js`, so stack traces carry the bundle's own line numbers. `</script` inside the code is
 * escaped (`<\/script` means the same in strings, templates and regular expressions).
 */
export function inlineBundleTag(bundle: string, nonce?: string): string {
  const code = bundle.replace(/<\/(script)/gi, '<\\/$1');
  return `<script${nonce ? ` nonce="${nonce}"` : ''}>${code}\n//# sourceURL=latest.js\n</script>`;
}
