/**
 * The domain's write planner (atoms/writePlan.ts): the workspace's save and the text tree's import
 * planned by one function, and the versions every change writes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Atom, AtomDraft } from '../../src/atoms/model.js';
import { changed, planChange, planRename, planWrite, type WriteReader } from '../../src/atoms/writePlan.js';

function atom(name: string, code: string, dependencies: string[] = [], version = 1): Atom {
  return { name, type: 'util', code, inputs: [], outputs: [], dependencies, description: null, version, created_at: 't0', updated_at: 't0' };
}

function draft(name: string, body: string, dependencies: string[] = []): AtomDraft {
  return { name, type: 'util', code: `function ${name}() { return ${body}; }`, dependencies };
}

/** The atoms as a reader, as the store offers them. */
function reader(atoms: Atom[]): WriteReader {
  const byName = new Map(atoms.map((a) => [a.name, a]));
  return {
    get: (name) => byName.get(name),
    has: (name) => byName.has(name),
    all: () => [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1)),
    dependencyMap: () => new Map([...byName.values()].map((a) => [a.name, a.dependencies])),
    dependents: (name) => [...byName.values()].filter((a) => a.dependencies.includes(name)).map((a) => a.name).sort(),
  };
}

const base = atom('base', 'function base() { return 1; }');
const user = atom('user', 'function user() { return base() + 1; }', ['base']);
// Calls `later` before it exists, without declaring it.
const early = atom('early', 'function early() { return typeof later === "function" ? later() : 0; }');

test('save: the atoms a draft calls are added to its dependencies', () => {
  const plan = planWrite(reader([base]), { mode: 'save', drafts: [draft('top', 'base() * 2')] });
  assert.deepEqual(plan.upserts[0]!.dependencies, ['base']);
  assert.deepEqual(plan.added, [['base']]);
  assert.deepEqual(plan.links, []);
  assert.equal(plan.refused.size, 0);
});

test('save: a new atom is linked to the atoms whose code already called it', () => {
  const plan = planWrite(reader([base, early]), { mode: 'save', drafts: [draft('later', '2')] });
  assert.deepEqual(plan.linked, ['early']);
  assert.deepEqual(plan.links.map((d) => [d.name, d.dependencies]), [['early', ['later']]]);
  assert.deepEqual(plan.notLinked, []);
});

test('save: a caller that would close a cycle is not linked, and says why', () => {
  // `later` calls `early`, which calls `later`: linking early would close the cycle.
  const plan = planWrite(reader([early]), { mode: 'save', drafts: [draft('later', 'early()')] });
  assert.deepEqual(plan.upserts[0]!.dependencies, ['early']);
  assert.deepEqual(plan.linked, []);
  assert.equal(plan.notLinked.length, 1);
  assert.match(plan.notLinked[0]!, /^early \(it would close the cycle /);
});

test('save: a delete is refused while an atom declares or calls it, or when there is no such atom', () => {
  assert.throws(() => planWrite(reader([base, user]), { mode: 'save', drafts: [], deletes: ['base'] }), /Cannot delete "base": used by \[user\]/);
  const caller = atom('caller', 'function caller() { return base(); }'); // calls it, undeclared
  assert.throws(() => planWrite(reader([base, caller]), { mode: 'save', drafts: [], deletes: ['base'] }), /Cannot delete "base": used by \[caller\]/);
  assert.throws(() => planWrite(reader([base]), { mode: 'save', drafts: [], deletes: ['nope'] }), /Atom "nope" not found/);
  assert.deepEqual(planWrite(reader([base, user]), { mode: 'save', drafts: [], deletes: ['user'] }).deletes, ['user']);
});

test('import: files are taken as they are, nothing added or linked', () => {
  const plan = planWrite(reader([base, early]), { mode: 'import', drafts: [draft('top', 'base() * 2'), draft('later', '2')] });
  assert.deepEqual(plan.upserts.map((d) => [d.name, d.dependencies]), [['top', []], ['later', []]]);
  assert.deepEqual(plan.links, []);
  assert.deepEqual(plan.linked, []);
});

test('import: a refused file is left out with why, and so is a file that needs it; the rest is taken', () => {
  const broken = { ...draft('broken', '1'), code: 'function broken( {' };
  const needs = draft('needs', 'broken()', ['broken']);
  const fine = draft('fine', '3');
  const plan = planWrite(reader([base]), { mode: 'import', drafts: [broken, needs, fine] });
  assert.deepEqual(plan.upserts.map((d) => d.name), ['fine']);
  assert.deepEqual([...plan.refused.keys()].sort(), ['broken', 'needs']);
  assert.match(plan.refused.get('broken')!, /\(broken is not created until the file is fixed\)$/);
  assert.match(plan.refused.get('needs')!, /broken/);
  const stale = planWrite(reader([base]), { mode: 'import', drafts: [draft('base', 'missing_one()', ['missing_one'])] });
  assert.match(stale.refused.get('base')!, /missing_one.*\(the last good version of base stays in the store and the bundle\)$/);
});

test('import, not thorough: the code is left to the store to check (validated once)', () => {
  const broken = { ...draft('broken', '1'), code: 'function broken( {' };
  const plan = planWrite(reader([]), { mode: 'import', drafts: [broken], thorough: false });
  assert.deepEqual(plan.upserts.map((d) => d.name), ['broken']);
  assert.equal(plan.refused.size, 0);
});

test('import: a removed file deletes its atom only when nothing left uses it', () => {
  const kept = planWrite(reader([base, user]), { mode: 'import', drafts: [], deletes: ['base'] });
  assert.deepEqual(kept.deletes, []);
  assert.match(kept.refused.get('base')!, /^the file was removed, but user still uses base: /);
  const both = planWrite(reader([base, user]), { mode: 'import', drafts: [], deletes: ['base', 'user'] });
  assert.deepEqual(both.deletes.sort(), ['base', 'user']);
  // A removed file of an atom the store no longer has is nothing to delete.
  assert.deepEqual(planWrite(reader([base]), { mode: 'import', drafts: [], deletes: ['gone'] }).deletes, []);
});

test('planChange: versions of new, changed, unchanged and re-created atoms', () => {
  const atoms = reader([base]);
  const ctx = { lastVersion: (name: string) => (name === 'again' ? 4 : 0), now: 't1' };
  const { upserts } = planChange(
    { upserts: [draft('fresh', '1'), { ...draft('base', '2') }, draft('again', '5')] },
    atoms,
    ctx,
  );
  assert.deepEqual(upserts.map((r) => [r.atom.name, r.atom.version, r.created, changed(r)]), [
    ['fresh', 1, true, true],
    ['base', 2, false, true],
    ['again', 5, true, true],
  ]);
  assert.equal(upserts[1]!.atom.created_at, 't0');
  assert.equal(upserts[1]!.atom.updated_at, 't1');
  const same = planChange({ upserts: [{ name: 'base', type: 'util', code: base.code }] }, atoms, ctx).upserts[0]!;
  assert.equal(same.atom, base);
  assert.equal(changed(same), false);
});

test('planChange: refusals name the draft when the caller sent several; deletes are checked against the change', () => {
  const atoms = reader([base, user]);
  const ctx = { lastVersion: () => 0, now: 't1' };
  assert.throws(() => planChange({ upserts: [draft('a', '1', ['nope'])] }, atoms, ctx), (err: Error) => !err.message.startsWith('atoms['));
  assert.throws(() => planChange({ upserts: [draft('a', '1'), draft('b', '1', ['nope'])] }, atoms, ctx), /^AtomError: b: dependencies not found: nope/);
  assert.throws(() => planChange({ upserts: [], deletes: ['base'] }, atoms, ctx), /Cannot delete "base": used by \[user\]/);
  assert.throws(() => planChange({ upserts: [draft('base', '2')], deletes: ['base'] }, atoms, ctx), /cannot be both saved and deleted/);
  // The user rewritten in the same change no longer needs it: the delete goes through.
  const outcome = planChange({ upserts: [draft('user', '2')], deletes: ['base'] }, atoms, ctx);
  assert.deepEqual(outcome.deleted.map((a) => a.name), ['base']);
  assert.throws(() => planChange({ upserts: [], deletes: ['nope'] }, atoms, ctx), /Atom "nope" not found/);
});

test('planRename: the atom under its new name, its callers rewritten to call it, the old name deleted', () => {
  const caller = atom('caller', 'function caller() { return base(); }'); // calls it, undeclared
  const plan = planRename(reader([base, user, caller]), 'base', 'root');
  assert.deepEqual(plan.upserts.map((d) => [d.name, d.code, d.dependencies]), [
    ['root', 'function root() { return 1; }', []],
    ['caller', 'function caller() { return root(); }', ['root']],
    ['user', 'function user() { return root() + 1; }', ['root']],
  ]);
  assert.deepEqual(plan.deletes, ['base']);
  assert.deepEqual(plan.callers, ['caller', 'user']);
  assert.equal(plan.from, base);
});

test('planRename: refused for a missing atom, a taken or unchanged name, naming the atom that would be refused', () => {
  const atoms = reader([base, user]);
  assert.throws(() => planRename(atoms, 'nope', 'root'), /Atom "nope" not found/);
  assert.throws(() => planRename(atoms, 'base', 'user'), /an atom named "user" already exists/);
  assert.throws(() => planRename(atoms, 'base', 'base'), /new_name is "base" already/);
  const shadow = atom('shadow', 'function shadow() { const root = 2; return base() + root; }', ['base']);
  assert.throws(() => planRename(reader([base, shadow]), 'base', 'root'), /cannot rename "base" to "root": shadow: /);
});
