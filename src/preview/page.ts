/**
 * The preview page: the workspace's own `preview.html` or a built-in page with a canvas, with a small
 * prelude script in front of everything (it reports console output and runtime errors) and the bundle
 * where the page loads `latest.js`. Pure string work, shared by the webview and the loopback server.
 */
import { frameCsp, withCsp } from './csp.js';
import { developmentBundle, FRAME_SWAP_LISTENER } from './hotSwap.js';
import { sha256Base64 } from './sha256.js';

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
  | { source: 'atomic-preview'; kind: 'loaded' }
  /** A swap (hotSwap.ts) took the new functions: `id` is the swap's. */
  | { source: 'atomic-preview'; kind: 'swapped'; id: number; names: string[] }
  | { source: 'atomic-preview'; kind: 'swapFailed'; id: number; message: string };

/**
 * The script that runs before the bundle. It wraps `console` and listens for errors and rejected
 * promises, and sends each as a PreludeReport. Over HTTP it also follows the server's build events:
 * reload after a successful build, show the error of a failed one. `base` is the server's path of the
 * preview (its secret prefix, ending in `/`); the reports and the events are under it.
 */
export function preludeScript(transport: PreludeTransport, base = '/', hotSwap = false): string {
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
  window.addEventListener('load', function () { send({ source: 'atomic-preview', kind: 'loaded' }); });${live}${hotSwap ? FRAME_SWAP_LISTENER : ''}
})();`;
}

export interface ComposeOptions {
  /** The page's HTML; null for DEFAULT_PAGE. */
  page: string | null;
  prelude: string;
  /** The `<script>` element that runs the bundle. */
  bundleTag: string;
  /** Added to every style element (and script element, unless `scriptNonce` is false), for a Content-Security-Policy with a nonce. */
  nonce?: string;
  scriptNonce?: boolean;
}

const LATEST_TAG = /<script\b[^>]*\bsrc\s*=\s*["']?[^"'\s>]*latest\.js(?:\?[^"'\s>]*)?["']?[^>]*>\s*<\/script\s*>/i;

/**
 * The page with the prelude first in <head> and the bundle where the page loads `latest.js` (or at the
 * end of <body> when it does not).
 */
export function composePage({ page, prelude, bundleTag, nonce, scriptNonce = true }: ComposeOptions): string {
  let html = page ?? DEFAULT_PAGE;
  if (nonce) html = html.replace(scriptNonce ? /<(script|style)\b(?![^>]*\bnonce=)/gi : /<(style)\b(?![^>]*\bnonce=)/gi, `<$1 nonce="${nonce}"`);
  const preludeTag = `<script${nonce && scriptNonce ? ` nonce="${nonce}"` : ''}>${prelude}</script>`;
  // Functions as replacements: a `$` in the bundle must stay a `$`.
  if (LATEST_TAG.test(html)) html = html.replace(LATEST_TAG, () => bundleTag);
  else if (/<\/body\s*>/i.test(html)) html = html.replace(/<\/body\s*>/i, (end) => `${bundleTag}\n${end}`);
  else html += bundleTag;
  if (/<head\b[^>]*>/i.test(html)) html = html.replace(/<head\b[^>]*>/i, (head) => `${head}${preludeTag}`);
  else html = preludeTag + html;
  return html;
}

/**
 * The first statement of every script the frame may run (one line, so the bundle's lines stay its own):
 * it takes away, in the realm it runs in, what could reach the network where the frame's policy does not
 * reach: WebRTC (RTCPeerConnection and every other RTC interface; ICE sends STUN/TURN packets to any
 * address, and Content-Security-Policy has no directive Chromium knows for it), WebTransport and direct
 * sockets. Each name becomes undefined, fixed for good. Idempotent: a script copied into a nested
 * frame carries it along (the policy admits only scripts that begin with it, by hash).
 */
export const LOCKDOWN_SCRIPT =
  '(function(w){var n=Object.getOwnPropertyNames(w);for(var i=0;i<n.length;i++){if(/^(webkit)?RTC|^WebTransport|^(TCP|UDP|TCPServer)Socket$|^MulticastController$/.test(n[i])){try{Object.defineProperty(w,n[i],{value:undefined,writable:false,configurable:false});}catch(e){try{delete w[n[i]];}catch(x){}}}}})(self);';

/** An inline script's text as the HTML parser hands it to the Content-Security-Policy check. */
function parsedScriptText(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/\0/g, '\uFFFD');
}

const INLINE_SCRIPT = /(<script\b[^>]*>)([\s\S]*?)(<\/script\s*>)/gi;

/**
 * The frame's whole document in the webview: the page with the prelude, the bundle inline, every inline
 * script beginning with the lockdown and admitted by its hash, every style carrying the frame's own
 * `nonce`, the frame's own policy in front (see csp.ts), and no DNS prefetching.
 */
export function framePage(page: string | null, bundle: string, nonce: string, hotSwap = false, scriptUrl = 'latest.js'): string {
  // With hot swap, the development form of the bundle and the prelude's swap listener (hotSwap.ts).
  const code = hotSwap ? developmentBundle(bundle) : bundle;
  const composed = composePage({ page, prelude: preludeScript('parent', '/', hotSwap), bundleTag: code ? inlineBundleTag(code, undefined, scriptUrl) : '', nonce, scriptNonce: false });
  const hashes: string[] = [];
  const html = composed.replace(INLINE_SCRIPT, (_all, open: string, code: string, close: string) => {
    // A script with an address loads nothing here (the policy names none): left as it is, it never runs.
    if (/\bsrc\s*=/i.test(open)) return open + code + close;
    // A data block (JSON, a template) is not code: left as it is, and not admitted as a script.
    const type = /\btype\s*=\s*["']?([^"'\s>]*)/i.exec(open)?.[1]?.toLowerCase();
    if (type && type !== 'module' && !/^(text|application)\/(x-)?(java|ecma)script$/.test(type)) return open + code + close;
    const locked = LOCKDOWN_SCRIPT + code;
    hashes.push(sha256Base64(parsedScriptText(locked)));
    return open + locked + close;
  });
  return withCsp(html, frameCsp(nonce, hashes, hotSwap), '<meta http-equiv="x-dns-prefetch-control" content="off">');
}

/**
 * The loopback preview's page in the browser: no atom code, only a sandboxed frame (scripts only, an
 * opaque origin, the frame's page under `base` + `frame.html`, which the server composes as the webview's
 * frame is composed, framePage) and a script that relays the frame's reports to the server's log and
 * follows its build events. The script is admitted by its hash (`shellCsp`).
 */
export function shellPage(base: string, generation: number): { html: string; script: string } {
  const at = (name: string) => JSON.stringify(base + name);
  const script = `(function () {
  "use strict";
  var frame = document.getElementById('frame');
  var generation = ${generation};
  window.addEventListener('message', function (e) {
    var m = e.data;
    if (!frame || e.source !== frame.contentWindow || !m || m.source !== 'atomic-preview') return;
    try { fetch(${at('log')}, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(m), keepalive: true }).catch(function () {}); } catch (x) {}
    if (m.kind === 'swapFailed') location.reload();
  });
  var events = new EventSource(${at('events')});
  events.addEventListener('reload', function () { location.reload(); });
  events.addEventListener('swap', function (e) {
    var d = null; try { d = JSON.parse(e.data); } catch (x) {}
    if (!d || !frame || !frame.contentWindow || d.from !== generation) { location.reload(); return; }
    generation = d.generation;
    frame.contentWindow.postMessage({ source: 'atomic-host', kind: 'swap', id: d.generation, atoms: d.atoms }, '*');
  });
  events.addEventListener('buildFailed', function (e) {
    var error = ''; try { error = JSON.parse(e.data).error; } catch (x) {}
    if (frame) frame.remove();
    frame = null;
    var pre = document.getElementById('atomic-build-error') || document.body.appendChild(document.createElement('pre'));
    pre.id = 'atomic-build-error';
    pre.textContent = 'The last build failed; this page shows no stale result.\\n\\n' + error;
  });
})();`;
  const html = `<!doctype html>
<html>
<head>
<meta charset="utf-8">
<meta http-equiv="x-dns-prefetch-control" content="off">
<title>Atomic Coding preview</title>
<style>
  html, body { margin: 0; height: 100%; background: #14161a; }
  #frame { display: block; width: 100%; height: 100%; border: 0; }
  #atomic-build-error { color: #f48771; background: #1e1e1e; margin: 0; padding: 16px; white-space: pre-wrap; min-height: 100vh; font: 13px monospace; box-sizing: border-box; }
</style>
</head>
<body>
<iframe id="frame" title="Preview of latest.js" sandbox="allow-scripts" src="${base}frame.html?v=${generation}"></iframe>
<script>${script}</script>
</body>
</html>
`;
  return { html, script };
}

/**
 * The policy of the loopback preview's page (an HTTP header): its own script by hash, its styles, its
 * frame from this server, connections to this server only (the log, the build events), nothing else.
 */
export function shellCsp(script: string): string {
  return `default-src 'none'; script-src 'sha256-${sha256Base64(script)}'; style-src 'unsafe-inline'; connect-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'none'; webrtc 'block'`;
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
 * The bundle as an inline script. In the webview (`scriptUrl` `latest.js`) a `sourceURL` names it
 * `latest.js`, so stack traces carry the bundle's own line numbers. Served from an address (the loopback
 * preview, `scriptUrl` its latest.js), it has no `sourceURL`: it is the page's own inline script, and the
 * map line names latest.js.map by its address. A debugger needs that: for an inline script with a
 * `sourceURL`, Chromium reports the script's start in the page (Debugger.scriptParsed) but positions
 * inside it from the script's first line, and js-debug, which adds the start to every position of an
 * inline script, then sets breakpoints and maps paused frames a page's worth of lines off (no breakpoint
 * in an atom ever bound). Stack traces there name the page with its lines (`bundleLineOffset`).
 * `</script` inside the code is escaped (`<\/script` means the same in strings, templates and regular
 * expressions).
 */
export function inlineBundleTag(bundle: string, nonce?: string, scriptUrl = 'latest.js'): string {
  let code = bundle.replace(/<\/(script)/gi, '<\\/$1');
  const open = `<script${nonce ? ` nonce="${nonce}"` : ''}>`;
  if (scriptUrl === 'latest.js') return `${open}${code}\n//# sourceURL=${scriptUrl}\n</script>`;
  // A map named by an address: the bundle's own line names it relative to latest.js, which an inline script is not.
  code = code.replace(/\/\/# sourceMappingURL=([^\n]*)\n?$/, (_all, name: string) => `//# sourceMappingURL=${new URL(name, scriptUrl).href}\n`);
  return `${open}${code}\n</script>`;
}

/**
 * Lines of `html` (a frame page, framePage) above the first line of `bundle` in it, for stack traces of
 * a bundle inlined without a `sourceURL` (they count the page's lines); 0 when it is not there.
 */
export function bundleLineOffset(html: string, bundle: string): number {
  const firstLine = bundle.slice(0, bundle.indexOf('\n') >>> 0).replace(/<\/(script)/gi, '<\\/$1');
  if (!firstLine) return 0;
  const at = html.indexOf(LOCKDOWN_SCRIPT + firstLine);
  if (at < 0) return 0;
  let n = 0;
  for (let i = html.indexOf('\n'); i >= 0 && i < at; i = html.indexOf('\n', i + 1)) n++;
  return n;
}
