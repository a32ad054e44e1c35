/**
 * An agent's first try works, and nothing breaks or goes missing without a word (issue 14): the
 * boot rule said where it matters, undeclared calls added or linked, deletes that would leave a
 * caller behind refused, a build that calls a deleted atom failed, what an update removed named,
 * signatures checked against the code, and an all-or-nothing rename. Through the server in
 * process, as an agent sees it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AtomStore } from '../../src/store/atomStore.js';
import { openInProcess, wordsOnly, type InProcessServer } from '../support/inProcess.js';
import { deleteAtom, upsert } from '../support/storeWrites.js';

const util = (name: string, code: string, extra: Record<string, unknown> = {}) => ({ name, type: 'util', code, ...extra });
const core = (name: string, code: string, extra: Record<string, unknown> = {}) => ({ name, type: 'core', code, ...extra });

async function open(folder?: string): Promise<InProcessServer> {
  return openInProcess({ embeddings: wordsOnly, ...(folder ? { folder } : {}) });
}

async function ok(s: InProcessServer, tool: string, args: Record<string, unknown>): Promise<string> {
  const r = await s.call(tool, args);
  assert.equal(r.isError, false, r.text);
  return r.text;
}

test('adding game_loop moves the boot off the agent\'s entry atom, and the answer and get_status say so', async () => {
  const s = await open();
  try {
    const first = await ok(s, 'upsert_atom', core('start_game', 'function start_game() { return 1; }'));
    assert.match(first.split('\n')[0]!, /^Atom "start_game" saved \(core\)\..* Rebuild triggered\.$/);
    assert.match(first, /^Boot: start_game \(was none\)$/m);

    const text = await ok(s, 'upsert_atom', core('game_loop', 'function game_loop() { return 2; }'));
    assert.match(text.split('\n')[0]!, /^Atom "game_loop" saved \(core\)\..* Rebuild triggered\.$/, 'the contract line stays first');
    assert.match(text, /^Boot: game_loop \(was start_game\)$/m);

    // An edit that does not move the boot says nothing about it.
    assert.doesNotMatch(await ok(s, 'upsert_atom', core('game_loop', 'function game_loop() { return 3; }')), /Boot:/);

    const status = await ok(s, 'get_status', {});
    assert.match(status, /^Boot atom: game_loop \(the core atom named game_loop, else main, else the last core atom in dependency order\)$/m);

    assert.match(await ok(s, 'delete_atom', { name: 'game_loop' }), /^Boot: start_game \(was game_loop\)$/m);
  } finally {
    await s.close();
  }
});

test('a call to an existing atom left undeclared is added to the dependencies, and the answer says so', async () => {
  const s = await open();
  try {
    await ok(s, 'upsert_atom', util('format_score_text', 'function format_score_text(n) { return "Score: " + n; }', { inputs: [{ name: 'n', type: 'number' }] }));
    const text = await ok(s, 'upsert_atom', util('draw_hud', 'function draw_hud(score) { return format_score_text(score); }', { inputs: [{ name: 'score', type: 'number' }] }));
    const [first, ...rest] = text.split('\n');
    assert.match(first!, /Dependencies: \[format_score_text\]\. Rebuild triggered\.$/);
    assert.deepEqual(rest, ['Dependencies added (called in the code): format_score_text']);
    assert.deepEqual(s.workspace.atoms.get('draw_hud')!.dependencies, ['format_score_text']);

    // In a batch, an atom of the same batch counts as existing.
    const batch = await ok(s, 'upsert_atoms', {
      atoms: [util('helper_b', 'function helper_b() { return 1; }'), util('uses_b', 'function uses_b() { return helper_b() + format_score_text(1); }')],
    });
    assert.match(batch, /^ {4}Dependencies added \(called in the code\): format_score_text, helper_b$/m);
    assert.deepEqual(s.workspace.atoms.get('uses_b')!.dependencies, ['format_score_text', 'helper_b']);
  } finally {
    await s.close();
  }
});

test('an atom created after the atoms that call it is linked to them in the same change, unless that closes a cycle', async () => {
  const first = await open();
  // The tools refuse a call to a name that is no atom yet (no unknown calls); a database written
  // otherwise (an older version, another program) can hold such callers: planted through the store.
  const refused = await first.call('upsert_atom', util('draw_hud', 'function draw_hud() { return format_score_text(1); }'));
  assert.equal(refused.isError, true, refused.text);
  await first.close();
  const store = await AtomStore.open(first.folder);
  await upsert(store, util('draw_hud', 'function draw_hud() { return format_score_text(1); }') as never);
  await upsert(store, util('hud_layout', 'function hud_layout() { return [format_score_text(2)]; }') as never);
  await upsert(store, util('base_value', 'function base_value() { return later_fn(); }') as never);
  await store.close();
  const s = await open(first.folder);
  try {
    const text = await ok(s, 'upsert_atom', util('format_score_text', 'function format_score_text(n) { return "S" + n; }'));
    assert.match(text.split('\n')[0]!, /^Atom "format_score_text" saved/);
    assert.match(text, /^Linked \(their code calls it\): draw_hud, hud_layout$/m);
    assert.deepEqual(s.workspace.atoms.get('draw_hud')!.dependencies, ['format_score_text']);
    assert.equal(s.workspace.atoms.get('draw_hud')!.version, 2);
    assert.deepEqual(s.workspace.atoms.get('hud_layout')!.dependencies, ['format_score_text']);

    // A caller that the new atom itself depends on cannot be linked: said, not done.
    const cyc = await ok(s, 'upsert_atom', util('later_fn', 'function later_fn() { return 1 + base_value(); }'));
    assert.match(cyc, /^Not linked, fix by hand: base_value \(it would close the cycle base_value -> later_fn -> base_value\)$/m);
    assert.deepEqual(s.workspace.atoms.get('base_value')!.dependencies, []);
  } finally {
    await s.close();
  }
});

test('deleting an atom whose code is called without a declaration is refused, naming the caller', async () => {
  const s = await open();
  try {
    await ok(s, 'upsert_atom', util('format_score_text', 'function format_score_text(n) { return "S" + n; }'));
    await ok(s, 'upsert_atom', util('uses_it', 'function uses_it() { return 1; }', { dependencies: ['format_score_text'] }));
    await ok(s, 'upsert_atom', util('draw_hud', 'function draw_hud() { return 2; }'));
    // Written past the completion (the store's own path), as an older version of the program could have.
    await s.close();
    const store = await AtomStore.open(s.folder);
    await upsert(store, util('draw_hud', 'function draw_hud() { return format_score_text(2); }') as never);
    await store.close();

    const again = await open(s.folder);
    try {
      const r = await again.call('delete_atom', { name: 'format_score_text' });
      assert.equal(r.isError, true);
      assert.equal(r.text.split('\n')[0], 'Error: Cannot delete "format_score_text": used by [draw_hud, uses_it]. Delete or update the dependents first.');
      assert.ok(again.workspace.atoms.has('format_score_text'), 'nothing was deleted');
    } finally {
      await again.close();
    }
  } finally {
    await s.close();
  }
});

test('a build where an atom calls a deleted atom fails, names both, and keeps the previous latest.js', async () => {
  const s = await open();
  const bundlePath = join(s.folder, '.atomic', 'latest.js');
  await ok(s, 'upsert_atom', util('format_score_text', 'function format_score_text(n) { return "S" + n; }'));
  await ok(s, 'upsert_atom', util('draw_hud', 'function draw_hud() { return 2; }'));
  await s.close();
  // An older program's delete: it checked only the declared dependencies.
  let store = await AtomStore.open(s.folder);
  await upsert(store, util('draw_hud', 'function draw_hud() { return format_score_text(2); }') as never);
  await store.close();
  const kept = readFileSync(bundlePath, 'utf8');
  store = await AtomStore.open(s.folder);
  await deleteAtom(store, 'format_score_text');
  await store.close();

  const third = await open(s.folder);
  try {
    const build = await third.workspace.rebuild();
    assert.equal(build.status, 'error');
    assert.match(build.error_message!, /previous latest\.js is kept: .*draw_hud calls format_score_text/);
    assert.equal(readFileSync(bundlePath, 'utf8'), kept, 'latest.js unchanged');
    assert.match(await ok(third, 'get_status', {}), /^Last build: FAILED at .*draw_hud calls format_score_text/m);

    // Fixing the caller makes the build a success again.
    const fixed = await ok(third, 'upsert_atom', util('draw_hud', 'function draw_hud() { return 2; }'));
    assert.match(fixed.split('\n')[0]!, / Rebuild triggered\.$/);
  } finally {
    await third.close();
  }
});

test('an update names the fields it removed; a new atom or an unchanged one says nothing of it', async () => {
  const s = await open();
  try {
    await ok(s, 'upsert_atom', util('physics_config', 'function physics_config() { return 1; }'));
    const full = util('draw_hud', 'function draw_hud(n) { return physics_config() + n; }', {
      description: 'Draws the HUD',
      inputs: [{ name: 'n', type: 'number' }],
      outputs: [{ name: 'score', type: 'number' }],
      dependencies: ['physics_config'],
    });
    assert.doesNotMatch(await ok(s, 'upsert_atom', full), /Removed:/);
    assert.doesNotMatch(await ok(s, 'upsert_atom', full), /Removed:/);
    const text = await ok(s, 'upsert_atom', util('draw_hud', 'function draw_hud() { return 0; }'));
    assert.match(text.split('\n')[0]!, /^Atom "draw_hud" saved/);
    assert.match(text, /^Removed: description, inputs \[n\], outputs \[score\], dependencies \[physics_config\]$/m);
  } finally {
    await s.close();
  }
});

test('declared inputs that disagree with the parameters are warned about, and the atom is saved', async () => {
  const s = await open();
  try {
    const text = await ok(s, 'upsert_atom', util('helper_a', 'function helper_a(x) { return x; }', { inputs: [] }));
    assert.match(text, /^Warning: inputs \[\] do not match the function's parameters \(x\)$/m);
    assert.ok(s.workspace.atoms.has('helper_a'));
    assert.match(
      await ok(s, 'upsert_atom', util('helper_c', 'function helper_c(a, b) { return a + b; }', { inputs: [{ name: 'b', type: 'number' }, { name: 'a', type: 'number' }] })),
      /^Warning: inputs \[b, a\] do not match the function's parameters \(a, b\)$/m,
    );
    // Matching names, or a destructured parameter counted only, give no warning.
    assert.doesNotMatch(await ok(s, 'upsert_atom', util('helper_d', 'function helper_d(x) { return x; }', { inputs: [{ name: 'x', type: 'number' }] })), /Warning/);
    assert.doesNotMatch(await ok(s, 'upsert_atom', util('helper_e', 'function helper_e({ a }) { return a; }', { inputs: [{ name: 'opts', type: 'number' }] })), /Warning/);
  } finally {
    await s.close();
  }
});

test('rename_atom renames an atom and rewrites its callers\' code and dependencies in one change', async () => {
  const s = await open();
  try {
    await ok(s, 'upsert_atom', util('fmt', 'function fmt(n) { return n > 9 ? fmt(n / 10) : String(n); }', { description: 'Formats' }));
    await ok(s, 'upsert_atom', util('draw_hud', 'function draw_hud(o) { return fmt(1) + o.fmt + { fmt }.fmt(2); }'));
    await ok(s, 'upsert_atom', util('shadowing', 'function shadowing() { const fmt = (x) => x; return fmt(1); }'));
    await ok(s, 'upsert_atom', util('declares', 'function declares() { return 1; }', { dependencies: ['fmt'] }));
    const journal = join(s.folder, '.atomic', 'atoms.journal');
    const linesBefore = readFileSync(journal, 'utf8').split('\n').filter(Boolean).length;

    const text = await ok(s, 'rename_atom', { name: 'fmt', new_name: 'format_score_text' });
    assert.equal(text.split('\n')[0], 'Atom "fmt" renamed to "format_score_text" (v1). Updated callers: declares, draw_hud. Rebuild triggered.');
    assert.match(text, /^Renamed from "fmt" \(v1\)/m);

    const atoms = s.workspace.atoms;
    assert.equal(atoms.has('fmt'), false);
    assert.equal(atoms.get('format_score_text')!.code, 'function format_score_text(n) { return n > 9 ? format_score_text(n / 10) : String(n); }');
    assert.equal(atoms.get('format_score_text')!.description, 'Formats');
    assert.equal(atoms.get('draw_hud')!.code, 'function draw_hud(o) { return format_score_text(1) + o.fmt + { fmt: format_score_text }.fmt(2); }');
    assert.deepEqual(atoms.get('draw_hud')!.dependencies, ['format_score_text']);
    assert.deepEqual(atoms.get('declares')!.dependencies, ['format_score_text']);
    assert.equal(atoms.get('shadowing')!.code, 'function shadowing() { const fmt = (x) => x; return fmt(1); }', 'a local of that name is not the atom');
    assert.ok(atoms.history('fmt').length >= 2, 'the old name keeps its history');

    const entries = readFileSync(journal, 'utf8').split('\n').filter(Boolean).slice(linesBefore);
    const writes = entries.filter((l) => /"op":"(put|del)"/.test(l));
    assert.equal(writes.length, 1, 'one journal entry holds the whole rename');
    assert.match(readFileSync(join(s.folder, '.atomic', 'latest.js'), 'utf8'), /format_score_text\(1\)/);
  } finally {
    await s.close();
  }
});

test('a rename that a caller cannot take (over 2 KB, new name taken, declared inside) changes nothing', async () => {
  const s = await open();
  try {
    const filler = 'x'.repeat(2048 - 'function big() { return f() + ""; }'.length);
    await ok(s, 'upsert_atom', util('f', 'function f() { return 1; }'));
    await ok(s, 'upsert_atom', util('big', `function big() { return f() + "${filler}"; }`));
    await ok(s, 'upsert_atom', util('other', 'function other() { return 2; }'));
    const before = JSON.stringify(s.workspace.atoms.all());
    const journal = join(s.folder, '.atomic', 'atoms.journal');
    const journalBefore = readFileSync(journal, 'utf8').split('\n').filter((l) => /"op":"(put|del)"/.test(l)).length;

    const tooBig = await s.call('rename_atom', { name: 'f', new_name: 'format_value' });
    assert.equal(tooBig.isError, true);
    assert.match(tooBig.text, /cannot rename "f" to "format_value": its caller big would be refused: code is 2059 bytes \(limit: 2048\)/);

    const taken = await s.call('rename_atom', { name: 'f', new_name: 'other' });
    assert.equal(taken.isError, true);
    assert.match(taken.text, /an atom named "other" already exists/);

    await ok(s, 'upsert_atom', util('g', 'function g() { return 1; }'));
    await ok(s, 'upsert_atom', util('uses_g', 'function uses_g() { const h = 2; return g() + h; }'));
    const declared = await s.call('rename_atom', { name: 'g', new_name: 'h' });
    assert.equal(declared.isError, true);
    assert.match(declared.text, /uses_g: it declares its own "h"/);

    const bad = await s.call('rename_atom', { name: 'f', new_name: 'Not A Name' });
    assert.equal(bad.isError, true);
    assert.match(bad.text, /new_name "Not A Name" is not snake_case/);

    assert.equal(JSON.stringify(s.workspace.atoms.all().filter((a) => a.name !== 'g' && a.name !== 'uses_g')), before, 'nothing changed');
    const journalAfter = readFileSync(journal, 'utf8').split('\n').filter((l) => /"op":"(put|del)"/.test(l)).length;
    assert.equal(journalAfter, journalBefore + 2, 'only the two upserts were written');
  } finally {
    await s.close();
  }
});

test('a rename reports the descriptions that still name the old atom, and rewrites them in the same change when asked', async () => {
  const s = await open();
  try {
    await ok(s, 'upsert_atom', util('draw_rect', 'function draw_rect() { return 1; }', { description: 'Draws a rectangle; draw_rect_outline is its twin' }));
    await ok(s, 'upsert_atom', util('draw_scene', 'function draw_scene() { return draw_rect(); }', { description: 'Calls draw_rect for each cube' }));
    await ok(s, 'upsert_atom', util('hud_note', 'function hud_note() { return 0; }', { description: 'Unlike draw_rect, draws text.' }));
    const said = await ok(s, 'rename_atom', { name: 'draw_rect', new_name: 'fill_rect' });
    assert.match(said, /^Descriptions that still name "draw_rect": draw_scene, hud_note\. Fix them with upsert_atoms \(or rename with rewrite_descriptions: true to rewrite them in the same change\)\.$/m);
    assert.equal(s.workspace.atoms.get('hud_note')!.description, 'Unlike draw_rect, draws text.', 'reported, not changed');

    const versions = s.workspace.atoms.get('hud_note')!.version;
    const done = await ok(s, 'rename_atom', { name: 'fill_rect', new_name: 'paint_rect', rewrite_descriptions: true });
    assert.doesNotMatch(done, /Descriptions/, 'no description names fill_rect');
    await ok(s, 'upsert_atom', util('hud_note', 'function hud_note() { return 0; }', { description: 'Unlike paint_rect, draws text; paint_rects is another' }));
    const rewritten = await ok(s, 'rename_atom', { name: 'paint_rect', new_name: 'box', rewrite_descriptions: true });
    assert.match(rewritten, /^Descriptions rewritten to name "box": hud_note\.$/m);
    assert.equal(s.workspace.atoms.get('hud_note')!.description, 'Unlike box, draws text; paint_rects is another', 'only the whole word');
    assert.ok(s.workspace.atoms.get('hud_note')!.version > versions);
  } finally {
    await s.close();
  }
});

test('restoring a name that was renamed away says so, and its history says where it went', async () => {
  const s = await open();
  try {
    await ok(s, 'upsert_atom', util('old_name', 'function old_name(n) {\n  return n > 0 ? old_name(n - 1) : 0;\n}'));
    await ok(s, 'upsert_atom', util('user_of', 'function user_of() { return old_name(2); }'));
    await ok(s, 'rename_atom', { name: 'old_name', new_name: 'new_name' });
    assert.match(await ok(s, 'atom_history', { operation: 'list', name: 'old_name' }), /^old_name: 2 versions \(deleted: renamed to "new_name"\)/);
    const restored = await ok(s, 'atom_history', { operation: 'restore', name: 'old_name' });
    assert.match(restored, /^Atom "old_name" restored from v1/);
    assert.match(restored, /^"old_name" had been renamed to "new_name", which still exists \(its callers call it\): this brought back a second atom under the old name\. To undo the rename instead, delete_atom "old_name", then rename_atom "new_name" to "old_name"\.$/m);
    // A plain delete and restore says nothing of a rename.
    await ok(s, 'upsert_atom', util('plain', 'function plain() { return 1; }'));
    await ok(s, 'delete_atom', { name: 'plain' });
    assert.doesNotMatch(await ok(s, 'atom_history', { operation: 'restore', name: 'plain' }), /renamed/);
  } finally {
    await s.close();
  }
});
