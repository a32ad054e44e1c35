/**
 * The Streamable HTTP host: one MCP session per client on 127.0.0.1, behind the auth gate.
 * `GET /health` answers without a token; `/mcp` needs `Authorization: Bearer <token>`.
 * It writes `.atomic/server.json` (owner-only) so local clients and the CLI bridge find it, and
 * answers the bridge's health challenge (see `healthProof`) so the bridge can tell it from a
 * server.json that some other program wrote.
 *
 * Sessions: an id is 128 random bits and is the session's only secret (see `newSessionId`). A client
 * that never ends its session (DELETE /mcp) does not hold a slot for ever: at the cap, a new client
 * takes the place of the least recently used idle session. A session with a request in flight or an
 * open GET stream is live and never reclaimed; only when all are live is a new client refused.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { chmodSync, realpathSync, unlinkSync } from 'node:fs';
import { readPlainFileSync } from '../../util/safeFile.js';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { VERSION } from '../../version.js';
import { writeFileAtomicSync } from '../../util/atomicFile.js';
import type { Logger } from '../../util/log.js';
import type { AtomWorkspace } from '../../workspace.js';
import { CHALLENGE_HEADER, hasValidToken, healthProof, isAllowedOrigin, isChallenge, isLoopbackHost, newSessionId, newToken, PROOF_HEADER } from './auth.js';
import { createMcpServer, SessionRegistry } from '../server.js';
import type { ToolDefinition } from '../tool.js';

export interface HttpHostOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  token?: string;
  /** Largest accepted request body; default 4 MiB (an atom is at most 2 KB, a batch far less than this). */
  maxBodyBytes?: number;
  /** Most sessions at once; default 64. At the cap the least recently used idle one makes room. */
  maxSessions?: number;
  /** Sessions idle this long are closed; default 30 minutes. */
  sessionIdleMs?: number;
  /**
   * A session without a stream open or a request in flight counts as a connected client (get_status) for
   * this long after its last request; default 60 s. A client that went away without ending its session
   * (killed, crashed) has no stream open, so it stops being counted then, long before the idle sweep.
   */
  sessionActiveMs?: number;
  /** Write `.atomic/server.json`; default true. */
  writeServerInfo?: boolean;
  /** The tools each session offers; default every product tool (`allTools`). */
  tools?: ToolDefinition[];
}

export interface ServerInfo {
  url: string;
  token: string;
  pid: number;
  version: string;
  workspace: string;
}

/** The name `GET /health` gives, as the contract has it (initialize names the server `atomic-coding`). */
export const HEALTH_SERVER_NAME = 'atomic-coding-mcp';

interface Session {
  /** A number for the logs: the id is the session's secret and is never logged. */
  seq: number;
  transport: StreamableHTTPServerTransport;
  server: Server;
  /** When a request of the session last started or ended (the idle sweep). */
  lastSeen: number;
  /** The same as an ever-growing tick, so the least recently used session is never a tie. */
  lastUse: number;
  /** Requests in flight, an open GET stream included: a busy session is never reclaimed. */
  busy: number;
}

export class McpHttpHost {
  readonly sessions = new SessionRegistry();
  private readonly live = new Map<string, Session>();
  /** Sessions whose initialize is being answered and not yet in `live`. */
  private opening = 0;
  private seq = 0;
  private tick = 0;
  private workspaceRealPath = '';
  private http!: HttpServer;
  private sweeper: NodeJS.Timeout | undefined;
  private infoFile: string | undefined;
  readonly token: string;
  port = 0;

  private constructor(
    readonly workspace: AtomWorkspace,
    private readonly log: Logger,
    private readonly options: HttpHostOptions,
  ) {
    this.token = options.token ?? newToken();
  }

  static async start(workspace: AtomWorkspace, log: Logger, options: HttpHostOptions = {}): Promise<McpHttpHost> {
    const host = new McpHttpHost(workspace, log, options);
    await host.listen();
    return host;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/mcp`;
  }

  get info(): ServerInfo {
    return { url: this.url, token: this.token, pid: process.pid, version: VERSION, workspace: this.workspace.dir };
  }

  private async listen(): Promise<void> {
    try {
      this.workspaceRealPath = realpathSync(this.workspace.dir);
    } catch {
      this.workspaceRealPath = this.workspace.dir;
    }
    this.http = createServer((req, res) => {
      this.handle(req, res).catch((err) => {
        this.log.error(`http: ${(err as Error).stack ?? err}`);
        if (!res.headersSent) sendJson(res, 500, rpcError(-32603, 'internal server error; see the server log'));
        else res.end();
      });
    });
    this.http.headersTimeout = 30_000;
    this.http.requestTimeout = 120_000;
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(this.options.port ?? 0, '127.0.0.1', () => {
        this.http.off('error', reject);
        resolve();
      });
    });
    this.port = (this.http.address() as AddressInfo).port;
    this.sweeper = setInterval(() => this.sweepIdle(), Math.min(this.idleMs, 60_000));
    this.sweeper.unref();
    if (this.options.writeServerInfo !== false) this.writeInfo();
  }

  private writeInfo(): void {
    this.infoFile = join(this.workspace.atoms.atomicDir, 'server.json');
    writeFileAtomicSync(this.infoFile, JSON.stringify(this.info, null, 2) + '\n', 0o600);
    chmodSync(this.infoFile, 0o600);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (!isLoopbackHost(req.headers.host)) {
      return sendJson(res, 403, rpcError(-32000, 'Forbidden: the Host header must be a loopback address (127.0.0.1, localhost or [::1])'));
    }
    if (!isAllowedOrigin(req.headers.origin)) {
      return sendJson(res, 403, rpcError(-32000, 'Forbidden: requests from a web page on another origin are not accepted'));
    }
    const accept = req.headers.accept ?? '';
    if (path === '/health' || (path === '/mcp' && req.method === 'GET' && !accept.includes('text/event-stream'))) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(res, 405, { error: 'use GET' });
      const challenge = headerValue(req.headers[CHALLENGE_HEADER]);
      if (isChallenge(challenge)) res.setHeader(PROOF_HEADER, healthProof(this.token, challenge, this.workspaceRealPath));
      return sendJson(res, 200, { status: 'ok', server: HEALTH_SERVER_NAME, version: VERSION });
    }
    if (path !== '/mcp') return sendJson(res, 404, { error: 'not found: the MCP endpoint is /mcp' });
    if (!hasValidToken(req.headers.authorization, this.token)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="atomic-coding"');
      return sendJson(res, 401, rpcError(-32001, 'Unauthorized: send Authorization: Bearer <token> (the token is in .atomic/server.json)'));
    }

    let body: unknown;
    if (req.method === 'POST') {
      const read = await readBody(req, this.options.maxBodyBytes ?? 4 * 1024 * 1024);
      if (read === 'too_large') {
        return sendJson(res, 413, rpcError(-32600, `request body too large (limit ${this.options.maxBodyBytes ?? 4 * 1024 * 1024} bytes)`), true);
      }
      try {
        body = JSON.parse(read.toString('utf8'));
      } catch {
        return sendJson(res, 400, rpcError(-32700, 'Parse error: the body is not valid JSON'));
      }
    }

    const sessionId = headerValue(req.headers['mcp-session-id']);
    if (sessionId) {
      const session = this.live.get(sessionId);
      // One answer for an id that expired, was reclaimed or never existed: no oracle for guessing.
      if (!session) return sendJson(res, 404, rpcError(-32001, 'Session not found: it expired or the server restarted; initialize again'));
      this.track(session, res);
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !isInitialize(body)) {
      return sendJson(res, 400, rpcError(-32000, 'Bad Request: no Mcp-Session-Id header; start with an initialize request'));
    }
    const max = this.options.maxSessions ?? 64;
    if (this.live.size + this.opening >= max && !this.reclaimIdle()) {
      return sendJson(
        res,
        503,
        rpcError(-32000, `too many busy sessions: all ${max} have a request in flight or an open stream; retry in a moment, or end one (DELETE /mcp)`),
      );
    }
    this.opening++;
    try {
      await this.openSession(req, res, body);
    } finally {
      this.opening--;
    }
  }

  private async openSession(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const server = createMcpServer({ workspace: this.workspace, log: this.log, sessions: this.sessions, tools: this.options.tools });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: newSessionId,
      onsessioninitialized: (id) => {
        const session: Session = { seq: ++this.seq, transport, server, lastSeen: 0, lastUse: 0, busy: 0 };
        this.live.set(id, session);
        this.track(session, res); // the initialize answer is still being written
        const activeMs = this.options.sessionActiveMs ?? 60_000;
        this.sessions.setLiveness(server, () => session.busy > 0 || Date.now() - session.lastSeen < activeMs);
        this.log.info(`mcp: session #${session.seq} opened (${this.live.size} open)`);
      },
      onsessionclosed: (id) => this.forget(id),
    });
    transport.onclose = () => {
      if (transport.sessionId) this.forget(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
    // An initialize that was refused opened no session: its server must not stay registered (and counted).
    if (!transport.sessionId || !this.live.has(transport.sessionId)) {
      this.sessions.remove(server);
      void server.close().catch(() => {});
    }
  }

  /** Marks `session` busy until `res` is done (answered, stream ended, or the client went away). */
  private track(session: Session, res: ServerResponse): void {
    const touch = () => {
      session.lastSeen = Date.now();
      session.lastUse = ++this.tick;
    };
    touch();
    session.busy++;
    res.once('close', () => {
      session.busy--;
      touch();
    });
  }

  /** Closes the least recently used session with nothing in flight; false when every session is busy. */
  private reclaimIdle(): boolean {
    let oldest: [string, Session] | undefined;
    for (const entry of this.live) if (entry[1].busy === 0 && (!oldest || entry[1].lastUse < oldest[1].lastUse)) oldest = entry;
    if (!oldest) return false;
    this.forget(oldest[0], 'to make room for a new client (least recently used)');
    return true;
  }

  private forget(id: string, why = ''): void {
    const session = this.live.get(id);
    if (!session) return;
    this.live.delete(id);
    this.sessions.remove(session.server);
    void session.server.close().catch(() => {});
    this.log.info(`mcp: session #${session.seq} closed${why ? ` ${why}` : ''} (${this.live.size} open)`);
  }

  private get idleMs(): number {
    return this.options.sessionIdleMs ?? 30 * 60_000;
  }

  /**
   * Closes the sessions idle for `sessionIdleMs` at `now` (a timer runs it; a test passes a later time
   * rather than racing the limit); one with a request in flight or an open stream is not idle.
   */
  sweepIdle(now = Date.now()): void {
    for (const [id, s] of this.live) if (s.busy === 0 && now - s.lastSeen > this.idleMs) this.forget(id, 'after being idle');
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    for (const id of [...this.live.keys()]) this.forget(id);
    await new Promise<void>((resolve) => {
      this.http.close(() => resolve());
      this.http.closeAllConnections();
    });
    if (this.infoFile) removeServerInfo(this.infoFile);
  }
}

/** Removes server.json if it still names this process (a newer server may have replaced it). */
export function removeServerInfo(file: string): void {
  try {
    const info = JSON.parse(readPlainFileSync(file, 64 * 1024).toString('utf8')) as ServerInfo;
    if (info.pid === process.pid) unlinkSync(file);
  } catch {}
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function isInitialize(body: unknown): boolean {
  const first = Array.isArray(body) ? body[0] : body;
  return typeof first === 'object' && first !== null && (first as { method?: unknown }).method === 'initialize';
}

function rpcError(code: number, message: string) {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}

function sendJson(res: ServerResponse, status: number, value: unknown, close = false): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), ...(close ? { Connection: 'close' } : {}) });
  res.end(body);
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too_large'> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? '0');
    if (declared > limit) {
      req.resume();
      return resolve('too_large');
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        over = true;
        chunks.length = 0;
        return;
      }
      if (!over) chunks.push(chunk);
    });
    req.on('end', () => resolve(over ? 'too_large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
