import { test } from 'node:test';
import assert from 'node:assert/strict';
import { atomsToCheck, checkLines, checksVerdict, judgeExample, judgeTest } from '../../src/atoms/checks.js';
import { checkExamples, sameJson } from '../../src/atoms/examples.js';
import { dependentsMap } from '../../src/atoms/graph.js';
import type { Atom } from '../../src/atoms/model.js';
import { returnProblem } from '../../src/atoms/ports.js';

const atom = (name: string, type: Atom['type'], dependencies: string[] = [], examples?: Atom['examples']): Atom => ({
  name, type, code: `function ${name}() {}`, dependencies, inputs: [], outputs: [], description: null, version: 1, created_at: 't', updated_at: 't',
  ...(examples ? { examples } : {}),
});

test('a change touches the checks of the atom and of everything that depends on it, only atoms with checks', () => {
  const atoms = [atom('clamp', 'util', [], [{ args: [], returns: 1 }]), atom('score', 'feature', ['clamp']), atom('t_score', 'test', ['score']), atom('other', 'util')];
  const byName = new Map(atoms.map((a) => [a.name, a]));
  const users = dependentsMap(new Map(atoms.map((a) => [a.name, a.dependencies])));
  const usersOf = (n: string) => users.get(n) ?? [];
  assert.deepEqual(atomsToCheck(['clamp'], usersOf, (n) => byName.get(n)), ['clamp', 't_score']);
  assert.deepEqual(atomsToCheck(['other'], usersOf, (n) => byName.get(n)), []);
});

test('an example passes on the same JSON, or on an error containing its text; a failure says what came', () => {
  assert.deepEqual(judgeExample('f', { args: [1], returns: { a: [1, 2] } }, { ok: true, value: { a: [1, 2] } }), { ok: true });
  assert.equal(judgeExample('f', { args: [1], returns: 2 }, { ok: true, value: 3 }).message, 'f(1) returned 3, expected 2');
  assert.deepEqual(judgeExample('f', { args: [], throws: 'bad' }, { ok: false, name: 'Error', message: 'very bad input' }), { ok: true });
  assert.match(judgeExample('f', { args: [], throws: 'bad' }, { ok: true, value: 1 }).message!, /returned 1, expected it to throw an error containing "bad"/);
  assert.match(judgeTest('t', { ok: false, name: 'Error', message: 'no', at: { atom: 't', line: 4 } }).message!, /^t threw Error: no \(in t at line 4\)$/);
  assert.ok(sameJson(undefined, null), 'a void call returns nothing, written null');
});

test('the answer lines count passes and spell out failures', () => {
  const ok = { atom: 'f', kind: 'example' as const, index: 0, label: 'example 1', ok: true, ms: 1 };
  const bad = { ...ok, index: 1, ok: false, message: 'f(1) returned 3, expected 2' };
  assert.deepEqual(checkLines([ok, ok]), ['Examples: 2 passed.']);
  assert.deepEqual(checkLines([ok, bad]), ['Examples: 1 passed, 1 FAILED: f: f(1) returned 3, expected 2.']);
  assert.deepEqual(checkLines([]), []);
});

test('examples are held to the ports: arguments, the returned value, one of returns or throws', () => {
  const inputs = [{ name: 'n', type: 'number' as const }];
  const outputs = [{ name: 'label', type: 'string' as const }];
  assert.deepEqual(checkExamples('f', [{ args: [1], returns: 'one' }], inputs, outputs), [{ args: [1], returns: 'one' }]);
  assert.throws(() => checkExamples('f', [{ args: ['1'], returns: 'one' }], inputs, outputs), /examples\[0\] does not fit f's inputs/);
  assert.throws(() => checkExamples('f', [{ args: [1], returns: 1 }], inputs, outputs), /examples\[0\]\.returns does not fit f's outputs: the output label must be a string/);
  assert.throws(() => checkExamples('f', [{ args: [1], returns: 'a', throws: 'b' }], inputs, outputs), /both returns and throws/);
  assert.throws(() => checkExamples('f', [{ args: [1] }], inputs, outputs), /needs returns/);
  assert.throws(() => checkExamples('f', [{ args: [1], returns: 'a', extra: 1 }], inputs, outputs), /unknown field "extra"/);
});

test('a returned value is held to the outputs: one value, an object of several, nothing for none', () => {
  assert.equal(returnProblem([{ name: 'x', type: 'number' }], 'Score: undefined'), 'the output x must be a number, got "Score: undefined" (a string)');
  assert.equal(returnProblem([{ name: 'a', type: 'number' }, { name: 'b', type: 'string' }], { a: 1, b: 'x' }), null);
  assert.match(returnProblem([{ name: 'a', type: 'number' }, { name: 'b', type: 'string' }], { a: 1 })!, /the key b is missing/);
  assert.equal(returnProblem([], undefined), null);
  assert.match(returnProblem([], 3)!, /declares no output but returned 3/);
});

test("the tree's verdict counts failing examples, or says the test failed", () => {
  const ex = (index: number, ok: boolean) => ({ atom: 'a', kind: 'example' as const, index, label: `example ${index + 1}`, ok, ms: 1 });
  assert.equal(checksVerdict([]), undefined);
  assert.deepEqual(checksVerdict([ex(0, true), ex(1, true), ex(2, true)]), { ok: true, text: '✓ 3 examples' });
  assert.deepEqual(checksVerdict([ex(0, true)]), { ok: true, text: '✓ 1 example' });
  assert.deepEqual(checksVerdict([ex(0, true), ex(1, true), ex(2, false)]), { ok: false, text: '✗ 1 of 3 examples failing' });
  assert.deepEqual(checksVerdict([ex(0, false), ex(1, false)]), { ok: false, text: '✗ all 2 examples failing' });
  assert.deepEqual(checksVerdict([ex(0, false)]), { ok: false, text: '✗ 1 example failing' });
  assert.deepEqual(checksVerdict([{ atom: 't', kind: 'test', index: 0, label: 't', ok: false, ms: 1 }]), { ok: false, text: '✗ test failing' });
});
