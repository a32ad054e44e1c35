/**
 * Atoms prove themselves: examples kept with the atom and run after every change that reaches it,
 * test atoms (never bundled) run the same way, and every face of the runner says how they went:
 * the write's answer, test_atoms, get_status.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openInProcess, wordsOnly, type InProcessServer } from '../support/inProcess.js';
import { mathClamp } from '../support/atoms.js';
import { CLI } from '../support/server.js';
import { tempDir } from '../support/tmp.js';

let server: InProcessServer;

/** The support's math_clamp with three examples. */
const clamp = {
  ...mathClamp,
  examples: [
    { args: [5, 0, 3], returns: 3 },
    { args: [-1, 0, 3], returns: 0 },
    { args: [2, 0, 3], returns: 2 },
  ],
};

const score = {
  name: 'game_score',
  type: 'core',
  code:
    'function game_score(points) {\n  game_score.total = (game_score.total || 0) + points;\n  return math_clamp(game_score.total, 0, 100);\n}',
  inputs: [{ name: 'points', type: 'number' }],
  outputs: [{ name: 'total', type: 'number' }],
};

const scenario = {
  name: 'test_score_after_five_bricks',
  type: 'test',
  code:
    'function test_score_after_five_bricks() {\n  let s = 0;\n  for (let i = 0; i < 5; i++) s = game_score(10);\n  assert(s === 50, "five bricks make 50, got " + s);\n}',
};

before(async () => {
  server = await openInProcess({ embeddings: wordsOnly });
});
after(() => server.close());

test('a write runs its examples and says so after the contract line', async () => {
  const r = await server.call('upsert_atom', clamp);
  assert.equal(r.isError, false);
  const [first, ...rest] = r.text.split('\n');
  assert.match(first!, /^Atom "math_clamp" saved \(util\)\. Signature: /);
  assert.ok(rest.includes('Examples: 3 passed.'), r.text);
});

test('examples that do not fit the ports are refused and change nothing', async () => {
  const r = await server.call('upsert_atom', { ...clamp, examples: [{ args: ['5', 0, 3], returns: 3 }] });
  assert.equal(r.isError, true);
  assert.match(r.text, /examples\[0\] does not fit math_clamp's inputs: args\[0\] \(value\) must be a number/);
  const wrongReturn = await server.call('upsert_atom', { ...clamp, examples: [{ args: [5, 0, 3], returns: 'three' }] });
  assert.match(wrongReturn.text, /examples\[0\]\.returns does not fit math_clamp's outputs/);
  assert.equal(server.workspace.atoms.get('math_clamp')?.examples?.length, 3);
});

test('examples are kept in the atom file as @example lines and round-trip', async () => {
  const file = readFileSync(join(server.folder, 'atoms', 'math_clamp.js'), 'utf8');
  assert.match(file, /^ \* @example math_clamp\(5, 0, 3\) => 3$/m);
  const read = await server.call('read_atoms', { names: ['math_clamp'] });
  assert.equal(read.isError, false);
});

test('a test atom runs after the atoms it calls change, never lands in latest.js, and a failure names the cause', async () => {
  await server.call('upsert_atom', score);
  const ok = await server.call('upsert_atom', scenario);
  assert.ok(ok.text.split('\n').includes('Tests: 1 passed.'), ok.text);
  const bundle = readFileSync(join(server.folder, '.atomic', 'latest.js'), 'utf8');
  assert.doesNotMatch(bundle, /test_score_after_five_bricks/);
  assert.match(bundle, /game_score\(\)|game_score/);
  // A bug in what the scenario calls: the write that brings it is told, though it is saved.
  const broken = await server.call('upsert_atom', { ...score, code: score.code.replace('+ points', '+ points * 2') });
  assert.equal(broken.isError, false, 'a failing check does not refuse the write');
  assert.match(broken.text, /^Tests: 1 FAILED: test_score_after_five_bricks threw Error: five bricks make 50, got 100 \(in test_score_after_five_bricks at line 4\)\.$/m);
  const status = await server.call('get_status');
  assert.match(status.text, /^Checks: 3 examples and 1 test; 1 FAILING: test_score_after_five_bricks threw Error/m);
  const run = await server.call('test_atoms', { names: ['game_score'] });
  assert.equal(run.isError, true);
  assert.match(run.text, /^1 of 1 checks FAILED/);
  await server.call('upsert_atom', score);
  const fixed = await server.call('test_atoms', {});
  assert.equal(fixed.isError, false);
  assert.match(fixed.text, /^All 4 checks of 2 atoms passed\./);
});

test('a failing example shows the call, the value expected and the value got', async () => {
  const r = await server.call('upsert_atom', { ...clamp, code: clamp.code.replace('Math.min(Math.max(value, min), max)', 'Math.max(value, min)') });
  assert.match(r.text, /^Examples: 2 passed, 1 FAILED: math_clamp: math_clamp\(5, 0, 3\) returned 5, expected 3\.$/m);
  await server.call('upsert_atom', clamp);
});

test('a test atom is no caller: the atom it calls can be deleted, and the test then fails', async () => {
  await server.call('upsert_atom', {
    name: 'spare_helper',
    type: 'util',
    code: 'function spare_helper() {\n  return 1;\n}',
    outputs: [{ name: 'one', type: 'number' }],
  });
  await server.call('upsert_atom', {
    name: 'test_spare_helper',
    type: 'test',
    code: 'function test_spare_helper() {\n  assert(spare_helper() === 1);\n}',
  });
  const graph = await server.call('query_graph', { operation: 'unused' });
  assert.match(graph.text, /spare_helper/, 'used by a test only: still unused');
  const deleted = await server.call('delete_atom', { name: 'spare_helper' });
  assert.equal(deleted.isError, false, deleted.text);
  assert.match(deleted.text, /^Tests: 1 FAILED: test_spare_helper threw ReferenceError/m);
});

test('atomic-coding test runs the checks of the atoms in git: a summary, exit 1 on a failure, JUnit XML', async () => {
  // The atom files are all a clone has: the command reads them, runs every check and closes.
  const clone = tempDir('checks-cli-');
  mkdirSync(join(clone, 'atoms'));
  for (const name of ['math_clamp', 'game_score', 'test_score_after_five_bricks']) {
    writeFileSync(join(clone, 'atoms', `${name}.js`), readFileSync(join(server.folder, 'atoms', `${name}.js`)));
  }
  const junit = join(clone, 'junit.xml');
  const passing = spawnSync(process.execPath, [CLI, 'test', '--workspace', clone, '--junit', junit], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(passing.status, 0, passing.stderr);
  assert.match(passing.stdout, /^4 passed, 0 failed$/m);
  assert.match(readFileSync(junit, 'utf8'), /<testsuite name="atomic-coding" tests="4" failures="0"/);
  const file = join(clone, 'atoms', 'math_clamp.js');
  writeFileSync(file, readFileSync(file, 'utf8').replace('@example math_clamp(5, 0, 3) => 3', '@example math_clamp(5, 0, 3) => 4'));
  const failing = spawnSync(process.execPath, [CLI, 'test', '--workspace', clone, '--junit', junit], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(failing.status, 1, failing.stderr);
  assert.match(failing.stdout, /^FAIL math_clamp example 1: math_clamp\(5, 0, 3\) returned 3, expected 4$/m);
  assert.match(failing.stdout, /^3 passed, 1 failed$/m);
  assert.match(readFileSync(junit, 'utf8'), /<failure message="math_clamp\(5, 0, 3\) returned 3, expected 4">/);
});
