/**
 * Issue 6 through the official SDK client against the server, in process (test/support/inProcess.ts):
 * batch upserts (all or nothing, validated against the graph after the batch) and history with undo.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call } from '../support/client.js';
import { openInProcess, type InProcessServer } from '../support/inProcess.js';
import { tempDir } from '../support/tmp.js';

let server: InProcessServer;
let client: Client;
const workspace = tempDir();

before(async () => {
  server = await openInProcess({ folder: workspace });
  client = server.client;
});

after(async () => {
  await server?.close();
});

function fn(name: string, body: string, deps: string[] = [], extra: Record<string, unknown> = {}) {
  return { name, type: 'util', code: `function ${name}(x) {\n  ${body}\n}`, inputs: [{ name: 'x', type: 'number' }], outputs: [{ name: 'y', type: 'number' }], dependencies: deps, ...extra };
}

async function names(): Promise<string[]> {
  return (JSON.parse((await call(client, 'get_code_structure')).text) as { name: string }[]).map((a) => a.name);
}

const bundle = () => readFileSync(join(workspace, '.atomic', 'latest.js'), 'utf8');

test('upsert_atoms: a new helper and the atoms that start calling it go in together', async () => {
  // The callers come first in the batch: each is checked against the graph as it will be after the batch.
  const result = await call(client, 'upsert_atoms', {
    atoms: [fn('area_a', 'return square(x) + 1;', ['square']), fn('area_b', 'return square(x) * 2;', ['square']), fn('square', 'return x * x;')],
  });
  assert.equal(result.isError, false, result.text);
  assert.match(result.text, /^3 atoms saved together \(3 changed\)\. Rebuild triggered\.\n/);
  assert.match(result.text, /area_a \(util\) created\. Signature: \(x: number\) => number\. Dependencies: \[square\]\./);
  assert.deepEqual(await names(), ['area_a', 'area_b', 'square']);
  const code = bundle();
  assert.ok(code.indexOf('function square') < code.indexOf('function area_a'), 'the bundle orders the new helper first');
});

test('upsert_atoms: one refused atom and nothing is saved', async () => {
  const before = await names();
  const result = await call(client, 'upsert_atoms', {
    atoms: [fn('square', 'return x * x * 1;'), fn('new_good', 'return x;'), fn('new_bad', 'return missing_one(x);', ['missing_one'])],
  });
  assert.equal(result.isError, true);
  assert.match(result.text, /^Error: new_bad: dependencies not found: missing_one/);
  assert.deepEqual(await names(), before);
  const history = await call(client, 'atom_history', { operation: 'list', name: 'square' });
  assert.match(history.text, /^square: 1 version \(current v1\)/, 'the valid update in the refused batch was not applied');
  const shape = await call(client, 'upsert_atoms', { atoms: [fn('new_good', 'return x;'), { ...fn('bad_shape', 'return x;'), code: 'const bad_shape = 1;' }] });
  assert.match(shape.text, /^Error: atoms\[1\] \("bad_shape"\): code must be one top-level function declaration/);
  assert.deepEqual(await names(), before);
});

test('upsert_atoms: cycles inside the batch and duplicate names are refused', async () => {
  const cycle = await call(client, 'upsert_atoms', { atoms: [fn('ping', 'return pong(x);', ['pong']), fn('pong', 'return ping(x);', ['ping'])] });
  assert.equal(cycle.isError, true);
  assert.match(cycle.text, /dependency cycle: .*ping.*pong/);
  const twice = await call(client, 'upsert_atoms', { atoms: [fn('dup', 'return 1;'), fn('dup', 'return 2;')] });
  assert.match(twice.text, /^Error: the batch lists "dup" twice/);
  assert.deepEqual(await names(), ['area_a', 'area_b', 'square']);
});

test('upsert_atoms: saving unchanged atoms creates no versions', async () => {
  const result = await call(client, 'upsert_atoms', { atoms: [fn('square', 'return x * x;')] });
  assert.match(result.text, /^1 atom saved together \(0 changed\)\./);
  assert.match(result.text, /square \(util\) unchanged\./);
});

test('atom_history: versions newest first with time, size and what changed; show an old version', async () => {
  await call(client, 'upsert_atom', fn('clamp01', 'return Math.min(Math.max(x, 0), 1);'));
  await call(client, 'upsert_atom', fn('clamp01', 'return x < 0 ? 0 : x > 1 ? 1 : x;'));
  await call(client, 'upsert_atom', fn('clamp01', 'return x < 0 ? 0 : x > 1 ? 1 : x;', [], { description: 'Clamp to [0, 1]' }));
  const list = await call(client, 'atom_history', { operation: 'list', name: 'clamp01' });
  const lines = list.text.split('\n');
  assert.equal(lines[0], 'clamp01: 3 versions (current v3), newest first:');
  assert.match(lines[1]!, /^ {2}v3 {2}\d{4}-\d\d-\d\dT[\d:.]+Z {2}\d+ B {2}changed description$/);
  assert.match(lines[2]!, /^ {2}v2 .* changed code$/);
  assert.match(lines[3]!, /^ {2}v1 .* created$/);
  const v1 = await call(client, 'atom_history', { operation: 'show', name: 'clamp01', version: 1 });
  assert.match(v1.text, /^\/\/ === clamp01 \(util\) v1, saved .* ===\n/);
  assert.match(v1.text, /return Math\.min\(Math\.max\(x, 0\), 1\);/);
  const missing = await call(client, 'atom_history', { operation: 'show', name: 'clamp01', version: 9 });
  assert.equal(missing.text, 'Error: clamp01 has no version 9; it has v3, v2, v1');
});

test('atom_history: restore saves an old version as a new one, rebuilt like any change', async () => {
  const restored = await call(client, 'atom_history', { operation: 'restore', name: 'clamp01', version: 1 });
  assert.equal(restored.isError, false, restored.text);
  const [first, ...notes] = restored.text.split('\n');
  assert.match(first!, /^Atom "clamp01" restored from v1 as v4 \(util\)\. Signature: \(x: number\) => number\. .*Rebuild triggered\.$/);
  // v3 had a description that v1 did not: the restore says it removed it, as an update does (issue 14).
  assert.deepEqual(notes, ['Removed: description']);
  const current = await call(client, 'read_atoms', { names: ['clamp01'] });
  assert.match(current.text, /v4 ===/);
  assert.match(current.text, /Math\.min\(Math\.max\(x, 0\), 1\)/);
  assert.match(bundle(), /Math\.min\(Math\.max\(x, 0\), 1\)/);
  const list = await call(client, 'atom_history', { operation: 'list', name: 'clamp01' });
  assert.match(list.text.split('\n')[1]!, /v4 .* changed code, description \(same as v1\)$/);
  const again = await call(client, 'atom_history', { operation: 'restore', name: 'clamp01', version: 1 });
  assert.equal(again.text, 'Atom "clamp01" v4 already has the content of v1: nothing changed.');
  const noVersion = await call(client, 'atom_history', { operation: 'restore', name: 'clamp01' });
  assert.match(noVersion.text, /^Error: restoring "clamp01" needs a version: it exists \(v4\); list its versions to choose one$/);
});

test('atom_history: deleted atoms are listed and restored, with the usual validation', async () => {
  await call(client, 'upsert_atom', fn('helper_x', 'return x + 1;'));
  await call(client, 'upsert_atom', fn('uses_helper', 'return helper_x(x);', ['helper_x']));
  await call(client, 'upsert_atom', fn('uses_helper', 'return x + 1;'));
  const deleted = await call(client, 'delete_atom', { name: 'helper_x' });
  assert.equal(deleted.isError, false, deleted.text);

  const listed = await call(client, 'atom_history', { operation: 'deleted' });
  assert.match(listed.text, /^1 deleted atom \(restore with operation "restore"\):\n {2}helper_x {2}deleted \S+ \(last version v1\)$/);

  // v1 of uses_helper calls helper_x, which is gone: refused until helper_x is back.
  const refused = await call(client, 'atom_history', { operation: 'restore', name: 'uses_helper', version: 1 });
  assert.equal(refused.isError, true);
  assert.match(refused.text, /^Error: cannot restore uses_helper v1: dependencies not found: helper_x\..*\(restore the atoms it needs first\); atom_history "deleted" lists the atoms that can be restored$/);

  const back = await call(client, 'atom_history', { operation: 'restore', name: 'helper_x' });
  assert.match(back.text, /^Atom "helper_x" restored from v1 as v3 \(util\)/);
  const history = await call(client, 'atom_history', { operation: 'list', name: 'helper_x' });
  assert.match(history.text, /^helper_x: 3 versions \(current v3\), newest first:\n {2}v3 .* re-created after deletion \(same as v1\)\n {2}v2 .* deleted\n {2}v1 .* created$/);
  assert.equal((await call(client, 'atom_history', { operation: 'deleted' })).text, 'No deleted atoms.');

  const nowOk = await call(client, 'atom_history', { operation: 'restore', name: 'uses_helper', version: 1 });
  assert.match(nowOk.text, /^Atom "uses_helper" restored from v1 as v3 .*Dependencies: \[helper_x\]/);
});

test('atom_history: refusals name what to send', async () => {
  assert.match((await call(client, 'atom_history', { operation: 'list' })).text, /^Error: atom_history operation "list" needs name/);
  assert.match((await call(client, 'atom_history', { operation: 'list', name: 'never_was' })).text, /^Error: Atom "never_was" has no history: it never existed/);
});
