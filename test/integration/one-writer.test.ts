/**
 * One writer per workspace: a second command line bridges to the first instead of opening the
 * database; a second HTTP server is refused; and when the writer dies, a bridge takes over.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLock } from '../../src/store/lock.js';
import { isProcessAlive } from '../../src/util/process.js';
import { CLI, call, connectHttp, connectStdio, startServer } from '../support/server.js';
import { mathClamp, physicsConfig, playerJump } from '../support/atoms.js';
import { tempDir } from '../support/tmp.js';

test('a second HTTP server for the same workspace is refused, naming the first', async () => {
  const workspace = tempDir();
  const first = await startServer(workspace);
  const second = spawnSync(process.execPath, [CLI, 'serve', '--workspace', workspace, '--port', '0'], { encoding: 'utf8', timeout: 20_000 });
  assert.equal(second.status, 1);
  assert.match(second.stderr, new RegExp(`open in another Atomic Coding process \\(pid ${first.process.pid}\\)`));
  assert.equal(await first.stop(), 0);
});

test('when the writer dies, a bridged command line takes over and no write is lost', { timeout: 120_000 }, async () => {
  const workspace = tempDir();
  const server = await startServer(workspace);
  const http = await connectHttp(server.url, server.token);
  assert.equal((await call(http, 'upsert_atom', { ...physicsConfig })).isError, false);
  const a = await connectStdio(workspace);
  const b = await connectStdio(workspace);
  assert.equal((await call(a.client, 'upsert_atom', { ...mathClamp })).isError, false);
  assert.match(a.stderr(), /bridging stdio/);
  assert.match(b.stderr(), /bridging stdio/);

  await server.stop('SIGKILL');
  await http.close().catch(() => {});

  // Both agents keep working: one of them is now the writer, the other bridges to it.
  const r1 = await call(a.client, 'upsert_atom', { ...playerJump });
  assert.equal(r1.isError, false, r1.text);
  const r2 = await call(b.client, 'read_atoms', { names: ['physics_config', 'math_clamp', 'player_jump'] });
  assert.equal(r2.isError, false, r2.text);
  assert.match(a.stderr() + b.stderr(), /took over as its writer/);

  const info = JSON.parse(readFileSync(join(workspace, '.atomic', 'server.json'), 'utf8'));
  const lock = readLock(join(workspace, '.atomic', 'lock'))!;
  assert.notEqual(lock.pid, server.process.pid);
  assert.equal(info.pid, lock.pid, 'the new writer holds the lock and announces its server');
  assert.ok(isProcessAlive(lock.pid));

  await a.client.close();
  await b.client.close();
});
