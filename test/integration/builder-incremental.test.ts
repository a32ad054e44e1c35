/**
 * The incremental bundle (what the builder writes after every change) is byte for byte the
 * bundle built from scratch, whatever changed in between; and a latest.js cut short (it is
 * written without fsync) is rebuilt when the workspace opens.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, openSync, readdirSync, readFileSync, readSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assemble, createBundle, IncrementalBundler, type BundlePlan } from '../../src/bundle/bundler.js';
import { bootAtom } from '../../src/atoms/boot.js';
import { replaceFile, writeFileAtomic } from '../../src/util/atomicFile.js';
import type { Atom, AtomDraft } from '../../src/atoms/model.js';
import { validateDraft } from '../../src/atoms/validate.js';
import { AtomWorkspace } from '../../src/workspace.js';
import { KeywordOnlyProvider } from '../../src/search/embeddings/keyword.js';
import { cube, gameLoop, mathClamp, playerJump } from '../support/atoms.js';
import { tempDir } from '../support/tmp.js';

const at = new Date('2026-02-08T12:00:00Z');
const text = (b: BundlePlan) => assemble(b).toString('utf8');

/** A stored atom as upsert_atom arguments. */
function asDraft(atom: Atom): AtomDraft {
  return { ...atom, description: atom.description ?? undefined };
}

function toAtom(d: AtomDraft, version = 1): Atom {
  return { ...validateDraft(d), version, created_at: 't', updated_at: 't' };
}

/** Words only: these tests never need the model. */
const noModel = new KeywordOnlyProvider();

test('bundling from a lookup (the store, no copy of its atoms) gives a full build\'s bytes after edits, type changes, adds and removals', () => {
  const bundler = new IncrementalBundler();
  const byName = new Map<string, Atom>();
  const lookup = { get size() { return byName.size; }, get: (n: string) => byName.get(n), all: () => [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)) };
  const put = (a: Atom) => byName.set(a.name, a);
  for (const d of [mathClamp, playerJump, gameLoop]) put(toAtom(d));
  const same = () => assert.equal(text(bundler.bundle(lookup, at)), createBundle(lookup.all(), at).code);
  same();
  put(toAtom({ ...mathClamp, code: mathClamp.code.replace('Math.max', 'Math.max /* edited */') }, 2));
  same();
  assert.match(text(bundler.bundle(lookup, at)), /edited/);
  put(toAtom({ ...playerJump, type: 'core' }, 2)); // the type is in the chunk's line and may move the boot
  same();
  const config = cube.find((d) => d.name !== mathClamp.name && d.name !== playerJump.name && d.name !== gameLoop.name)!;
  put(toAtom(config));
  same();
  byName.delete(config.name);
  same();
  // A change nobody announced (the lookup changed under the bundler): caught, not bundled stale.
  byName.delete(gameLoop.name);
  put(toAtom({ ...gameLoop, name: 'game_loop_two', code: gameLoop.code.replace('function game_loop', 'function game_loop_two') }));
  same();
});

test('an edit of one atom reuses the rest and gives the same bytes as a full build', () => {
  const bundler = new IncrementalBundler();
  let atoms = cube.map((d) => toAtom(d));
  assert.equal(text(bundler.bundle(atoms, at)), createBundle(atoms, at).code);
  atoms = atoms.map((a) => (a.name === 'math_clamp' ? toAtom({ ...mathClamp, code: mathClamp.code.replace('max)', 'max) /* edited */') }, 2) : a));
  assert.equal(text(bundler.bundle(atoms, at)), createBundle(atoms, at).code);
  assert.match(text(bundler.bundle(atoms, at)), /edited/);
});

test('added and removed atoms are noticed even without invalidateOrder', () => {
  const bundler = new IncrementalBundler();
  const three = cube.filter((d) => d.name !== 'game_loop').map((d) => toAtom(d));
  bundler.bundle(three, at);
  const four = [...three, toAtom(gameLoop)];
  assert.equal(text(bundler.bundle(four, at)), createBundle(four, at).code);
  assert.equal(text(bundler.bundle(three, at)), createBundle(three, at).code);
});

test('a changed dependency or type re-sorts after invalidateOrder', () => {
  const bundler = new IncrementalBundler();
  const atoms = cube.map((d) => toAtom(d));
  bundler.bundle(atoms, at);
  const noDeps = atoms.map((a) => (a.name === 'player_jump' ? toAtom({ ...playerJump, dependencies: [], code: playerJump.code.replace('physics_config()', '{ jump_force: 1 }') }, 2) : a));
  bundler.invalidateOrder();
  const rebuilt = bundler.bundle(noDeps, at);
  assert.equal(text(rebuilt), createBundle(noDeps, at).code);
});

test('the builder follows the store: a dependency change reorders latest.js', async () => {
  const dir = tempDir();
  const ws = await AtomWorkspace.open(dir, { embeddings: noModel });
  try {
    for (const d of cube) await ws.upsert(d);
    const bundlePath = join(dir, '.atomic', 'latest.js');
    const body = (code: string) => code.replace(/\/\/# sourceMappingURL=latest\.js\.map\n$/, '').split('\n').slice(2).join('\n'); // without the Generated line and the map's line (the builder adds it)
    assert.equal(body(readFileSync(bundlePath, 'utf8')), body(createBundle(ws.atoms.all()).code));
    // z_helper sorts last by name; once player_jump depends on it, it must come before player_jump.
    await ws.upsert({ name: 'z_helper', type: 'util', code: 'function z_helper() { return 2; }' });
    await ws.upsert({ ...playerJump, dependencies: ['physics_config', 'z_helper'] });
    const order = /^\/\/ Order: (.*)$/m.exec(readFileSync(bundlePath, 'utf8'))![1]!.split(' -> ');
    assert.ok(order.indexOf('z_helper') < order.indexOf('player_jump'), order.join(' -> '));
    assert.equal(body(readFileSync(bundlePath, 'utf8')), body(createBundle(ws.atoms.all()).code));
  } finally {
    await ws.close();
  }
});

test('after a reopen the boot atom and the first build start from the order the open sorted, and match a fresh sort', async () => {
  const dir = tempDir();
  // Three core atoms and no game_loop or main: the boot atom is the last core atom in dependency
  // order, so a wrong order would boot another one.
  const drafts: AtomDraft[] = [
    { name: 'zeta_core', type: 'core', code: 'function zeta_core() { return 1; }' },
    { name: 'alpha_core', type: 'core', code: 'function alpha_core() { return zeta_core() + 1; }', dependencies: ['zeta_core'] },
    { name: 'mid_core', type: 'core', code: 'function mid_core() { return 3; }' },
    { name: 'b_util', type: 'util', code: 'function b_util() { return alpha_core() * 2; }', dependencies: ['alpha_core'] },
  ];
  let ws = await AtomWorkspace.open(dir, { embeddings: noModel });
  for (const d of drafts) await ws.upsert(d);
  await ws.close();
  ws = await AtomWorkspace.open(dir, { embeddings: noModel });
  try {
    assert.equal(ws.bootAtom(), bootAtom(ws.atoms.all()));
    assert.equal(ws.bootAtom(), 'alpha_core');
    // The first build after the open lays the atoms out in the order it was handed.
    await ws.upsert({ ...drafts[2]!, code: 'function mid_core() { return 4; }' });
    const body = (code: string) => code.replace(/\/\/# sourceMappingURL=latest\.js\.map\n$/, '').split('\n').slice(2).join('\n'); // without the Generated line and the map's line (the builder adds it)
    assert.equal(body(readFileSync(join(dir, '.atomic', 'latest.js'), 'utf8')), body(createBundle(ws.atoms.all()).code));
  } finally {
    await ws.close();
  }
});

test('a latest.js cut short (a power loss before it reached the disk) is rebuilt on open', async () => {
  const dir = tempDir();
  const bundlePath = join(dir, '.atomic', 'latest.js');
  let ws = await AtomWorkspace.open(dir, { embeddings: noModel });
  for (const d of cube) await ws.upsert(d);
  await ws.close();
  const whole = readFileSync(bundlePath, 'utf8');
  writeFileSync(bundlePath, whole.slice(0, whole.length / 2));
  ws = await AtomWorkspace.open(dir, { embeddings: noModel });
  try {
    assert.ok(ws.builder.hasWholeBundle());
    assert.ok(readFileSync(bundlePath, 'utf8').endsWith('})();\n//# sourceMappingURL=latest.js.map\n'));
    writeFileSync(bundlePath, '');
    assert.equal(ws.builder.hasWholeBundle(), false);
  } finally {
    await ws.close();
  }
});

test('a build copies unchanged atoms from the bundle it wrote last, never from one someone else changed', async () => {
  const dir = tempDir();
  const ws = await AtomWorkspace.open(dir, { embeddings: noModel });
  const bundlePath = join(dir, '.atomic', 'latest.js');
  const body = (code: string) => code.replace(/\/\/# sourceMappingURL=latest\.js\.map\n$/, '').split('\n').slice(2).join('\n'); // without the Generated line and the map's line (the builder adds it)
  const matchesStore = (when: string) => assert.ok(body(readFileSync(bundlePath, 'utf8')) === body(createBundle(ws.atoms.all()).code), `latest.js is not the full build ${when}`);
  const edit = async (name: string, mark: string) => {
    const atom = asDraft(ws.atoms.get(name)!);
    await ws.upsert({ ...atom, code: atom.code.replace(/\n}$/, ` // ${mark}\n}`) });
  };
  try {
    for (const d of cube) await ws.upsert(d);
    await edit(mathClamp.name, 'one');
    matchesStore('after an edit');
    // Changed in place, same size (an editor saving it): the builder's open file changes with it.
    const text = readFileSync(bundlePath, 'utf8');
    writeFileSync(bundlePath, text.replaceAll('return', 'RETURN'));
    await edit(gameLoop.name, 'two');
    matchesStore('after latest.js was changed in place');
    // Cut short in place.
    writeFileSync(bundlePath, readFileSync(bundlePath, 'utf8').slice(0, 200));
    await edit(playerJump.name, 'three');
    matchesStore('after latest.js was cut short');
    // Replaced by another file (a rename over it): the builder still reads its own, unchanged.
    writeFileSync(`${bundlePath}.other`, '// === Atomic Coding Bundle ===\n');
    renameSync(`${bundlePath}.other`, bundlePath);
    await edit(mathClamp.name, 'four');
    matchesStore('after latest.js was replaced');
  } finally {
    await ws.close();
  }
});

test('a replaced file is freed after the write: a reader that has it open reads it whole, and no temp file stays', async () => {
  const folder = tempDir();
  const file = join(folder, 'latest.js');
  const freed: Promise<void>[] = [];
  const later = { durable: false, freeOldLater: (p: Promise<void>) => freed.push(p) };
  await writeFileAtomic(file, 'old '.repeat(10_000), 0o644, later);
  assert.equal(freed.length, 0, 'nothing was replaced, nothing to free');
  const reader = openSync(file, 'r');
  try {
    await writeFileAtomic(file, 'new', 0o644, later);
    assert.equal(freed.length, 1);
    assert.equal(readFileSync(file, 'utf8'), 'new');
    await freed[0];
    const bytes = Buffer.alloc(40_000);
    assert.equal(readSync(reader, bytes, 0, bytes.length, 0), 40_000);
    assert.equal(bytes.toString('utf8'), 'old '.repeat(10_000));
  } finally {
    closeSync(reader);
  }
  assert.deepEqual(readdirSync(folder), ['latest.js']);
});

test('a replacement that fails after the old file was moved aside puts the old file back', async () => {
  const folder = tempDir();
  const file = join(folder, 'latest.js');
  const later = { durable: false, freeOldLater: () => {} };
  await writeFileAtomic(file, 'old', 0o644, later);
  // The new file's temp name is taken away before it can be renamed: the second rename fails.
  const failing = replaceFile(
    file,
    async (out) => {
      await out.writeFile('new');
      for (const name of readdirSync(folder)) if (name !== 'latest.js') unlinkSync(join(folder, name));
    },
    0o644,
    later,
  );
  await assert.rejects(failing, /ENOENT/);
  assert.equal(readFileSync(file, 'utf8'), 'old');
  assert.deepEqual(readdirSync(folder), ['latest.js']);
});

test('builds free the bundles they replace: after idle() only latest.js is left in .atomic/ of what the builder wrote', async () => {
  const dir = tempDir();
  const ws = await AtomWorkspace.open(dir, { embeddings: noModel });
  try {
    for (const d of cube) await ws.upsert(d);
    await ws.upsert({ ...cube[0]!, description: 'edited' });
    await ws.builder.idle();
    assert.deepEqual(readdirSync(join(dir, '.atomic')).filter((n) => n.includes('latest.js')), ['latest.js', 'latest.js.map']);
  } finally {
    await ws.close();
  }
});

test('after random creates, deletes, edits, type and dependency changes, latest.js is the full build', async () => {
  const dir = tempDir();
  const ws = await AtomWorkspace.open(dir, { embeddings: noModel });
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const types = ['core', 'feature', 'util'] as const;
  const draft = (name: string, deps: string[], body: string): AtomDraft => ({
    name,
    type: pick(types),
    dependencies: deps,
    code: `function ${name}() {\n  return ${[...deps.map((d) => `${d}()`), body].join(' + ')};\n}`,
  });
  const bundlePath = join(dir, '.atomic', 'latest.js');
  const body = (code: string) => code.replace(/\/\/# sourceMappingURL=latest\.js\.map\n$/, '').split('\n').slice(2).join('\n'); // without the Generated line and the map's line (the builder adds it)
  try {
    await ws.upsertMany(Array.from({ length: 30 }, (_, i) => draft(`a_${String(i).padStart(3, '0')}`, [], String(i))));
    let next = 30;
    for (let step = 0; step < 80; step++) {
      const names = ws.atoms.all().map((a) => a.name);
      const roll = random();
      const someDeps = () => [...new Set(Array.from({ length: Math.floor(random() * 3) }, () => pick(names)))];
      if (roll < 0.35) {
        // A new atom; names sort anywhere among the others.
        const name = `${pick(['a', 'm', 'z', 'b'])}_${String(next++).padStart(3, '0')}`;
        await ws.upsert(draft(name, someDeps(), String(step)));
      } else if (roll < 0.5) {
        const unused = names.filter((n) => ws.atoms.dependents(n).length === 0);
        if (unused.length > 1) await ws.delete(pick(unused));
      } else if (roll < 0.7) {
        const atom = asDraft(ws.atoms.get(pick(names))!);
        await ws.upsert({ ...atom, code: atom.code.replace(/\n}$/, ` // ${step}\n}`) });
      } else if (roll < 0.8) {
        const atom = asDraft(ws.atoms.get(pick(names))!);
        await ws.upsert({ ...atom, type: pick(types) });
      } else {
        // New dependencies may form a cycle: the store refuses it, and nothing changes.
        const atom = asDraft(ws.atoms.get(pick(names))!);
        const deps = someDeps().filter((d) => d !== atom.name);
        const next = { ...atom, dependencies: deps, code: `function ${atom.name}() {\n  return ${[...deps.map((d) => `${d}()`), '1'].join(' + ')};\n}` };
        await ws.upsert(next).catch(() => {});
      }
      assert.equal(body(readFileSync(bundlePath, 'utf8')), body(createBundle(ws.atoms.all()).code), `after step ${step}`);
    }
  } finally {
    await ws.close();
  }
});

test('the boot atom, read from the order the bundler keeps, is the fresh sort\'s, the write note\'s and the Boot line\'s after every kind of write', async () => {
  const dir = tempDir();
  const ws = await AtomWorkspace.open(dir, { embeddings: noModel });
  // A fixed sequence of pseudo-random writes: several core atoms and no game_loop or main, so the
  // boot atom is the last core atom in dependency order and moves with creations, deletions, type
  // changes and dependency changes.
  let seed = 7;
  const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
  const names = ['c_one', 'b_two', 'a_three', 'f_four', 'e_five', 'd_six', 'h_seven', 'g_eight'];
  const draftOf = (name: string, type: 'core' | 'util', dependencies: string[]): AtomDraft => ({
    name,
    type,
    dependencies,
    code: `function ${name}() { return ${dependencies.map((d) => `${d}()`).join(' + ') || '1'}; }`,
  });
  const bootLine = () => /^ {2}if \(typeof (\w+) === 'function'\) \1\(\);$/m.exec(readFileSync(join(dir, '.atomic', 'latest.js'), 'utf8'))?.[1] ?? null;
  const moves = new Set<string | null>();
  try {
    for (let step = 0; step < 80; step++) {
      const present = ws.atoms.all().map((a) => a.name);
      const name = names[random(names.length)]!;
      const atom = ws.atoms.get(name);
      const usedBy = ws.atoms.all().filter((a) => a.dependencies.includes(name));
      const was = bootAtom(ws.atoms.all());
      let outcome: { notes: { boot?: { now: string | null; was: string | null } } };
      if (atom && usedBy.length === 0 && random(4) === 0) outcome = await ws.delete(name);
      else {
        // Dependencies among the atoms present that do not depend on this one (no cycle).
        const reaches = (from: string, to: string): boolean => from === to || (ws.atoms.get(from)?.dependencies ?? []).some((d) => reaches(d, to));
        const candidates = present.filter((n) => n !== name && !reaches(n, name));
        const dependencies = candidates.filter(() => random(3) === 0).sort();
        outcome = await ws.upsert(draftOf(name, random(2) === 0 ? 'core' : 'util', dependencies));
      }
      const expected = bootAtom(ws.atoms.all());
      // The write's answer says so exactly when the boot atom moved (read before the write's build).
      assert.deepEqual(outcome.notes.boot, expected === was ? undefined : { now: expected, was }, `step ${step}: the write's Boot note`);
      assert.equal(ws.bootAtom(), expected, `step ${step}`);
      assert.equal(bootLine(), expected, `step ${step}: the Boot line`);
      moves.add(expected);
    }
    assert.ok(moves.size >= 3, `the boot atom moved among ${[...moves].join(', ')}`);
    // A change of type alone (same code, same dependencies: the order stands) moves it too.
    for (const type of ['util', 'core'] as const) {
      const boot = ws.atoms.get(type === 'util' ? ws.bootAtom()! : names.find((n) => ws.atoms.get(n)?.type === 'util')!)!;
      const was = ws.bootAtom();
      const { notes } = await ws.upsert({ ...draftOf(boot.name, type, [...boot.dependencies]), code: boot.code });
      const expected = bootAtom(ws.atoms.all());
      assert.notEqual(expected, was, `making ${boot.name} ${type} moves the boot atom`);
      assert.deepEqual(notes.boot, { now: expected, was }, `the write's Boot note after ${boot.name} became ${type}`);
      assert.equal(ws.bootAtom(), expected);
      assert.equal(bootLine(), expected);
    }
  } finally {
    await ws.close();
  }
});
