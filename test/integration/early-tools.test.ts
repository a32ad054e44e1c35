/**
 * A server lists its tools while a large workspace still opens (issue 15: a cold open of 10,000
 * atoms takes most of a second; the tools do not depend on it). Every call that reads or writes
 * atoms waits for the open; a workspace that cannot be opened is said in each call's answer, and
 * the stdio server stops with the reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMcpServer, SessionRegistry } from '../../src/mcp/server.js';
import { AtomStore } from '../../src/store/atomStore.js';
import { silentLogger } from '../../src/util/log.js';
import { AtomWorkspace } from '../../src/workspace.js';
import { call, CLI } from '../support/server.js';
import { wordsOnly } from '../support/inProcess.js';
import { tempDir } from '../support/tmp.js';

async function serve(opening: Promise<AtomWorkspace>): Promise<Client> {
  const server = createMcpServer({ workspace: opening, log: silentLogger, sessions: new SessionRegistry() });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'early', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

test('tools are listed before the workspace has opened; calls wait for it, then work', async () => {
  let open!: (ws: AtomWorkspace) => void;
  const opening = new Promise<AtomWorkspace>((resolve) => (open = resolve));
  const client = await serve(opening);
  let workspace: AtomWorkspace | undefined;
  try {
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'upsert_atom'), 'listed while nothing is open');
    let answered = false;
    const saving = call(client, 'upsert_atom', { name: 'early_bird', type: 'util', code: 'function early_bird() { return 1; }' }).finally(() => (answered = true));
    const reading = call(client, 'read_atoms', { names: ['early_bird'] });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(answered, false, 'the write waits for the workspace');
    workspace = await AtomWorkspace.open(tempDir(), { embeddings: wordsOnly });
    open(workspace);
    assert.match((await saving).text, /^Atom "early_bird" saved \(util\)/);
    assert.match((await reading).text, /return 1;/, 'and the read sent after it sees it');
  } finally {
    await client.close();
    await workspace?.close();
  }
});

test('a workspace that cannot be opened: every call says why, and nothing else breaks', async () => {
  const client = await serve(Promise.reject(new Error('atoms.db is not a readable Atomic Coding database')));
  try {
    assert.ok((await client.listTools()).tools.length > 0);
    const r = await call(client, 'get_code_structure', {});
    assert.equal(r.isError, true);
    assert.equal(r.text, 'Error: The workspace could not be opened: atoms.db is not a readable Atomic Coding database');
  } finally {
    await client.close();
  }
});

test('serve --stdio on a workspace another process holds stops with the reason (exit 1)', async () => {
  const dir = tempDir();
  const holder = await AtomStore.open(dir);
  try {
    const child = spawn(process.execPath, [CLI, 'serve', '--stdio', '--workspace', dir], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => (stdout += d));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } } })}\n`);
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => child.kill(), 20_000);
      child.once('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    assert.equal(code, 1, stderr);
    assert.match(stderr, /the workspace is open in another Atomic Coding process \(pid \d+\)/);
    for (const line of stdout.split('\n').filter(Boolean)) assert.equal(JSON.parse(line).jsonrpc, '2.0', 'stdout carries protocol messages only');
  } finally {
    await holder.close();
  }
});
