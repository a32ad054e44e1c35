/**
 * `serve --stdio` bridges only to a server.json it can prove is a running server of ours for this very
 * folder. A file planted in the workspace (committed to git, unpacked, copied) must never receive a byte
 * of the agent's traffic: it is reported on stderr and ignored, and the stdio server opens the
 * workspace itself. Real processes; every server here listens on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { discoverServer, loopbackServerUrl } from '../../src/mcp/hosts/trust.js';
import { healthProof, newToken } from '../../src/mcp/hosts/auth.js';
import { McpHttpHost } from '../../src/mcp/hosts/http.js';
import { KeywordOnlyProvider } from '../../src/search/embeddings/keyword.js';
import { silentLogger } from '../../src/util/log.js';
import { AtomWorkspace } from '../../src/workspace.js';
import { CLI } from '../support/server.js';
import { tempDir } from '../support/tmp.js';

const root = join(__dirname, '..', '..');

interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

/**
 * A server that is not ours, on 127.0.0.1: it records every request and answers /health as ours does.
 * With `imitate`, it even answers the health challenge correctly for that token and folder, so only the
 * checks before any network contact can tell it apart.
 */
async function recorder(imitate?: { token: string; dir: string }): Promise<{ port: number; requests: Recorded[]; server: Server }> {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    req.resume();
    const challenge = req.headers['x-atomic-challenge'];
    if (imitate && typeof challenge === 'string') {
      res.setHeader('x-atomic-proof', healthProof(imitate.token, challenge, realpathSync(imitate.dir)));
    }
    if (req.url?.startsWith('/health')) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return res.end(JSON.stringify({ status: 'ok', server: 'atomic-coding-mcp', version: '1.0.0' }));
    }
    res.writeHead(404, { 'Content-Type': 'application/json' });
    res.end('{"error":"recorded"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, requests, server };
}

/** Writes `.atomic/server.json` as a clone or an archive would leave it. */
function plant(dir: string, info: object, mode: number): void {
  mkdirSync(join(dir, '.atomic'), { recursive: true });
  const file = join(dir, '.atomic', 'server.json');
  writeFileSync(file, JSON.stringify(info));
  chmodSync(file, mode);
}

/** Runs an agent on `serve --stdio` for `dir`: one upsert_atom; returns its answer and the stderr. */
async function agentUpserts(dir: string): Promise<{ text: string; stderr: string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', '--workspace', dir, '--stdio', '--log-level', 'warn'],
    cwd: root,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'agent', version: '1.0.0' });
  try {
    await client.connect(transport, { timeout: 20_000 });
    const result = (await client.callTool(
      { name: 'upsert_atom', arguments: { name: 'solo', type: 'util', code: 'function solo() { return 1; }' } },
      undefined,
      { timeout: 20_000 },
    )) as { content: { text: string }[] };
    return { text: result.content.map((c) => c.text).join(''), stderr };
  } finally {
    await client.close();
  }
}

/** The stdio server worked on the folder itself: the atom is in its own latest.js. */
function servedItself(dir: string): void {
  assert.match(readFileSync(join(dir, '.atomic', 'latest.js'), 'utf8'), /function solo\(\)/);
}

/** A process of this user that is alive and listens on nothing. */
/**
 * A process that only waits. Another user's is the system's `sleep`: that user may not be able to reach
 * this Node binary (the tool cache, say, is a folder only its owner may enter).
 */
function idleChild(options: { uid?: number } = {}): ChildProcess {
  if (options.uid !== undefined) return spawn('sleep', ['600'], { stdio: 'ignore', ...options });
  return spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore', ...options });
}

describe('serve --stdio refuses a server.json it cannot prove is its own server', () => {
  const children: ChildProcess[] = [];
  const servers: Server[] = [];

  after(async () => {
    for (const child of children) child.kill();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  });

  it('a committed file (mode 644) is refused before any contact, even when everything else fits', async () => {
    const dir = tempDir('trust-mode-');
    const token = newToken();
    const fake = await recorder({ token, dir });
    servers.push(fake.server);
    // This test process does listen on the port and is alive: only the mode gives the file away.
    plant(dir, { url: `http://127.0.0.1:${fake.port}/mcp`, token, pid: process.pid, version: '1.0.0', workspace: dir }, 0o644);
    const { text, stderr } = await agentUpserts(dir);
    assert.match(text, /saved/);
    servedItself(dir);
    assert.deepEqual(fake.requests, [], 'not a byte reached the address in the file');
    assert.match(stderr, /ignoring .*server\.json: its mode is 644, not 600/);
    // The same file owner-only would have been trusted: the mode alone gave it away.
    chmodSync(join(dir, '.atomic', 'server.json'), 0o600);
    assert.equal((await discoverServer(dir))?.url, `http://127.0.0.1:${fake.port}/mcp`);
  });

  it('a file naming no pid is refused before any contact', async () => {
    const dir = tempDir('trust-nopid-');
    const token = newToken();
    const fake = await recorder({ token, dir });
    servers.push(fake.server);
    plant(dir, { url: `http://127.0.0.1:${fake.port}/mcp`, token }, 0o600);
    const { text, stderr } = await agentUpserts(dir);
    assert.match(text, /saved/);
    servedItself(dir);
    assert.deepEqual(fake.requests, []);
    assert.match(stderr, /names no process id/);
  });

  it("a pid of another user's process is refused before any contact", async () => {
    const dir = tempDir('trust-foreign-');
    const token = newToken();
    const fake = await recorder({ token, dir });
    servers.push(fake.server);
    let pid = 1; // init: root's, when the tests do not run as root
    if (process.getuid?.() === 0) {
      const other = idleChild({ uid: 65534 }); // nobody
      children.push(other);
      pid = other.pid!;
    }
    plant(dir, { url: `http://127.0.0.1:${fake.port}/mcp`, token, pid }, 0o600);
    const { text, stderr } = await agentUpserts(dir);
    assert.match(text, /saved/);
    servedItself(dir);
    assert.deepEqual(fake.requests, []);
    assert.match(stderr, new RegExp(`process ${pid} runs as another user`));
  });

  it('a live pid of ours that does not hold the port is refused before any contact', { skip: !existsSync('/proc/net/tcp') && 'needs Linux /proc' }, async () => {
    const dir = tempDir('trust-notlistening-');
    const token = newToken();
    const fake = await recorder({ token, dir });
    servers.push(fake.server);
    const bystander = idleChild();
    children.push(bystander);
    plant(dir, { url: `http://127.0.0.1:${fake.port}/mcp`, token, pid: bystander.pid }, 0o600);
    const { text, stderr } = await agentUpserts(dir);
    assert.match(text, /saved/);
    servedItself(dir);
    assert.deepEqual(fake.requests, []);
    assert.match(stderr, new RegExp(`port ${fake.port} is not held by process ${bystander.pid}`));
  });

  it('a url that is not a loopback IP literal is refused before any contact', async () => {
    for (const host of ['localhost', '0.0.0.0']) {
      const dir = tempDir('trust-url-');
      const token = newToken();
      const fake = await recorder({ token, dir });
      servers.push(fake.server);
      plant(dir, { url: `http://${host}:${fake.port}/mcp`, token, pid: process.pid }, 0o600);
      const { text, stderr } = await agentUpserts(dir);
      assert.match(text, /saved/);
      servedItself(dir);
      assert.deepEqual(fake.requests, [], `nothing was sent to ${host}`);
      assert.match(stderr, new RegExp(`its url names ${host.replace(/\./g, '\\.')}, not a loopback address`));
    }
  });

  it('which urls a server.json may name', () => {
    for (const good of ['http://127.0.0.1:4000/mcp', 'http://127.1.2.3:1/mcp', 'http://[::1]:4000/mcp']) {
      assert.ok(loopbackServerUrl(good) instanceof URL, good);
    }
    const bad: [string, RegExp][] = [
      ['http://evil.example.com:4000/mcp', /not a loopback address/],
      ['http://10.0.0.1:4000/mcp', /not a loopback address/],
      ['http://[::ffff:7f00:1]:4000/mcp', /not a loopback address/],
      ['https://127.0.0.1:4000/mcp', /is not http:/],
      ['http://127.0.0.1/mcp', /no explicit port/],
      ['http://me:pw@127.0.0.1:4000/mcp', /carries credentials/],
      ['not a url', /is not a URL/],
    ];
    for (const [url, why] of bad) assert.match(loopbackServerUrl(url) as string, why, url);
  });

  it("a live loopback server that is not ours gets the health probe only: no token, no agent's message", async () => {
    const dir = tempDir('trust-impostor-');
    const fake = await recorder(); // cannot answer the challenge: it does not know the token's use
    servers.push(fake.server);
    // Owner-only, a live pid of ours that holds the port, a loopback url: only the proof is missing.
    plant(dir, { url: `http://127.0.0.1:${fake.port}/mcp`, token: newToken(), pid: process.pid }, 0o600);
    const { text, stderr } = await agentUpserts(dir);
    assert.match(text, /saved/);
    servedItself(dir);
    assert.ok(fake.requests.length > 0, 'it was asked to prove itself');
    for (const r of fake.requests) {
      assert.equal(r.method, 'GET');
      assert.equal(r.url, '/health');
      assert.equal(r.headers.authorization, undefined, 'the token was never sent to it');
    }
    assert.match(stderr, /did not prove that it serves this workspace/);
  });
});

describe('serve --stdio in a copy of a served folder', () => {
  let original: string;
  let workspace: AtomWorkspace;
  let host: McpHttpHost;

  before(async () => {
    original = tempDir('trust-original-');
    workspace = await AtomWorkspace.open(original, { embeddings: new KeywordOnlyProvider() }); // no search here: no model process
    host = await McpHttpHost.start(workspace, silentLogger);
  });

  after(async () => {
    await host?.close();
    await workspace?.close();
  });

  it("does not bridge to the original's server: its proof is for the other folder", async () => {
    const copy = tempDir('trust-copy-');
    // As `cp -a` leaves it: owner-only, our own live server's pid, port and token.
    plant(copy, JSON.parse(readFileSync(join(original, '.atomic', 'server.json'), 'utf8')), 0o600);
    const { text, stderr } = await agentUpserts(copy);
    assert.match(text, /saved/);
    servedItself(copy);
    assert.equal(workspace.atoms.get('solo'), undefined, "the original's store got nothing");
    assert.equal(host.sessions.size, 0, 'no session was opened on the original server');
    assert.match(stderr, /did not prove that it serves this workspace/);
  });
});
