/**
 * One writer per workspace: `serve --stdio` for a folder that a running server (VS Code's) already
 * owns bridges to it over HTTP instead of opening the store a second time. Real processes, loopback.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { discoverServer } from '../../src/mcp/hosts/trust.js';
import { McpHttpHost } from '../../src/mcp/hosts/http.js';
import { KeywordOnlyProvider } from '../../src/search/embeddings/keyword.js';
import { AtomWorkspace } from '../../src/workspace.js';
import { silentLogger } from '../../src/util/log.js';
import { CLI } from '../support/server.js';

const root = join(__dirname, '..', '..');

function stdioClient(dir: string): Promise<Client> {
  const client = new Client({ name: 'agent', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', '--workspace', dir, '--stdio', '--log-level', 'warn'],
    cwd: root,
    stderr: 'ignore',
  });
  return client.connect(transport).then(() => client);
}

async function httpClient(host: McpHttpHost): Promise<Client> {
  const client = new Client({ name: 'vscode', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(host.url), { requestInit: { headers: { Authorization: `Bearer ${host.token}` } } }));
  return client;
}

const atom = (name: string, body = '0') => ({ name, type: 'util', code: `function ${name}() { return ${body}; }` });

function textOf(result: unknown): string {
  return ((result as { content: { text: string }[] }).content ?? []).map((c) => c.text).join('');
}

describe('stdio bridge to the running server', () => {
  let dir: string;
  let workspace: AtomWorkspace;
  let host: McpHttpHost;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bridge-'));
    workspace = await AtomWorkspace.open(dir, { embeddings: new KeywordOnlyProvider() }); // no search here: no model process
    host = await McpHttpHost.start(workspace, silentLogger);
  });

  after(async () => {
    await host?.close();
    await workspace?.close();
  });

  it('finds the live server from server.json, and ignores a stale one', async () => {
    const found = await discoverServer(dir);
    assert.equal(found?.url, host.url);
    assert.deepEqual(found?.headers, { Authorization: `Bearer ${host.token}` });
    const stale = mkdtempSync(join(tmpdir(), 'stale-'));
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(stale, '.atomic'));
    writeFileSync(join(stale, '.atomic', 'server.json'), JSON.stringify({ url: 'http://127.0.0.1:9/mcp', token: 't', pid: 2 ** 22 + 7 }));
    assert.equal(await discoverServer(stale), undefined);
  });

  it("writes from the agent land in the running server's store, beside VS Code's own writes", async () => {
    const agent = await stdioClient(dir);
    const vscode = await httpClient(host);
    try {
      const tools = await agent.listTools();
      assert.ok(tools.tools.some((t) => t.name === 'upsert_atom'));
      // Both clients write at once; neither write is lost.
      const results = await Promise.all([
        ...['a1', 'a2', 'a3'].map((n) => agent.callTool({ name: 'upsert_atom', arguments: atom(n) })),
        ...['v1', 'v2', 'v3'].map((n) => vscode.callTool({ name: 'upsert_atom', arguments: atom(n) })),
      ]);
      for (const r of results) assert.match(textOf(r), /saved/);
      assert.deepEqual(workspace.atoms.all().map((a) => a.name).sort(), ['a1', 'a2', 'a3', 'v1', 'v2', 'v3']);
      // And the agent reads what VS Code wrote.
      assert.match(textOf(await agent.callTool({ name: 'read_atoms', arguments: { names: ['v2'] } })), /function v2\(\)/);
    } finally {
      await agent.close();
      await vscode.close();
    }
  });

  it('follows the server when it restarts with a new port and token', async () => {
    const agent = await stdioClient(dir);
    try {
      await agent.callTool({ name: 'upsert_atom', arguments: atom('before_restart') });
      const oldToken = host.token;
      await host.close();
      host = await McpHttpHost.start(workspace, silentLogger);
      assert.notEqual(host.token, oldToken);
      const r = await agent.callTool({ name: 'upsert_atom', arguments: atom('after_restart', '1') });
      assert.match(textOf(r), /saved/);
      assert.equal(workspace.atoms.get('after_restart')?.code, 'function after_restart() { return 1; }');
    } finally {
      await agent.close();
    }
  });

  it('answers with a clear error when the server is gone for good', async () => {
    const agent = await stdioClient(dir);
    try {
      await host.close();
      const failed = await agent.callTool({ name: 'get_code_structure', arguments: {} }).then(
        () => 'no error',
        (err: Error) => err.message,
      );
      assert.match(failed, /not reachable any more.*Restart this MCP server/);
    } finally {
      await agent.close();
      host = await McpHttpHost.start(workspace, silentLogger);
    }
  });

  it('without a running server, the command line opens the store itself', async () => {
    const own = mkdtempSync(join(tmpdir(), 'direct-'));
    const agent = await stdioClient(own);
    try {
      assert.match(textOf(await agent.callTool({ name: 'upsert_atom', arguments: atom('solo') })), /saved/);
    } finally {
      await agent.close();
    }
    assert.match(readFileSync(join(own, '.atomic', 'latest.js'), 'utf8'), /function solo\(\)/);
  });
});

describe('stdio bridge: stopping', () => {
  it('ends its HTTP session when the agent stops it with a signal', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bridge-stop-'));
    const workspace = await AtomWorkspace.open(dir, { embeddings: new KeywordOnlyProvider() });
    const host = await McpHttpHost.start(workspace, silentLogger);
    try {
      const agent = await stdioClient(dir);
      await agent.listTools();
      assert.equal(host.sessions.size, 1, 'the bridge opened one session');
      await agent.close(); // the SDK ends stdin and signals the process
      for (let i = 0; i < 100 && host.sessions.size > 0; i++) await new Promise((r) => setTimeout(r, 50));
      assert.equal(host.sessions.size, 0, 'the session was closed, not left to time out');
    } finally {
      await host.close();
      await workspace.close();
    }
  });
});
