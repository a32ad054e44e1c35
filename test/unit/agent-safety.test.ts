import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { codeCallers, renameInCode, RenameConflict } from '../../src/atoms/calls.js';
import type { Atom } from '../../src/atoms/model.js';
import { removedFields, signatureWarning } from '../../src/atoms/writeChecks.js';
import { bootAtom } from '../../src/atoms/boot.js';

const atom = (name: string, type: Atom['type'], dependencies: string[] = [], code = `function ${name}() {}`): Atom => ({
  name, type, code, dependencies, inputs: [], outputs: [], description: null, version: 1, created_at: 't', updated_at: 't',
});

describe('renaming an atom in code', () => {
  test('free references and the own name are rewritten; properties, labels and locals are not', () => {
    assert.equal(
      renameInCode('function f(o) { fmt: for (;;) { break fmt; } return fmt(o.fmt, { fmt }, `${fmt}`); }', 'fmt', 'format_text'),
      'function f(o) { fmt: for (;;) { break fmt; } return format_text(o.fmt, { fmt: format_text }, `${format_text}`); }',
    );
    assert.equal(renameInCode('function fmt(n) { return n ? fmt(n - 1) : 0; }', 'fmt', 'fmt2', true), 'function fmt2(n) { return n ? fmt2(n - 1) : 0; }');
    assert.equal(renameInCode('function f() { const fmt = 1; return fmt; }', 'fmt', 'g'), 'function f() { const fmt = 1; return fmt; }');
    assert.equal(renameInCode('function f() { return 1; }', 'fmt', 'g'), 'function f() { return 1; }');
  });

  test('a new name declared inside a caller is a conflict, not a silent rebinding', () => {
    assert.throws(() => renameInCode('function f() { const g = 1; return fmt() + g; }', 'fmt', 'g'), RenameConflict);
  });

  test('callers are found by their code, declared or not, but not through a local of that name', () => {
    const atoms = [atom('a', 'util', [], 'function a() { return fmt(); }'), atom('b', 'util', [], 'function b(fmt) { return fmt; }'), atom('fmt', 'util')];
    assert.deepEqual(codeCallers(atoms, 'fmt'), ['a']);
  });
});

describe('the boot atom', () => {
  test('game_loop, else main, else the last core atom in dependency order; none without a core atom', () => {
    assert.equal(bootAtom([atom('helper', 'util')]), null);
    assert.equal(bootAtom([atom('start_game', 'core')]), 'start_game');
    assert.equal(bootAtom([atom('start_game', 'core'), atom('main', 'core')]), 'main');
    assert.equal(bootAtom([atom('start_game', 'core'), atom('main', 'core'), atom('game_loop', 'core')]), 'game_loop');
    assert.equal(bootAtom([atom('a_boot', 'core', ['z_setup']), atom('z_setup', 'core')]), 'a_boot');
  });
});

describe('what an update says', () => {
  test('removed fields are named, ports and dependencies by name', () => {
    const before = { ...atom('x', 'util', ['p', 'q']), description: 'd', inputs: [{ name: 'n', type: 'number' as const }], outputs: [{ name: 's', type: 'number' as const }] };
    assert.deepEqual(removedFields(before, { ...before, description: null, inputs: [], dependencies: ['p'] }), ['description', 'inputs [n]', 'dependencies [q]']);
    assert.deepEqual(removedFields(before, before), []);
  });

  test('a signature warning for a different number or names, counts only with a destructured parameter', () => {
    assert.equal(signatureWarning('function f(x) {}', []), "Warning: inputs [] do not match the function's parameters (x)");
    assert.equal(signatureWarning('function f(x, ...rest) {}', [{ name: 'x', type: 'number' }, { name: 'rest', type: 'number[]' }]), undefined);
    assert.equal(signatureWarning('function f({ a }, b) {}', [{ name: 'opts', type: 'number' }, { name: 'c', type: 'number' }]), undefined);
    assert.match(signatureWarning('function f({ a }) {}', [])!, /\(\?\)$/);
  });
});
