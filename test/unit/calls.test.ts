import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { codeNames, holdCodeNames, keepCodeNames, referencedAtoms } from '../../src/atoms/calls.js';

const atoms = new Set(['format_score', 'clamp', 'game_state', 'draw_hud']);
const isAtom = (n: string) => atoms.has(n);

describe('names an atom refers to', () => {
  test('a call to another atom is found; globals, members and keys are not atoms', () => {
    const code = 'function draw_hud(ctx, score) { ctx.fillText(format_score(score), 10, Math.floor(20)); return { clamp: 1 }.clamp; }';
    assert.deepEqual(referencedAtoms(code, isAtom, 'draw_hud'), ['format_score']);
    assert.deepEqual(codeNames(code).free, ['format_score', 'Math']);
  });

  test('a name declared inside the function shadows the atom of that name', () => {
    for (const code of [
      'function f() { const clamp = (x) => x; return clamp(1); }',
      'function f(clamp) { return clamp(1); }',
      'function f() { function clamp(x) { return x; } return clamp(2); }',
      'function f() { try { return 1; } catch (clamp) { return clamp; } }',
      'function f({ a: { clamp } }) { return clamp; }',
      'function f([, ...clamp]) { return clamp; }',
      'function f(x = 1, { clamp = 2 } = {}) { return clamp + x; }',
    ]) {
      assert.deepEqual(referencedAtoms(code, isAtom, 'f'), [], code);
    }
  });

  test('references in every expression position are found, as values too (a callback)', () => {
    const code = `function f(list) {
      const o = { game_state, [clamp(1)]: 2 };
      list.map(format_score);
      label: for (;;) { break label; }
      return \`\${draw_hud()}\` + o;
    }`;
    assert.deepEqual(referencedAtoms(code, isAtom, 'f'), ['clamp', 'draw_hud', 'format_score', 'game_state']);
  });

  test('recursion is not a dependency, and property names equal to atoms are not calls', () => {
    assert.deepEqual(referencedAtoms('function clamp(n) { return n > 1 ? clamp(n - 1) : state.game_state; }', isAtom, 'clamp'), []);
    assert.deepEqual(referencedAtoms('function f() { class A { clamp() {} game_state = 1; } return A; }', isAtom, 'f'), []);
  });

  test('parameters are listed in order, with defaults, rest and patterns', () => {
    assert.deepEqual(codeNames('function f(a, b = 2, { c }, ...rest) {}').params, ['a', 'b', '?', '...rest']);
    assert.deepEqual(codeNames('function g() {}').params, []);
  });

  test('code that does not parse refers to nothing', () => {
    assert.deepEqual(referencedAtoms('function f( {', isAtom), []);
  });
});

describe("the codes' names kept for a batch", () => {
  test('a batch being planned keeps every code it parsed until its task ends, then the last 64', async () => {
    const codes = Array.from({ length: 200 }, (_, i) => `function batch_atom_${i}(x) {\n  return x + ${i};\n}\n`);
    holdCodeNames(codes.length);
    const first = codes.map((c) => codeNames(c));
    // The store's check of the same drafts, in the same task: every code's names without a second parse.
    assert.ok(codes.every((c, i) => codeNames(c) === first[i]), 'each code parsed once');
    await Promise.resolve();
    // Once the task is done only the most recent 64 are kept: the first codes are parsed again.
    assert.notEqual(codeNames(codes[0]!), first[0]);
    assert.equal(codeNames(codes[199]!), first[199]);
  });

  test('without a batch held, no more than 64 codes are kept', () => {
    const codes = Array.from({ length: 70 }, (_, i) => `function kept_atom_${i}() {\n  return ${i};\n}\n`);
    const first = codes.map((c) => codeNames(c));
    assert.notEqual(codeNames(codes[0]!), first[0], 'the oldest was let go');
  });
});

describe('codes parsed ahead of a large batch', () => {
  test('they are parsed in slices with turns between, kept until released, and held by each holder', async () => {
    const codes = Array.from({ length: 150 }, (_, i) => `function ahead_atom_${i}(x) {\n  return x * ${i};\n}\n`);
    let turns = 0;
    const release = await keepCodeNames([...codes, 42], async () => void turns++, 0);
    assert.ok(turns >= 100, `a turn after each slice (${turns})`);
    const first = codes.map((c) => codeNames(c));
    assert.ok(codes.every((c, i) => codeNames(c) === first[i]), 'each kept code is read, not parsed again');
    // A second holder of the same codes (another import meanwhile) keeps them after the first lets go.
    const second = await keepCodeNames(codes.slice(0, 10), async () => {});
    release();
    assert.equal(codeNames(codes[0]!), first[0]);
    assert.notEqual(codeNames(codes[20]!), first[20], 'let go once no holder keeps it');
    second();
    // A code that does not parse is kept as its error, thrown at each ask.
    const broken = 'function broken_atom( {';
    const releaseBroken = await keepCodeNames([broken], async () => {});
    assert.throws(() => codeNames(broken));
    releaseBroken();
  });
});
