/**
 * A client ends a stdio server by closing its stdin and, when that is not enough soon enough,
 * with SIGTERM (the MCP stdio transport's shutdown). Either way the server closes the workspace
 * cleanly: its lock is released and the next open need not compare every file again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CLI } from '../support/server.js';
import { tempDir } from '../support/tmp.js';

test('SIGTERM closes a stdio server cleanly: exit 0, the workspace lock released', async () => {
  const dir = tempDir();
  const child = spawn(process.execPath, [CLI, 'serve', '--stdio', '--workspace', dir, '--log-level', 'info'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const send = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_status', arguments: {} } });
  const deadline = Date.now() + 20_000;
  while (!stdout.includes('"id":2') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.ok(stdout.includes('"id":2'), stderr);
  assert.ok(existsSync(join(dir, '.atomic', 'lock')), 'held while serving');
  child.kill('SIGTERM'); // stdin stays open: only the signal ends it
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const { code, signal } = await exited;
  clearTimeout(timer);
  assert.deepEqual({ code, signal }, { code: 0, signal: null }, stderr);
  assert.match(stderr, /SIGTERM: shutting down/);
  assert.equal(existsSync(join(dir, '.atomic', 'lock')), false, 'the lock is released');
});
