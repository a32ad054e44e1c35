/**
 * HTTP sessions: clients that never end theirs do not lock new ones out (the least recently used idle
 * session makes room; a busy one never does), session ids are unguessable and never logged, and
 * `GET /health` answers as the contract says. In-process host on 127.0.0.1, raw HTTP.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { request, type ClientRequest, type IncomingHttpHeaders } from 'node:http';
import { after, describe, it } from 'node:test';
import { healthProof } from '../../src/mcp/hosts/auth.js';
import { McpHttpHost, type HttpHostOptions } from '../../src/mcp/hosts/http.js';
import { silentLogger, type Logger } from '../../src/util/log.js';
import { VERSION } from '../../src/version.js';
import { AtomWorkspace } from '../../src/workspace.js';
import { tempDir } from '../support/tmp.js';

const PROTOCOL = '2025-06-18';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

function send(host: McpHttpHost, method: string, path: string, headers: Record<string, string>, body?: object): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: host.port, path, method, headers }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const mcpHeaders = (host: McpHttpHost, session?: string): Record<string, string> => ({
  Authorization: `Bearer ${host.token}`,
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  'MCP-Protocol-Version': PROTOCOL,
  ...(session ? { 'Mcp-Session-Id': session } : {}),
});

/** A client that initializes and never ends its session. Returns the session id. */
async function initialize(host: McpHttpHost): Promise<string> {
  const params = { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'forgetful', version: '0' } };
  const answer = await send(host, 'POST', '/mcp', mcpHeaders(host), { jsonrpc: '2.0', id: 1, method: 'initialize', params });
  assert.equal(answer.status, 200, `initialize: ${answer.body}`);
  const id = answer.headers['mcp-session-id'];
  assert.equal(typeof id, 'string');
  const notified = await send(host, 'POST', '/mcp', mcpHeaders(host, id as string), { jsonrpc: '2.0', method: 'notifications/initialized' });
  assert.equal(notified.status, 202);
  return id as string;
}

/** tools/list in `session`: the status (200 while the session lives, 404 once it is gone). */
async function use(host: McpHttpHost, session: string): Promise<Answer> {
  return send(host, 'POST', '/mcp', mcpHeaders(host, session), { jsonrpc: '2.0', id: 2, method: 'tools/list' });
}

/** Opens the session's GET stream and keeps it open; resolves once the server has answered 200. */
function openStream(host: McpHttpHost, session: string): Promise<ClientRequest> {
  return new Promise((resolve, reject) => {
    const headers = { ...mcpHeaders(host, session), Accept: 'text/event-stream' };
    const req = request({ host: '127.0.0.1', port: host.port, path: '/mcp', method: 'GET', headers }, (res) => {
      if (res.statusCode === 200) resolve(req);
      else reject(new Error(`GET stream: ${res.statusCode}`));
    });
    req.on('error', () => {}); // destroyed by the test at the end
    req.end();
  });
}

async function startHost(options: HttpHostOptions = {}, log: Logger = silentLogger) {
  const workspace = await AtomWorkspace.open(tempDir('http-sessions-'));
  const host = await McpHttpHost.start(workspace, log, { writeServerInfo: false, ...options });
  return {
    workspace,
    host,
    async close() {
      await host.close();
      await workspace.close();
    },
  };
}

describe('HTTP sessions', () => {
  const hosts: { close(): Promise<void> }[] = [];
  const streams: ClientRequest[] = [];
  after(async () => {
    for (const s of streams) s.destroy();
    for (const h of hosts) await h.close();
  });

  it('70 clients that never end their sessions: the 70th still connects, the least recently used made room', async () => {
    const running = await startHost(); // the default cap, 64
    hosts.push(running);
    const { host } = running;
    const ids: string[] = [];
    for (let i = 0; i < 70; i++) ids.push(await initialize(host));
    assert.ok(host.sessions.size <= 64, `at most 64 sessions live, not ${host.sessions.size}`);
    assert.equal((await use(host, ids[69]!)).status, 200, 'the newest works');
    assert.equal((await use(host, ids[6]!)).status, 200, 'the 64 most recent are kept');
    const first = await use(host, ids[0]!);
    assert.equal(first.status, 404, 'the least recently used was reclaimed');
    assert.match(first.body, /initialize again/);
  });

  it('a session with an open stream is never reclaimed; when every one is busy a new client is told so', async () => {
    const running = await startHost({ maxSessions: 3 });
    hosts.push(running);
    const { host } = running;
    const busy = await initialize(host);
    streams.push(await openStream(host, busy));
    const idle = [await initialize(host), await initialize(host)];
    // Four more clients: each takes an idle one's place, never the busy one's, though it is the oldest.
    const later: string[] = [];
    for (let i = 0; i < 4; i++) later.push(await initialize(host));
    for (const id of idle) assert.equal((await use(host, id)).status, 404);
    assert.equal((await use(host, busy)).status, 200, 'the session with a stream open lives on');
    // Every session busy: the next client is refused with what to do, and nothing is closed.
    for (const id of later.slice(2)) streams.push(await openStream(host, id));
    const params = { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'late', version: '0' } };
    const refused = await send(host, 'POST', '/mcp', mcpHeaders(host), { jsonrpc: '2.0', id: 1, method: 'initialize', params });
    assert.equal(refused.status, 503);
    assert.match(JSON.parse(refused.body).error.message, /too many busy sessions: all 3 have a request in flight or an open stream; retry in a moment, or end one \(DELETE \/mcp\)/);
    for (const id of [busy, ...later.slice(2)]) assert.equal((await use(host, id)).status, 200);
  });

  it('the idle sweep spares a session whose stream is open', async () => {
    // The sweep is run as if the idle limit (30 minutes by default) had passed, not raced: a 50 ms limit
    // once expired a session between its initialize and its initialized notification on a busy machine.
    const running = await startHost();
    hosts.push(running);
    const { host } = running;
    const watching = await initialize(host);
    streams.push(await openStream(host, watching));
    const idle = await initialize(host);
    host.sweepIdle(Date.now() + 31 * 60_000);
    assert.equal(host.sessions.size, 1, 'one session left');
    assert.equal((await use(host, idle)).status, 404, 'the idle session was swept');
    assert.equal((await use(host, watching)).status, 200, 'the watching one was not');
  });

  it('get_status counts the clients still there, not the sessions of clients that went away without ending them', async () => {
    // Counted: a session with a stream open or a request in flight (0 ms: no grace after the last request).
    const running = await startHost({ sessionActiveMs: 0 });
    hosts.push(running);
    const { host } = running;
    const watching = await initialize(host);
    streams.push(await openStream(host, watching));
    const gone = await initialize(host);
    const stream = await openStream(host, gone);
    stream.destroy(); // the client was killed: its stream closed, and it never sent DELETE
    const status = async () => {
      const call = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_status', arguments: {} } };
      return (await send(host, 'POST', '/mcp', mcpHeaders(host, watching), call)).body;
    };
    for (let i = 0; i < 200 && (await status()).includes('2 clients connected'); i++) await new Promise((r) => setTimeout(r, 10));
    assert.match(await status(), /Server: version [^,]+, 1 client connected\./);
    assert.equal(host.sessions.size, 2, 'the gone session is still open (the idle sweep ends it later)');
    assert.equal((await use(host, gone)).status, 200, 'and works again if its client comes back');
  });

  it('session ids are 128 random bits, never logged, and a made-up one is 404 like an expired one', async () => {
    const lines: string[] = [];
    const record = (m: string) => lines.push(m);
    const running = await startHost({}, { debug: record, info: record, warn: record, error: record });
    hosts.push(running);
    const { host } = running;
    const first = await initialize(host);
    const second = await initialize(host);
    assert.equal((await send(host, 'DELETE', '/mcp', mcpHeaders(host, first))).status, 200, 'the first client ends its session');
    for (const id of [first, second]) {
      assert.match(id, /^[A-Za-z0-9_-]{22}$/);
      assert.equal(Buffer.from(id, 'base64url').length, 16);
    }
    const log = lines.join('\n');
    assert.match(log, /session #2 opened/);
    for (const id of [first, second]) assert.ok(!log.includes(id.slice(0, 6)), `no part of a session id in the log:\n${log}`);
    const guessed = await use(host, randomBytes(16).toString('base64url'));
    const expired = await use(host, first);
    assert.equal(guessed.status, 404);
    assert.deepEqual(JSON.parse(guessed.body), JSON.parse(expired.body));
  });
});

describe('GET /health', () => {
  it("answers the contract's JSON, and proves the token and folder only to a challenge", async () => {
    const running = await startHost();
    try {
      const { host, workspace } = running;
      const plain = await send(host, 'GET', '/health', {});
      assert.deepEqual(JSON.parse(plain.body), { status: 'ok', server: 'atomic-coding-mcp', version: VERSION });
      assert.equal(plain.headers['x-atomic-proof'], undefined);
      const challenge = randomBytes(32).toString('base64url');
      const proved = await send(host, 'GET', '/health', { 'X-Atomic-Challenge': challenge });
      assert.deepEqual(JSON.parse(proved.body), JSON.parse(plain.body));
      assert.equal(proved.headers['x-atomic-proof'], healthProof(host.token, challenge, realpathSync(workspace.dir)));
    } finally {
      await running.close();
    }
  });
});
