import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runInNewContext } from 'node:vm';
import { assemble, createBundle, IncrementalBundler, spliceBlocks, type BundlePlan } from '../../src/bundle/bundler.js';
import { bootAtom, findEntryPoint } from '../../src/atoms/boot.js';
import type { Atom, AtomDraft } from '../../src/atoms/model.js';
import { validateDraft } from '../../src/atoms/validate.js';
import { cube } from '../support/atoms.js';

function toAtom(d: AtomDraft): Atom {
  return { ...validateDraft(d), version: 1, created_at: 't', updated_at: 't' };
}

const atoms = cube.map(toAtom);

test('the bundle has the contract header, order, IIFE, markers and Boot line', () => {
  const { code, order, entry } = createBundle(atoms, new Date('2026-02-08T12:00:00.123Z'));
  assert.deepEqual(order, ['math_clamp', 'physics_config', 'player_jump', 'game_loop']);
  assert.equal(entry, 'game_loop');
  const lines = code.split('\n');
  assert.deepEqual(lines.slice(0, 7), [
    '// === Atomic Coding Bundle ===',
    '// Generated: 2026-02-08T12:00:00Z',
    '// Atoms: 4',
    '// Order: math_clamp -> physics_config -> player_jump -> game_loop',
    '(function() {',
    '  "use strict";',
    '',
  ]);
  assert.ok(lines.includes('  // --- [util] math_clamp ---'));
  assert.ok(lines.includes('  // --- [core] game_loop ---'));
  assert.ok(code.endsWith("  // Boot\n  if (typeof game_loop === 'function') game_loop();\n})();\n"));
});

test('the produced bundle runs and the atoms call each other', () => {
  const { code } = createBundle(atoms);
  const sandbox: Record<string, unknown> = {};
  sandbox.globalThis = sandbox;
  runInNewContext(code, sandbox);
  // Template literal lines are not re-indented, so the string keeps its exact value.
  assert.deepEqual(JSON.parse(JSON.stringify(sandbox.__atomic_result)), { vy: 12, clamped: 10, text: 'jump\n12' });
});

test('entry point: game_loop, else main, else the last core atom in order', () => {
  const m = (list: Atom[]) => new Map(list.map((a) => [a.name, a]));
  const core = (name: string, deps: string[] = []) =>
    toAtom({ name, type: 'core', code: `function ${name}() {}`, dependencies: deps });
  assert.equal(findEntryPoint(m([core('main'), core('game_loop')]), ['game_loop', 'main']), 'game_loop');
  assert.equal(findEntryPoint(m([core('main'), core('boot')]), ['boot', 'main']), 'main');
  assert.equal(findEntryPoint(m([core('alpha'), core('zeta')]), ['alpha', 'zeta']), 'zeta');
  assert.equal(findEntryPoint(m([atoms[0]!]), ['math_clamp']), null);
  assert.match(createBundle([atoms[1]!]).code, /no core atom: nothing to start/);
});

test('bootAtom: looks at core atoms only, and sorts the whole graph only when the rule needs the order', () => {
  const make = (name: string, type: Atom['type'], deps: string[] = []) =>
    toAtom({ name, type, code: `function ${name}() {}`, dependencies: deps });
  assert.equal(bootAtom([make('helper', 'util')]), null);
  assert.equal(bootAtom([make('helper', 'util'), make('start', 'core', ['helper'])]), 'start');
  // A non-core game_loop is not the entry point; the order runs through a util atom.
  const chain = [make('zeta_core', 'core'), make('mid_util', 'util', ['zeta_core']), make('alpha_core', 'core', ['mid_util']), make('game_loop', 'feature')];
  assert.equal(bootAtom(chain), 'alpha_core');
  assert.equal(bootAtom([...chain].reverse()), 'alpha_core');
  // The order the caller already has decides when given.
  assert.equal(bootAtom(chain, ['alpha_core', 'mid_util', 'zeta_core', 'game_loop']), 'zeta_core');
  assert.equal(bootAtom([...chain, make('main', 'core')]), 'main');
});

test('each line of code is indented by two spaces; empty lines, CR and U+2028 inside a line are left as they are', () => {
  const code = 'function spaced(x) {\n\n  const s = "a\u2028b";\r\n  return x;\n\n}\n';
  const bundle = createBundle([toAtom({ name: 'spaced', type: 'util', code })]).code;
  const chunk = bundle.slice(bundle.indexOf('  // --- [util] spaced ---\n') + '  // --- [util] spaced ---\n'.length, bundle.indexOf('  // Boot'));
  assert.equal(chunk, '  function spaced(x) {\n\n    const s = "a\u2028b";\r\n    return x;\n\n  }\n\n');
});

test('the same atoms give the same file (apart from the time)', () => {
  const t = new Date();
  assert.equal(createBundle(atoms, t).code, createBundle([...atoms].reverse(), t).code);
});

test('a cycle (possible only in a hand-edited database) fails the build with the atoms named', () => {
  const a = { ...toAtom({ name: 'a_one', type: 'util', code: 'function a_one() {}' }), dependencies: ['b_two'] };
  const b = { ...toAtom({ name: 'b_two', type: 'util', code: 'function b_two() {}' }), dependencies: ['a_one'] };
  assert.throws(() => createBundle([a, b]), /a_one, b_two depend on each other in a cycle/);
});

test('a bundler told of every change looks only at the atoms announced, and bundles what a full build does', () => {
  const atoms = new Map(cube.map((d) => [d.name, toAtom(d)]));
  let lookups = 0;
  const source = { get size() { return atoms.size; }, get: (name: string) => (lookups++, atoms.get(name)), all: () => [...atoms.values()] };
  const bundler = new IncrementalBundler(true);
  const at = new Date('2026-02-08T12:00:00Z');
  const text = () => assemble(bundler.bundle(source, at)).toString('utf8');
  text(); // the first build lays every atom out
  const first = bundler.bundle(source, at).order;
  const edited = cube[1]!;
  atoms.set(edited.name, toAtom({ ...edited, code: `${edited.code}\n// edited` }));
  bundler.noteChanged(edited.name);
  lookups = 0;
  const after = bundler.bundle(source, at);
  assert.equal(lookups, 1, 'one lookup: the atom announced');
  assert.equal(after.order, first, 'the order stands: the very same frozen array');
  assert.ok(Object.isFrozen(after.order));
  assert.equal(assemble(after).toString('utf8'), createBundle([...atoms.values()], at).code);
  // A changed type moves nothing in the order but is in the atom's line and may move the entry point.
  atoms.set(edited.name, toAtom({ ...edited, type: 'core' }));
  bundler.noteChanged(edited.name);
  assert.equal(text(), createBundle([...atoms.values()], at).code);
});

test('a build encodes only the atoms changed since the bundle written last, and copies the rest from it', () => {
  const many = new Map<string, Atom>();
  const helper = (name: string, body: string) => toAtom({ name, type: 'util', code: `function ${name}(x) {\n  return ${body}; // é\n}` });
  for (let i = 0; i < 2000; i++) {
    const name = `helper_${String(i).padStart(4, '0')}`;
    many.set(name, helper(name, `x + ${i}`));
  }
  const source = { get size() { return many.size; }, get: (n: string) => many.get(n), all: () => [...many.values()] };
  const bundler = new IncrementalBundler(true);
  const at = new Date('2026-02-08T12:00:00Z');
  const full = () => createBundle([...many.values()], at).code;
  // The parts after the header's (the prologue's bytes).
  const kinds = (plan: BundlePlan) => plan.parts.slice(plan.prologue).map((p) => p.kind).join(' ');
  // Compared without printing 200 KB on a failure.
  const same = (bytes: Buffer, when: string) => assert.ok(bytes.toString('utf8') === full(), `latest.js differs from a full build ${when}`);
  // Nothing written yet: every atom is encoded, in one run.
  const first = bundler.bundle(source, at);
  assert.equal(kinds(first), 'atoms bytes');
  let written = assemble(first);
  same(written, 'at first');
  bundler.written(first);

  // One edit: the runs before and after it are copied from the written bundle.
  many.set('helper_1000', helper('helper_1000', 'x /* edited */'));
  bundler.noteChanged('helper_1000');
  const edited = bundler.bundle(source, at);
  assert.equal(kinds(edited), 'copy atoms copy bytes');
  const atoms = edited.parts.find((p) => p.kind === 'atoms');
  assert.deepEqual(atoms, { kind: 'atoms', from: 1000, to: 1001 });
  written = assemble(edited, written);
  same(written, 'after an edit');
  bundler.written(edited);

  // A new atom moves every later chunk: still copied, only the new one is encoded.
  const added = helper('helper_0500_b', 'x');
  many.set(added.name, added);
  bundler.noteAdded(added);
  const grown = bundler.bundle(source, at);
  assert.equal(kinds(grown), 'copy atoms copy bytes');
  // The plan says how its order differs from the one handed out before, so the store need not compare them.
  assert.equal(edited.orderChange, undefined, 'an edit moves nothing');
  assert.equal(grown.orderChange?.base, edited.order, 'the change is from the order handed out before, that very list');
  const { at: where, removed, added: put } = grown.orderChange!.change;
  assert.deepEqual([...edited.order.slice(0, where), ...put, ...edited.order.slice(where + removed)], grown.order);
  assert.deepEqual(put, ['helper_0500_b']);
  written = assemble(grown, written);
  same(written, 'after an add');
  bundler.written(grown);

  // A plan not written (a failed write): the next build still copies from the bundle written
  // last, and encodes what changed since that one.
  many.set('helper_0002', helper('helper_0002', 'x * 2'));
  bundler.noteChanged('helper_0002');
  assert.equal(kinds(bundler.bundle(source, at)), 'copy atoms copy bytes');
  many.set('helper_0004', helper('helper_0004', 'x * 4'));
  bundler.noteChanged('helper_0004');
  const next = bundler.bundle(source, at);
  assert.equal(kinds(next), 'copy atoms copy atoms copy bytes');
  written = assemble(next, written);
  same(written, 'after a plan that was not written');
  bundler.written(next);

  // Forgotten (the file was changed by someone else): every atom is encoded again.
  bundler.forgetWritten();
  many.set('helper_0003', helper('helper_0003', 'x * 3'));
  bundler.noteChanged('helper_0003');
  const afresh = bundler.bundle(source, at);
  assert.equal(kinds(afresh), 'atoms bytes');
  same(assemble(afresh), 'after forgetting the bundle written');

  // Two atoms added between builds: no change is claimed (the store compares the lists).
  for (const name of ['helper_0700_b', 'helper_0800_b']) {
    const atom = helper(name, 'x');
    many.set(name, atom);
    bundler.noteAdded(atom);
  }
  const twice = bundler.bundle(source, at);
  assert.equal(twice.orderChange, undefined);
  same(assemble(twice), 'after two adds in one build');
  // One removed: the change takes it out.
  many.delete('helper_0700_b');
  bundler.noteRemoved('helper_0700_b');
  const shrunk = bundler.bundle(source, at);
  assert.equal(shrunk.orderChange?.base, twice.order);
  assert.deepEqual({ ...shrunk.orderChange!.change, at: undefined }, { from: twice.order.length, at: undefined, removed: 1, added: [] });
  assert.equal(twice.order[shrunk.orderChange!.change.at], 'helper_0700_b');
});


/**
 * A bundler told of every change over `live`, writing each build over the one before (`assemble`
 * copies from it) and checking it against a full build. Returns the build's prologue length.
 */
function builtAgainstFull(live: Map<string, Atom>) {
  const source = { get size() { return live.size; }, get: (n: string) => live.get(n), all: () => [...live.values()] };
  const bundler = new IncrementalBundler(true);
  const at = new Date('2026-02-08T12:00:00Z');
  let written: Buffer | undefined;
  const build = (when: string) => {
    const plan = bundler.bundle(source, at);
    written = assemble(plan, written);
    bundler.written(plan);
    const full = createBundle([...live.values()], at).code;
    assert.ok(written.toString('utf8') === full, `latest.js differs from a full build ${when}:\n${written.toString('utf8').split('\n')[3]?.slice(0, 200)}\n${full.split('\n')[3]?.slice(0, 200)}`);
    return plan.prologue;
  };
  return { source, bundler, at, build };
}

test('atoms added and removed one by one, first, last, in between and down to none: the kept order line is a full build\'s', () => {
  const live = new Map<string, Atom>();
  const { bundler, build } = builtAgainstFull(live);
  const add = (name: string, dependencies: string[] = []) => {
    const atom = toAtom({ name, type: 'util', code: `function ${name}() {\n  return 1;\n}`, dependencies });
    live.set(name, atom);
    bundler.noteAdded(atom);
    build(`after adding ${name}`);
  };
  const remove = (name: string) => {
    live.delete(name);
    bundler.noteRemoved(name);
    build(`after removing ${name}`);
  };
  const edit = (name: string) => {
    live.set(name, toAtom({ name, type: 'util', code: `function ${name}() {\n  return 2;\n}` }));
    bundler.noteChanged(name);
    build(`after editing ${name}`);
  };
  build('empty');
  add('mmm'); // into an empty line
  add('aaa'); // first
  add('zzz'); // last
  add('ggg'); // between
  add('bbb', ['zzz']); // after its dependency: last
  edit('mmm'); // moved by the atoms added before it
  remove('aaa'); // the first
  remove('bbb'); // the last
  remove('ggg'); // between
  remove('mmm');
  remove('zzz'); // the only one
  add('kkk');
  edit('kkk');
});

test('an order line of many blocks: names put in and taken out at its ends, across a block\'s edge and until a block splits', () => {
  const live = new Map<string, Atom>();
  const make = (name: string) => toAtom({ name, type: 'util', code: `function ${name}() {\n  return 1;\n}` });
  const long = (i: number, tail = '') => `atom_with_a_rather_long_name_for_the_line_${String(i).padStart(4, '0')}${tail}`;
  for (let i = 0; i < 2000; i++) live.set(long(i), make(long(i))); // ~100 KB of names: two blocks
  const { source, bundler, at, build } = builtAgainstFull(live);
  const add = (name: string) => {
    const atom = make(name);
    live.set(name, atom);
    bundler.noteAdded(atom);
  };
  const remove = (name: string) => {
    live.delete(name);
    bundler.noteRemoved(name);
  };
  assert.ok(build('at first') >= 4, 'the names are in more than one block');
  add('a_first_of_all');
  add('zz_last_of_all');
  build('after adding at both ends');
  // Around the first block's edge (64 KiB: about the 1,250th name), then many into one block until it splits.
  for (let i = 1240; i < 1260; i += 2) remove(long(i));
  // A build after each: one change between builds is patched in (more are made again at the build).
  for (let i = 0; i < 700; i++) {
    add(long(10, `_more_${String(i).padStart(4, '0')}_${'x'.repeat(60)}`));
    bundler.bundle(source, at);
  }
  const plan = bundler.bundle(source, at);
  const blocks = plan.parts.slice(2, plan.prologue - 1).map((p) => (p.kind === 'bytes' ? p.bytes.length : -1));
  // Made again whole, every block but the last would hold 64 KiB.
  assert.ok(blocks.slice(0, -1).some((n) => n !== 64 * 1024), `the line was patched, and the grown block split: ${blocks.join(', ')}`);
  build('after removing across an edge and growing one block');
  remove('a_first_of_all');
  remove('zz_last_of_all');
  build('after removing both ends');
});

test('spliceBlocks replaces bytes across blocks as one buffer would, and shares the blocks it does not touch', () => {
  let seed = 11;
  const random = (n: number) => Math.floor(((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * n);
  for (let round = 0; round < 200; round++) {
    const whole = Buffer.alloc(random(300_000), 'abcdefghijklmnopqrstuvwxyz');
    const blocks: Buffer[] = [];
    for (let at = 0; at < whole.length; ) {
      const size = 1 + random(100_000);
      blocks.push(whole.subarray(at, at + size));
      at += size;
    }
    const start = random(whole.length + 1);
    const count = random(Math.min(200, whole.length - start + 1));
    const inserted = Buffer.from('x'.repeat(random(3) === 0 ? 0 : random(150_000)));
    const out = spliceBlocks(blocks, start, count, inserted)!;
    const expected = Buffer.concat([whole.subarray(0, start), inserted, whole.subarray(start + count)]);
    assert.ok(Buffer.concat(out).equals(expected), `round ${round}: ${blocks.length} blocks, start ${start}, count ${count}, inserted ${inserted.length}`);
    assert.ok(out.every((b) => b.length > 0), 'no empty block');
    // The blocks wholly before the change and wholly after it are the very same objects.
    let sum = 0;
    const ends = blocks.map((b) => (sum += b.length));
    const before = blocks.filter((_, i) => ends[i]! < start);
    const after = blocks.filter((b, i) => ends[i]! - b.length > start + count);
    assert.deepEqual(out.slice(0, before.length).map((b) => blocks.indexOf(b)), before.map((_, i) => i), 'blocks before are shared');
    assert.ok(after.every((b, i) => out[out.length - after.length + i] === b), 'blocks after are shared');
    assert.equal(spliceBlocks(blocks, whole.length, 1, inserted), undefined, 'past the end');
  }
});
