/**
 * run_atom through the official SDK client against the shipped server (dist/cli.js), so the
 * bundled sandbox worker and its wasm are what runs: values, console, errors with lines,
 * escape attempts and the limits.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { AtomStore } from '../../src/store/atomStore.js';
import { upsert } from '../support/storeWrites.js';
import { call, connectHttp, startServer, type RunningServer } from '../support/server.js';
import { cube } from '../support/atoms.js';
import { tempDir } from '../support/tmp.js';

let server: RunningServer;
let client: Client;
const workspace = tempDir();

function util(name: string, body: string, deps: string[] = []) {
  return { name, type: 'util', code: `function ${name}(a, b) {\n${body}\n}`, dependencies: deps };
}

const probes = [
  util('read_process', '  return process.env.HOME;'),
  util('use_require', "  return require('fs').readFileSync('/etc/passwd', 'utf8');"),
  util('constructor_trick', "  return globalThis.constructor.constructor('return process')().pid;"),
  util('function_this', "  const g = Function('return this')();\n  return Object.getOwnPropertyNames(g).filter((k) => /^[a-z]/.test(k)).sort();"),
  util('pollute', "  Object.prototype.polluted = 'yes';\n  Array.prototype.flat = null;\n  return ({}).polluted;"),
  util('dynamic_import', "  return import('node:child_process');"),
  util('spin', '  while (true) {}'),
  util('hog', '  const keep = [];\n  while (true) keep.push(new Float64Array(1 << 17));'),
  util('dive', '  return dive(a + 1) + 1;'),
  util('noisy', "  console.log('a is', a, { b });\n  console.warn('careful');\n  return [a, b];"),
  util('thrower', "  const helper = null;\n  return helper.value;"),
  util('calls_undeclared', '  return not_declared_atom(a);'),
];

/**
 * Probes that use names the page has not (process, require, an atom that does not exist): the tools
 * refuse them (no unknown calls), so they are planted through the store, as a database written by an
 * older version or another program could hold them; run_atom must still keep them inside.
 */
const unknownNames = new Set(['read_process', 'use_require', 'calls_undeclared']);

before(async () => {
  const store = await AtomStore.open(workspace);
  for (const probe of probes.filter((p) => unknownNames.has(p.name))) await upsert(store, probe as never);
  await store.close();
  server = await startServer(workspace);
  client = await connectHttp(server.url, server.token);
  const seeded = await call(client, 'upsert_atoms', { atoms: [...cube, ...probes.filter((p) => !unknownNames.has(p.name))] });
  assert.equal(seeded.isError, false, seeded.text);
});

after(async () => {
  await client?.close();
  await server?.stop();
});

interface RunResult {
  text: string;
  ok: boolean;
  value?: unknown;
  error?: { name: string; message: string; atom?: string; line?: number };
  logs: { level: string; text: string }[];
  ms: number;
  atoms_loaded: string[];
}

async function run(name: string, args: unknown[] = [], extra: Record<string, unknown> = {}): Promise<RunResult> {
  const result = (await client.callTool({ name: 'run_atom', arguments: { name, args, ...extra } })) as unknown as {
    content: { text: string }[];
    structuredContent: Omit<RunResult, 'text'>;
    isError?: boolean;
  };
  // A run that threw or hit a limit is an error result with the same text; anything else is not.
  assert.equal(result.isError === true, result.structuredContent?.ok === false, result.content[0]?.text);
  return { text: result.content[0]!.text, ...result.structuredContent };
}

test('runs an atom with its dependencies and returns the value and time', async () => {
  const r = await run('player_jump', [0, true, 2]);
  assert.equal(r.ok, true);
  assert.equal(r.value, 24);
  assert.deepEqual(r.atoms_loaded, ['physics_config', 'player_jump']);
  assert.match(r.text, /^player_jump returned 24 in [\d.]+ ms \(2 atoms loaded\)\.$/);
  const config = await run('physics_config');
  assert.deepEqual(config.value, { gravity: -9.8, jump_force: 12, max_speed: 15 });
});

test('the console output comes back with its levels', async () => {
  const r = await run('noisy', [1, 'two']);
  assert.deepEqual(r.value, [1, 'two']);
  assert.deepEqual(r.logs, [
    { level: 'log', text: 'a is 1 {"b":"two"}' },
    { level: 'warn', text: 'careful' },
  ]);
  assert.match(r.text, /\nConsole:\n {2}\[log\] a is 1 \{"b":"two"\}\n {2}\[warn\] careful$/);
});

test('an error comes back with its atom and line', async () => {
  const r = await run('thrower');
  assert.equal(r.ok, false);
  assert.deepEqual({ name: r.error!.name, atom: r.error!.atom, line: r.error!.line }, { name: 'TypeError', atom: 'thrower', line: 3 });
  assert.match(r.text, /^thrower threw TypeError in thrower at line 3: cannot read property 'value' of null/);
});

test('an undeclared dependency fails with a hint to declare it', async () => {
  const r = await run('calls_undeclared', [1]);
  assert.equal(r.error!.name, 'ReferenceError');
  assert.match(r.text, /If not_declared_atom is an atom, list it in dependencies of the atom that calls it \(calls_undeclared declares \[\]\)\./);
});

test('no process, require or host object is reachable', async () => {
  for (const name of ['read_process', 'use_require', 'constructor_trick']) {
    const r = await run(name);
    assert.equal(r.ok, false, `${name}: ${r.text}`);
    assert.equal(r.error!.name, 'ReferenceError', `${name}: ${r.text}`);
  }
  const globals = await run('function_this');
  assert.deepEqual(globals.value, [
    'console',
    'decodeURI',
    'decodeURIComponent',
    'encodeURI',
    'encodeURIComponent',
    'escape',
    'eval',
    'function_this',
    'globalThis',
    'isFinite',
    'isNaN',
    'parseFloat',
    'parseInt',
    'undefined',
    'unescape',
  ]);
});

test('prototype pollution stays inside the sandbox', async () => {
  const r = await run('pollute');
  assert.equal(r.value, 'yes');
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  // The server's own objects are untouched too: it still answers and formats arrays.
  const after = await run('player_jump', [0, true]);
  assert.equal(after.value, 12);
});

test('import() loads nothing', async () => {
  const r = await run('dynamic_import');
  assert.equal(r.ok, false);
  assert.match(r.error!.message, /could not load module 'node:child_process'/);
});

test('an endless loop ends with a clear timeout error', async () => {
  const r = await run('spin', [], { timeout_ms: 200 });
  assert.equal(r.error!.name, 'TimeoutError');
  assert.match(r.text, /^spin threw TimeoutError in spin: the run took longer than 200 ms and was stopped \(an endless loop\?\)/);
  assert.match(r.text, /raise timeout_ms/);
});

test('memory and stack limits end runs cleanly, and the server keeps serving', async () => {
  const hog = await run('hog', [1], { memory_mb: 32, timeout_ms: 10_000 });
  assert.equal(hog.error!.name, 'MemoryError', hog.text);
  assert.match(hog.error!.message, /more than 32 MiB/);
  const dive = await run('dive', [0]);
  assert.equal(dive.error!.name, 'StackOverflowError', dive.text);
  assert.equal((await run('player_jump', [0, true])).value, 12);
});

test('limits outside the allowed range and unknown atoms are refused', async () => {
  const tooLong = await call(client, 'run_atom', { name: 'spin', timeout_ms: 60_000 });
  assert.equal(tooLong.isError, true);
  assert.match(tooLong.text, /^Error: invalid arguments for run_atom: timeout_ms is too large: at most 30000/);
  const unknown = await call(client, 'run_atom', { name: 'nope' });
  assert.match(unknown.text, /^Error: Atom "nope" not found/);
});
