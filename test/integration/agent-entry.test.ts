/**
 * The entry Connect Other Agents writes (agentConfig.ts's stdioServer) starts a working server when
 * an agent runs it as written: on Linux through /usr/bin/env, with glibc's huge pages in the
 * server's environment (util/nodeFlags.ts), and an environment the agent gives it otherwise intact.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { stdioServer } from '../../src/agents/agentConfig.js';
import { CLI } from '../support/server.js';
import { tempDir } from '../support/tmp.js';

test('the written entry serves: tools answer, and on Linux the server has the huge-pages tunable and the agent’s environment', async () => {
  const workspace = tempDir('atomic-agent-entry-');
  // The node running this test, by its path: PATH's node may be another version.
  const entry = stdioServer(process.execPath, CLI, workspace);
  if (process.platform === 'linux') assert.equal(entry.command, '/usr/bin/env');
  // As the MCP SDK's client starts a server: its default environment plus the entry's (none here).
  const transport = new StdioClientTransport({ command: entry.command, args: entry.args, env: { ATOMIC_AGENT_MARK: 'kept' }, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'agent-entry-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const tools = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(tools.includes('upsert_atom') && tools.includes('semantic_search'), tools.join(', '));
    const saved = await client.callTool({ name: 'upsert_atom', arguments: { name: 'add_one', type: 'util', description: 'Adds one.', code: 'function add_one(n) {\n  return n + 1;\n}\n', inputs: [{ name: 'n', type: 'number' }], outputs: [{ name: 'result', type: 'number' }] } });
    assert.equal(saved.isError, undefined, JSON.stringify(saved.content));
    if (process.platform === 'linux') {
      // env exec'd node in its own process: the pid the agent holds is the server's.
      const environ = readFileSync(`/proc/${transport.pid}/environ`, 'utf8').split('\0');
      const argv = readFileSync(`/proc/${transport.pid}/cmdline`, 'utf8').split('\0');
      assert.equal(argv[0], process.execPath, argv.join(' '));
      assert.ok(environ.includes('GLIBC_TUNABLES=glibc.malloc.hugetlb=1'), environ.join(' '));
      assert.ok(environ.includes('ATOMIC_AGENT_MARK=kept'), 'the environment the agent gave is kept');
      assert.ok(environ.some((v) => v.startsWith('PATH=')) && environ.some((v) => v.startsWith('HOME=')), 'PATH and HOME too');
    }
  } finally {
    await client.close();
  }
  assert.doesNotMatch(stderr, /error/i, stderr);
});
