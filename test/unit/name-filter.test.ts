/** atoms/nameFilter.ts: the word filter that spares a write reading every atom's code for a name. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { codeCallers } from '../../src/atoms/calls.js';
import { codeFilter, mayName, NameFilterIndex, nameProbe } from '../../src/atoms/nameFilter.js';
import type { Atom } from '../../src/atoms/model.js';
import { generateAtoms } from '../bench/generate.js';

test('every name-like word of the code passes the filter: nothing that names an atom is ever skipped', () => {
  const atoms = generateAtoms(300, 7).atoms;
  let words = 0;
  for (const atom of atoms) {
    for (const word of atom.code.match(/[A-Za-z_$][\w$]*/g) ?? []) {
      if (!/^[a-z][a-z0-9_]*$/.test(word)) continue;
      words++;
      assert.ok(mayName(atom, nameProbe(word)), `${atom.name}: "${word}" must pass`);
    }
  }
  assert.ok(words > 3_000, `the sample had ${words} words`);
});

test('a word next to characters JavaScript joins to identifiers only differently (non-ASCII, escapes) still passes', () => {
  const atom = { code: 'function f() {\n  return éclamp_x + clamp_y + `${lerp_z}` + "mix_w" + a.dot_v;\n}\n' };
  for (const word of ['clamp_x', 'clamp_y', 'lerp_z', 'mix_w', 'dot_v', 'return', 'f']) assert.ok(mayName(atom, nameProbe(word)), word);
});

test('names the code does not hold are almost all refused: camelCase, capitalised and longer words are not names', () => {
  const atoms = generateAtoms(1_000, 11).atoms;
  let passed = 0;
  let asked = 0;
  for (let i = 0; i < 40; i++) {
    const probe = nameProbe(`physics_update_body_${5_000 + i}`);
    for (const atom of atoms) {
      asked++;
      if (mayName(atom, probe)) passed++;
    }
  }
  // Measured: 0.18% of the bench's atoms pass a name they lack; a filter that passed everything would pass 100%.
  assert.ok(passed / asked < 0.02, `${passed} of ${asked} passed`);
  // Not a camelCase or capitalised word, nor a name inside a longer word.
  const filter = codeFilter('function g() {\n  return makeThing(Thing_one, $two, clamp2);\n}\n');
  assert.deepEqual(filter, codeFilter('function g() {\n  return makeThing(Thing_one, $two, clamp2);\n}\n'), 'the same code, the same filter');
  const refused = ['make', 'thing', 'one', 'two', 'clamp'].filter((w) => !mayName({ code: 'function g() {\n  return makeThing(Thing_one, $two, clamp2);\n}\n' }, nameProbe(w)));
  assert.ok(refused.length >= 4, `refused ${refused.join(', ')}`);
});

test('callers found through the filter are those a plain search finds', () => {
  const atoms = generateAtoms(500, 3).atoms;
  const plain = (name: string) =>
    atoms
      .filter((a) => a.name !== name && new RegExp(`(^|[^\\w$])${name}\\s*\\(`).test(a.code))
      .map((a) => a.name)
      .sort();
  let withCallers = 0;
  for (const atom of atoms.slice(0, 120)) {
    const found = codeCallers(atoms, atom.name);
    assert.deepEqual(found, plain(atom.name), atom.name);
    if (found.length > 0) withCallers++;
  }
  assert.ok(withCallers > 10, `${withCallers} of the sampled atoms have callers`);
});

test('the bit-sliced index answers as every atom\'s own filter, through adds, edits and deletes', () => {
  const toAtom = (a: { name: string; code: string }) => ({ ...a }) as unknown as Atom;
  const drafts = generateAtoms(300, 5).atoms;
  const live = new Map<string, Atom>();
  const index = new NameFilterIndex();
  const check = (when: string) => {
    const all = [...live.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
    // A name of an atom, one of none, and a batch of several.
    for (const names of [[drafts[7]!.name], ['no_such_atom_here'], drafts.slice(20, 70).map((d) => d.name)]) {
      const probes = names.map(nameProbe);
      const expected = all.filter((a) => probes.some((p) => mayName(a, p))).map((a) => a.name);
      assert.deepEqual(index.mayName(names).map((a) => a.name), expected, `${when}: ${names.length} name(s)`);
    }
    assert.equal(index.size, live.size);
  };
  const put = (atom: Atom) => (live.set(atom.name, atom), index.set(atom));
  for (const d of drafts.slice(0, 100)) put(toAtom(d)); // past the first rows' room: grown
  check('after adds');
  for (const d of drafts.slice(0, 100).filter((_, i) => i % 3 === 0)) {
    live.delete(d.name);
    index.delete(d.name);
  }
  check('after deletes');
  for (const d of drafts.slice(100, 300)) put(toAtom(d)); // reuses the freed slots, then grows
  // An edit takes the old code's words out: a caller that stops calling is no longer a candidate.
  const caller = [...live.values()].find((a) => index.mayName([drafts[7]!.name]).includes(a) && a.name !== drafts[7]!.name);
  if (caller) put(toAtom({ name: caller.name, code: 'function x() {\n  return 1;\n}' }));
  check('after more adds and an edit');
  index.delete('never_there');
  check('after deleting a name it never held');
});
