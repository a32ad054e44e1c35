/**
 * The live preview for an external browser: a small HTTP server on 127.0.0.1 only that serves the
 * preview page and `latest.js`, pushes build events (Server-Sent Events) so the page reloads after every
 * successful build and shows the error of a failed one, and takes the page's console and error reports.
 *
 * Any local process and any web page can send requests to 127.0.0.1, so:
 * - everything is under a secret path, 128 random bits chosen at every start (`/<secret>/`); any other
 *   path is 404, so other local users and foreign pages cannot read the bundle or the page;
 * - every response says `Cross-Origin-Resource-Policy: same-origin`, so a page of another origin that
 *   learnt the address still cannot run latest.js with a `<script>` tag in its own origin;
 * - a report (`POST log`) must come with this server's own Origin (browsers always send one with a POST);
 * - a request whose Host is not this loopback address is refused (no DNS rebinding onto it).
 *
 * The page itself runs no atom code: it holds a sandboxed frame (`frame.html`, scripts only, an opaque
 * origin) composed as the webview's frame is (page.ts framePage: the bundle inline, the lockdown, a policy
 * with no address), relays the frame's reports to `log` and follows `events`. Its own policy (a header)
 * admits its one script by hash, connections to this server only and frames from it only.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Emitter } from '../util/event.js';
import type { BundleLocation, ConsoleLevel, SwapAtom } from '../protocol/webviewMessages.js';
import { BundleMap } from './bundleMap.js';
import { makeFrameNonce } from './csp.js';
import { bundleLineOffset, framePage, refusedPage, shellCsp, shellPage, type PreludeReport } from './page.js';

/** The page's HTML, null for the built-in page, or the reason the page may not be shown. */
export type ServedPage = string | null | { refused: string };

export interface PreviewServerOptions {
  /**
   * latest.js's text, asked for on every request (so it is always the newest); throws an Error saying
   * why when there is none to show, which the page then prints as a warning instead of running.
   */
  bundle: () => Promise<string> | string;
  /** The page to serve, asked for on every request of it. */
  page: () => Promise<ServedPage> | ServedPage;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Whether the frame runs the development form that takes swaps (hotSwap.ts); asked at every frame's load. Default off. */
  hotSwap?: () => boolean;
  /** latest.js.map's text for the debugger and the browser's developer tools, or undefined when there is none. */
  sourceMap?: () => Promise<string | undefined> | string | undefined;
}

/** A console line or a runtime error reported by a page in the browser. */
export type BrowserReport =
  | ({ kind: 'console'; level: ConsoleLevel; text: string } & BundleLocation)
  | ({ kind: 'error'; message: string } & BundleLocation);

export interface BuildEvent {
  status: 'success' | 'error';
  error: string | null;
}

const MAX_BODY = 64 * 1024;
const LEVELS = new Set(['log', 'info', 'warn', 'error', 'debug']);

export class PreviewServer {
  private readonly clients = new Set<ServerResponse>();
  private readonly reports = new Emitter<BrowserReport>();
  private lastBuild: BuildEvent | undefined;
  private map: { bundle: string; map: BundleMap } | undefined;
  /** Lines of the last frame page served above its bundle (stack traces there count the page's lines). */
  private frameOffset = 0;
  private generation = 0;
  /** The secret first part of every path: 128 random bits as hex, new at every start. */
  private readonly secret = randomBytes(16).toString('hex');

  /** Fired for each console line and runtime error a browser reports. */
  readonly onDidReport = this.reports.event;

  private constructor(
    private readonly server: Server,
    private readonly options: PreviewServerOptions,
  ) {}

  static start(options: PreviewServerOptions): Promise<PreviewServer> {
    return new Promise((resolve, reject) => {
      const http = createServer();
      const preview = new PreviewServer(http, options);
      http.on('request', (req, res) => void preview.handle(req, res));
      http.once('error', reject);
      http.listen(options.port ?? 0, '127.0.0.1', () => {
        http.off('error', reject);
        resolve(preview);
      });
    });
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The preview's address, secret path included: only whoever is given it can open the preview. */
  get url(): string {
    return `http://127.0.0.1:${this.port}${this.base}`;
  }

  /** The path every resource is under: `/<secret>/`. */
  private get base(): string {
    return `/${this.secret}/`;
  }

  /** Number of pages listening for build events. */
  get listeners(): number {
    return this.clients.size;
  }

  /** Tells every open page about a build: a success reloads it, a failure replaces it with the error. */
  notifyBuild(build: BuildEvent): void {
    this.lastBuild = build;
    this.generation++;
    for (const res of this.clients) writeEvent(res, build);
  }

  /**
   * Tells every open page to take these atoms' new code in place (hotSwap.ts): a page running the
   * current generation swaps and runs the next; any other page reloads.
   */
  notifySwap(atoms: readonly SwapAtom[]): void {
    this.lastBuild = { status: 'success', error: null };
    const from = this.generation;
    this.generation++;
    const data = JSON.stringify({ from, generation: this.generation, atoms });
    for (const res of this.clients) res.write(`event: swap\ndata: ${data}\n\n`);
  }

  async close(): Promise<void> {
    for (const res of this.clients) res.end();
    this.clients.clear();
    this.reports.dispose();
    this.server.closeAllConnections?.();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    // The address holds the secret: a link or a resource of the page must not carry it elsewhere.
    res.setHeader('Referrer-Policy', 'no-referrer');
    if (!this.isLoopbackHost(req.headers.host)) return end(res, 403, 'text/plain', 'forbidden: this preview answers only on its 127.0.0.1 address\n');
    const path = this.localPath(req.url ?? '/');
    try {
      if (path === null) return end(res, 404, 'text/plain', 'not found\n');
      if (req.method === 'GET' && (path === '' || path === 'index.html')) {
        const shell = shellPage(this.base, this.generation);
        res.setHeader('Content-Security-Policy', shellCsp(shell.script));
        return end(res, 200, 'text/html; charset=utf-8', shell.html);
      }
      if (req.method === 'GET' && path === 'frame.html') {
        // Sandboxed even when opened on its own: scripts only, in an opaque origin.
        res.setHeader('Content-Security-Policy', 'sandbox allow-scripts');
        return end(res, 200, 'text/html; charset=utf-8', await this.frameHtml());
      }
      if (req.method === 'GET' && path === 'latest.js') return end(res, 200, 'text/javascript; charset=utf-8', await this.bundle());
      if (req.method === 'GET' && path === 'latest.js.map') {
        const map = await this.options.sourceMap?.();
        return map === undefined ? end(res, 404, 'text/plain', 'no source map\n') : end(res, 200, 'application/json; charset=utf-8', map);
      }
      if (req.method === 'GET' && path === 'events') return this.subscribe(res);
      if (req.method === 'POST' && path === 'log') return await this.receiveReport(req, res);
      return end(res, 404, 'text/plain', 'not found\n');
    } catch (err) {
      return end(res, 500, 'text/plain', `preview: ${(err as Error).message}\n`);
    }
  }

  private isLoopbackHost(host: string | undefined): boolean {
    return host === `127.0.0.1:${this.port}` || host === `localhost:${this.port}`;
  }

  /** The origins of this server's own pages (the Host check admits both names). */
  private isOwnOrigin(origin: string | undefined): boolean {
    return origin === `http://127.0.0.1:${this.port}` || origin === `http://localhost:${this.port}`;
  }

  /** The part of a request's path after `/<secret>/`, or null when it does not start with it. */
  private localPath(url: string): string | null {
    const path = new URL(url, 'http://127.0.0.1').pathname;
    const base = Buffer.from(this.base);
    const given = Buffer.from(path.slice(0, base.length));
    // Compared in constant time, so the answer's timing does not reveal how much of a guess was right.
    if (given.length !== base.length || !timingSafeEqual(given, base)) return null;
    return path.slice(base.length);
  }

  /** The frame's page, composed as the webview's frame is (framePage): the bundle inline, its own policy. */
  private async frameHtml(): Promise<string> {
    const page = await this.options.page();
    // A refused page: the reason, without the bundle (it would run against a page that is not there).
    if (page !== null && typeof page === 'object') return framePage(refusedPage(page.refused), '', makeFrameNonce());
    // The map named by its address, so a debugger attached to the browser finds latest.js.map; the bundle
    // is the page's own inline script (no sourceURL, see inlineBundleTag): its stack frames name
    // frame.html, counted from the page's first line.
    const bundle = await this.bundle();
    const html = framePage(page, bundle, makeFrameNonce(), this.options.hotSwap?.() ?? false, `${this.url}latest.js`);
    this.frameOffset = bundleLineOffset(html, bundle);
    return html;
  }

  private async bundle(): Promise<string> {
    try {
      return await this.options.bundle();
    } catch (err) {
      return `console.warn(${JSON.stringify((err as Error).message).replace(/</g, '\\u003c')});\n`;
    }
  }

  private subscribe(res: ServerResponse): void {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', Connection: 'keep-alive' });
    res.write(': atomic coding preview\n\n');
    if (this.lastBuild?.status === 'error') writeEvent(res, this.lastBuild);
    this.clients.add(res);
    res.on('close', () => this.clients.delete(res));
  }

  private async receiveReport(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Browsers send an Origin with every POST; a request without one is not from the preview's page.
    if (!this.isOwnOrigin(req.headers.origin)) {
      return end(res, 403, 'text/plain', `forbidden: reports are taken only from the preview's own page (Origin http://127.0.0.1:${this.port})\n`);
    }
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch (err) {
      return end(res, 400, 'text/plain', `${(err as Error).message}\n`);
    }
    const kind = (body as { kind?: unknown } | null)?.kind;
    if (kind === 'loaded') return end(res, 204, 'text/plain', ''); // the page's load: nothing to log
    if (kind === 'swapped') {
      const names = (body as { names?: unknown }).names;
      if (Array.isArray(names) && names.length <= 5000 && names.every((n) => typeof n === 'string' && /^[a-z][a-z0-9_]*$/.test(n))) {
        this.reports.fire({ kind: 'console', level: 'info', text: `swapped: ${names.join(', ')}`, atom: null, line: null, atomLine: null });
      }
      return end(res, 204, 'text/plain', '');
    }
    const report = await this.toReport(body);
    if (!report) return end(res, 400, 'text/plain', 'not a preview report\n');
    this.reports.fire(report);
    end(res, 204, 'text/plain', '');
  }

  /** Checks a page's report and maps its stack to an atom; null when it is not a well-formed report. */
  private async toReport(body: unknown): Promise<BrowserReport | null> {
    const r = body as Partial<Record<keyof PreludeReport | 'level' | 'text' | 'message' | 'stack' | 'line', unknown>>;
    if (typeof r !== 'object' || r === null || r.source !== 'atomic-preview') return null;
    const stack = typeof r.stack === 'string' ? r.stack : null;
    const line = typeof r.line === 'number' && Number.isInteger(r.line) && r.line > 0 ? r.line : null;
    if (r.kind === 'console' && typeof r.level === 'string' && LEVELS.has(r.level) && typeof r.text === 'string') {
      return { kind: 'console', level: r.level as ConsoleLevel, text: r.text, ...(await this.locate(stack, null)) };
    }
    if (r.kind === 'swapFailed' && typeof r.message === 'string') return { kind: 'error', message: `swap failed: ${r.message}`, atom: null, line: null, atomLine: null };
    if (r.kind === 'error' && typeof r.message === 'string') {
      return { kind: 'error', message: r.message, ...(await this.locate(stack, line)) };
    }
    return null;
  }

  private async locate(stack: string | null, line: number | null): Promise<BundleLocation> {
    const bundle = await this.bundle();
    if (this.map?.bundle !== bundle) this.map = { bundle, map: new BundleMap(bundle) };
    // The offset depends on the page around the bundle, the same for every bundle until the page changes.
    return this.map.map.locate(stack, line, 'frame.html', this.frameOffset);
  }
}

function writeEvent(res: ServerResponse, build: BuildEvent): void {
  if (build.status === 'success') res.write('event: reload\ndata: {}\n\n');
  else res.write(`event: buildFailed\ndata: ${JSON.stringify({ error: build.error ?? 'the build failed' })}\n\n`);
}

function end(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'Content-Type': type });
  res.end(body);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new Error(`report larger than ${MAX_BODY} bytes`));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
