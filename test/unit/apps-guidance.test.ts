import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Atom } from '../../src/atoms/model.js';
import { returnTypeWarning } from '../../src/atoms/returns.js';
import { bootInputsWarning, breakingChanges } from '../../src/atoms/writeChecks.js';

const atom = (over: Partial<Atom>): Atom => ({
  name: 'a', type: 'util', code: 'function a() {}', dependencies: [], inputs: [], outputs: [], description: null, version: 1, created_at: 't', updated_at: 't', ...over,
});

test('a visible return that does not fit the declared outputs is a warning with its line; what the code does not show is not guessed', () => {
  assert.match(returnTypeWarning('function f(a) {\n  return [a, 1];\n}', [{ name: 'n', type: 'number' }])!, /declares output n: number, but line 2 returns an array/);
  assert.match(returnTypeWarning('function f(a) {\n  return "Score: " + a;\n}', [{ name: 'n', type: 'number' }])!, /returns a string/);
  assert.equal(returnTypeWarning('function f(a) {\n  const g = () => { return "x"; };\n  return a * 2;\n}', [{ name: 'n', type: 'number' }]), undefined);
  assert.equal(returnTypeWarning('function f(a) {\n  return other(a);\n}', [{ name: 'n', type: 'number' }]), undefined);
  assert.match(returnTypeWarning('function f(a) {\n  return 3;\n}', [{ name: 'x', type: 'number' }, { name: 'y', type: 'number' }])!, /an object holding them/);
});

test('an update names what breaks its callers: removed or retyped outputs, removed, moved or new required inputs', () => {
  const before = atom({ inputs: [{ name: 'x', type: 'number' }, { name: 'y', type: 'number' }], outputs: [{ name: 'today', type: 'string' }, { name: 'n', type: 'number' }] });
  const after = atom({ inputs: [{ name: 'y', type: 'number' }, { name: 'z', type: 'string' }], outputs: [{ name: 'n', type: 'string' }] });
  assert.deepEqual(breakingChanges(before, after), ['input x removed', 'input y moved from position 2 to 1', 'input z added', 'output today removed', 'output n: number -> string']);
  assert.deepEqual(breakingChanges(before, before), []);
});

test('a boot atom that needs arguments is said before the page calls it with none', () => {
  const state = atom({ name: 'app_state', type: 'core', inputs: [{ name: 'key', type: 'string' }, { name: 'value', type: 'number', optional: true }] });
  assert.match(bootInputsWarning(state)!, /latest\.js boots app_state, which takes key: string: it is called with none when the page loads\. Give the app its entry point, a core atom named main/);
  assert.equal(bootInputsWarning(atom({ name: 'main', type: 'core' })), undefined);
});
