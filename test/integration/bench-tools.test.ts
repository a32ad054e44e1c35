/**
 * The hidden `--bench-tools` flag: the benchmark's no-op tools exist only with it, on the same
 * server as the product's tools, and agents never see them otherwise. Real server, real client.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, call, connectHttp, startServer } from '../support/server.js';
import { tempDir } from '../support/tmp.js';

async function stdio(workspace: string, extra: string[]): Promise<Client> {
  const client = new Client({ name: 'bench-tools-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--stdio', '--workspace', workspace, ...extra], stderr: 'ignore' }),
  );
  return client;
}

describe('--bench-tools', () => {
  const clients: Client[] = [];
  after(async () => {
    for (const c of clients) await c.close().catch(() => {});
  });

  it('is off by default: no bench tool is listed or callable', async () => {
    const client = await stdio(tempDir(), []);
    clients.push(client);
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('read_atoms'));
    assert.deepEqual(names.filter((n) => n.startsWith('bench_')), []);
    await assert.rejects(client.callTool({ name: 'bench_noop', arguments: {} }), /Unknown tool "bench_noop"/);
  });

  it('over stdio adds bench_noop and bench_echo_size beside the product tools', async () => {
    const client = await stdio(tempDir(), ['--bench-tools']);
    clients.push(client);
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('read_atoms') && names.includes('bench_noop') && names.includes('bench_echo_size'));
    assert.equal((await call(client, 'bench_noop')).text, 'ok');
    const echoed = await call(client, 'bench_echo_size', { bytes: 100_003 });
    assert.equal(echoed.text.length, 100_003);
    assert.equal(Buffer.byteLength(echoed.text), 100_003);
  });

  it('over HTTP too', async () => {
    const server = await startServer(tempDir(), ['--bench-tools']);
    try {
      const client = await connectHttp(server.url, server.token);
      clients.push(client);
      assert.equal((await call(client, 'bench_noop')).text, 'ok');
      assert.equal((await call(client, 'bench_echo_size', { bytes: 7 })).text.length, 7);
      const refused = await call(client, 'bench_echo_size', { bytes: -1 });
      assert.equal(refused.isError, true);
    } finally {
      await server.stop();
    }
  });
});
