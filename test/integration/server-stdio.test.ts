import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, call, connectStdio } from '../support/server.js';
import { cube, mathClamp } from '../support/atoms.js';
import { tempDir } from '../support/tmp.js';

test('over stdio, every tool and its errors work through the SDK client', async () => {
  const workspace = tempDir();
  const { client, stderr } = await connectStdio(workspace);
  try {
    assert.equal(client.getServerVersion()?.name, 'atomic-coding');
    for (const atom of cube) assert.equal((await call(client, 'upsert_atom', { ...atom })).isError, false);
    const structure = JSON.parse((await call(client, 'get_code_structure')).text);
    assert.equal(structure.length, 4);
    assert.match((await call(client, 'read_atoms', { names: ['game_loop'] })).text, /^\/\/ === game_loop \(core\) v1 ===/);
    assert.match((await call(client, 'delete_atom', { name: 'math_clamp' })).text, /^Error: Cannot delete "math_clamp": used by \[game_loop\]/);
    assert.match((await call(client, 'upsert_atom', { ...mathClamp, code: 'x'.repeat(2049) })).text, /^Error: code is 2049 bytes/);
    assert.ok(existsSync(join(workspace, '.atomic', 'latest.js')));
    assert.match(stderr(), /serving on stdio/, 'logs go to stderr');
  } finally {
    await client.close();
  }
});

test('stdout carries protocol messages only', async () => {
  const workspace = tempDir();
  const child = spawn(process.execPath, [CLI, 'serve', '--stdio', '--workspace', workspace, '--log-level', 'debug'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const send = (m: object) => child.stdin.write(JSON.stringify(m) + '\n');
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'upsert_atom', arguments: { ...cube[0] } } });
  send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'read_atoms', arguments: { names: ['nope'] } } });
  const deadline = Date.now() + 20_000;
  while (!out.includes('"id":4') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  child.stdin.end();
  await new Promise((r) => child.once('exit', r));
  const lines = out.split('\n').filter((l) => l.length > 0);
  assert.ok(lines.length >= 4, `expected 4 responses, got:\n${out}`);
  for (const line of lines) assert.equal(JSON.parse(line).jsonrpc, '2.0', `not a protocol message: ${line}`);
  assert.equal(child.exitCode, 0);
  assert.ok(readFileSync(join(workspace, '.atomic', 'latest.js'), 'utf8').includes('physics_config'));
});
