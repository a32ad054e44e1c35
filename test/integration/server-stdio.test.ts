import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, connectStdio, rawStdioSession } from '../support/server.js';
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
  const { lines, out, exitCode } = await rawStdioSession(workspace, [
    { method: 'tools/list' },
    { method: 'tools/call', params: { name: 'upsert_atom', arguments: { ...cube[0] } } },
    { method: 'tools/call', params: { name: 'read_atoms', arguments: { names: ['nope'] } } },
  ]);
  assert.ok(lines.length >= 4, `expected 4 responses, got:\n${out}`);
  for (const line of lines) assert.equal(JSON.parse(line).jsonrpc, '2.0', `not a protocol message: ${line}`);
  assert.equal(exitCode, 0);
  assert.ok(readFileSync(join(workspace, '.atomic', 'latest.js'), 'utf8').includes('physics_config'));
});
