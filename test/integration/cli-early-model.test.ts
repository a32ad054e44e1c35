/**
 * dist/cli.js starts the model's process before the command line's 2.3 MB load, for `serve` of a
 * workspace embedded before (cliEntry.ts, cliArgs.ts, modelProcess.ts), and the server takes that
 * process instead of starting a second one. The entry is run beside a stand-in for cli-main.js
 * that reports what it finds when it loads; then the real build serves.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI } from '../support/server.js';
import { tempDir } from '../support/tmp.js';

/** dist/cli.js in a folder of its own, beside a cli-main.js that prints the pid of the process started early (or null). */
function entryWithStandIn(): string {
  const dir = tempDir('atomic-entry-');
  copyFileSync(CLI, join(dir, 'cli.js'));
  writeFileSync(
    join(dir, 'cli-main.js'),
    `const early = process[Symbol.for('atomic-coding.early-model-process')];
process.stdout.write(JSON.stringify({ early: early ? early.child.pid : null }));
if (early) early.child.kill();
`,
  );
  return join(dir, 'cli.js');
}

/** A workspace whose .atomic/ holds a vectors file (its content does not matter to the entry). */
function embeddedWorkspace(): string {
  const dir = tempDir('atomic-embedded-');
  mkdirSync(join(dir, '.atomic'));
  writeFileSync(join(dir, '.atomic', 'vectors.bin'), Buffer.alloc(64));
  return dir;
}

function earlyPid(entry: string, args: string[], cwd?: string): number | null {
  const out = execFileSync(process.execPath, [entry, ...args], { cwd, encoding: 'utf8' });
  return (JSON.parse(out) as { early: number | null }).early;
}

test('the entry starts the model before the rest loads only to serve a workspace embedded before, from a process that opens it', () => {
  const entry = entryWithStandIn();
  const embedded = embeddedWorkspace();
  const plain = tempDir('atomic-plain-');
  assert.equal(typeof earlyPid(entry, ['serve', '--stdio', '--workspace', embedded]), 'number', 'serve over stdio');
  assert.equal(typeof earlyPid(entry, ['serve', '--port', '0', '--workspace', embedded]), 'number', 'serve over HTTP');
  assert.equal(typeof earlyPid(entry, ['--stdio'], embedded), 'number', 'serve is the default command, the current folder the default workspace');
  assert.equal(earlyPid(entry, ['serve', '--stdio', '--workspace', plain]), null, 'a workspace with no vectors');
  assert.equal(earlyPid(entry, ['test', '--workspace', embedded]), null, 'another command');
  assert.equal(earlyPid(entry, ['serve', '--help', '--workspace', embedded]), null, '--help');
  assert.equal(earlyPid(entry, ['--version', '--workspace', embedded]), null, '--version');
  assert.equal(earlyPid(entry, ['serve', '--bogus', '--workspace', embedded]), null, 'arguments the command line refuses');
  assert.equal(earlyPid(entry, ['serve', 'extra', '--workspace', embedded]), null, 'a second positional');
  // A stdio server of a folder another server serves bridges to it (cli.ts), and needs no model.
  writeFileSync(join(embedded, '.atomic', 'server.json'), '{}');
  assert.equal(earlyPid(entry, ['serve', '--stdio', '--workspace', embedded]), null, 'stdio beside a server.json');
  assert.equal(typeof earlyPid(entry, ['serve', '--workspace', embedded]), 'number', 'HTTP never bridges');
});

/** The pids of `parent`'s children whose command line names `script`. */
function childrenRunning(parent: number, script: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(script)) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

test('the server takes the process started early: one model process, answering its search', { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
  const dir = embeddedWorkspace();
  // One model process at most (a second starts for backlogs): had the server not taken the early
  // one, it would have ended it and started its own, a second pid.
  const child = spawn(process.execPath, [CLI, 'serve', '--stdio', '--workspace', dir], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ATOMIC_EMBED_PROCESSES: '1' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const send = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'upsert_atom', arguments: { name: 'enemy_spawn', type: 'util', code: 'function enemy_spawn(x) { return x + 1; }', description: 'spawns an enemy wave', inputs: [{ name: 'x', type: 'number' }], outputs: [{ name: 'y', type: 'number' }] } } });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'semantic_search', arguments: { query: 'spawn an enemy wave' } } });
    // Every model process the server has had, looked for from its start until the search's answer.
    const seen = new Set<number>();
    const deadline = Date.now() + 60_000;
    while (!stdout.includes('"id":3') && Date.now() < deadline) {
      for (const pid of childrenRunning(child.pid!, 'embedding-worker')) seen.add(pid);
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok(stdout.includes('"id":3'), stderr);
    assert.match(stdout, /enemy_spawn/);
    for (const pid of childrenRunning(child.pid!, 'embedding-worker')) seen.add(pid);
    assert.equal(seen.size, 1, `one model process, the one started early, taken by the server: ${[...seen].join(', ')}`);
  } finally {
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  }
});
