/**
 * Build records in the journal: an order equal to the previous build's is not written again, a
 * new order is written as its change from the previous one, and replaying the journal (after a
 * crash, before any compaction) restores it in full; the snapshot holds the whole order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { AtomStore } from '../../src/store/atomStore.js';
import type { BuildRecord } from '../../src/store/builds.js';
import { encodeEntry } from '../../src/store/journal.js';
import { wasmPath } from '../../src/store/sqlite.js';
import { cube } from '../support/atoms.js';
import { tempDir } from '../support/tmp.js';
import { upsert } from '../support/storeWrites.js';

function build(order: string[], status: BuildRecord['status'] = 'success'): BuildRecord {
  return { status, bundle_path: 'latest.js', atom_count: order.length, order, error_message: null, duration_ms: 1, created_at: new Date().toISOString() };
}

test('an unchanged order is journaled once and replayed in full', async () => {
  const dir = tempDir();
  const writer = await AtomStore.open(dir, { compactAfterEntries: 1_000_000 });
  for (const d of cube) await upsert(writer, d);
  const order = ['math_clamp', 'physics_config', 'player_jump', 'game_loop'];
  await writer.recordBuild(build(order));
  await writer.recordBuild(build([...order]));
  await writer.recordBuild(build([...order]));
  assert.deepEqual(writer.lastBuild()?.order, order);

  const lines = readFileSync(writer.journalFile, 'utf8').trim().split('\n');
  const builds = lines.filter((l) => l.includes('"op":"build"'));
  assert.equal(builds.length, 3);
  assert.equal(builds.filter((l) => l.includes('"sameOrder":true')).length, 2);
  assert.ok(!builds[2]!.includes('player_jump'), 'the repeated order is not written again');

  // A second store replays the journal as a restart after a crash would (no compaction yet).
  const replayed = await AtomStore.open(dir, { noLock: true, compactAfterEntries: 1_000_000 });
  assert.deepEqual(replayed.lastBuild()?.order, order);
  assert.equal(replayed.lastBuild()?.atom_count, 4);
  // Closing compacts into atoms.db; the writer sees that as an outside change and reloads first.
  await replayed.close();

  // A different order is written out again.
  const reordered = [...order].reverse();
  await writer.recordBuild(build(reordered));
  assert.deepEqual(writer.lastBuild()?.order, reordered);
  await writer.close();
  const reopened = await AtomStore.open(dir);
  assert.deepEqual(reopened.lastBuild()?.order, reordered);
  await reopened.close();
});

test('a new order is journaled as its change, replayed in full, and written whole into the snapshot', async () => {
  const dir = tempDir();
  const writer = await AtomStore.open(dir, { compactAfterEntries: 1_000_000 });
  for (const d of cube) await upsert(writer, d);
  let order = Array.from({ length: 200 }, (_, i) => `generated_atom_${String(i).padStart(3, '0')}`);
  await writer.recordBuild(build(order));
  // Atoms created one at a time: each build's order is the last one with a name put in.
  for (let i = 0; i < 5; i++) {
    order = [...order.slice(0, 50 + i * 20), `fresh_atom_${i}`, ...order.slice(50 + i * 20)];
    await writer.recordBuild(build(order));
    // The builder's own list, not the previous one changed: its names are the atoms' own strings, so the
    // next build compares them by identity (the previous list's came from the database at open).
    assert.equal(writer.lastBuild()?.order, order, 'the last build keeps the order it was given');
  }
  assert.deepEqual(writer.lastBuild()?.order, order);
  const lines = readFileSync(writer.journalFile, 'utf8').trim().split('\n').filter((l) => l.includes('"op":"build"'));
  assert.equal(lines.length, 6);
  assert.ok(lines[0]!.includes('generated_atom_199'), 'the first order is written whole');
  for (const line of lines.slice(1)) {
    assert.ok(line.includes('"change"') && !line.includes('generated_atom_199'), `a change, not the order: ${line.slice(0, 120)}`);
    assert.ok(line.length < 600, `${line.length} bytes`);
  }

  // A restart after a crash replays the changes onto the first order.
  const replayed = await AtomStore.open(dir, { noLock: true, compactAfterEntries: 1_000_000 });
  assert.deepEqual(replayed.lastBuild()?.order, order);
  replayed.dispose();
  // The snapshot written at close holds the newest order whole, in the newest build's row.
  await writer.close();
  const SQL = await initSqlJs({ locateFile: () => wasmPath() });
  const db = new SQL.Database(readFileSync(join(dir, '.atomic', 'atoms.db')));
  const logs = db.exec('SELECT build_log FROM builds ORDER BY id')[0]!.values.map((r) => r[0] as string);
  db.close();
  assert.deepEqual(JSON.parse(logs.at(-1)!), order);
  assert.ok(logs.slice(0, -1).every((l) => l === '[]'), 'the builds before it keep no order');
  const reopened = await AtomStore.open(dir);
  assert.deepEqual(reopened.lastBuild()?.order, order);
  await reopened.close();
});

test('a journaled order change that does not fit leaves the order unknown, and the next build writes it whole', async () => {
  const dir = tempDir();
  const store = await AtomStore.open(dir);
  await upsert(store, cube[0]!);
  const order = ['a_atom', 'b_atom', 'c_atom', 'd_atom'];
  await store.recordBuild(build(order));
  await store.close();
  // A clone's journal is input: an order that is no list of names, then a change made from another
  // order (from: 9), with valid checksums.
  const journal = join(dir, '.atomic', 'atoms.journal');
  appendFileSync(journal, encodeEntry({ seq: 999, ops: [{ op: 'build', build: { ...build([]), order: 'a_atom' as never } }] }));
  const change = { from: 9, at: 2, removed: 1, added: ['x_atom'] };
  appendFileSync(journal, encodeEntry({ seq: 1_000, ops: [{ op: 'build', build: { ...build([]), atom_count: 4 }, change }] }));
  const opened = await AtomStore.open(dir);
  assert.deepEqual(opened.lastBuild()?.order, [], 'unknown, and the open went on');
  assert.equal(opened.lastBuild()?.atom_count, 4);
  await opened.recordBuild(build(order));
  const lines = readFileSync(opened.journalFile, 'utf8').trim().split('\n');
  assert.ok(lines.at(-1)!.includes('"d_atom"') && !lines.at(-1)!.includes('"change"'), 'written whole after an unknown order');
  assert.deepEqual(opened.lastBuild()?.order, order);
  await opened.close();
  const again = await AtomStore.open(dir);
  assert.deepEqual(again.lastBuild()?.order, order);
  await again.close();
});

test("the builder's word on how the order changed is taken only for the very list it changed, and only when it fits", async () => {
  const dir = tempDir();
  const writer = await AtomStore.open(dir, { compactAfterEntries: 1_000_000 });
  for (const d of cube) await upsert(writer, d);
  const first = Object.freeze(['a_atom', 'b_atom', 'c_atom', 'd_atom']);
  await writer.recordBuild(build([...first]));
  const base = writer.lastBuild()!.order;
  // Taken: the last record's list, one name put in at 2 (said the long way round, as comparing would
  // never say it, so the journal shows whose change it is).
  const second = Object.freeze(['a_atom', 'b_atom', 'x_atom', 'c_atom', 'd_atom']);
  await writer.recordBuild(build([...second]), { base, change: { from: 4, at: 1, removed: 1, added: ['b_atom', 'x_atom'] } });
  assert.deepEqual(writer.lastBuild()?.order, second);
  // Not taken: another list with the same names (then the lists are compared), or a change that does
  // not give the new order's length (then too); the order recorded is right either way.
  const third = ['a_atom', 'x_atom', 'c_atom', 'd_atom'];
  await writer.recordBuild(build(third), { base: [...writer.lastBuild()!.order], change: { from: 5, at: 0, removed: 5, added: [] } });
  assert.deepEqual(writer.lastBuild()?.order, third);
  const fourth = ['a_atom', 'x_atom', 'd_atom'];
  await writer.recordBuild(build(fourth), { base: writer.lastBuild()!.order, change: { from: 4, at: 0, removed: 1, added: ['zzz', 'yyy'] } });
  assert.deepEqual(writer.lastBuild()?.order, fourth);
  const changes = readFileSync(writer.journalFile, 'utf8')
    .trim()
    .split('\n')
    .filter((l) => l.includes('"op":"build"'))
    .slice(1)
    .map((l) => /"change":(\{[^}]*\})/.exec(l)?.[1]);
  assert.deepEqual(changes, [
    JSON.stringify({ from: 4, at: 1, removed: 1, added: ['b_atom', 'x_atom'] }),
    JSON.stringify({ from: 5, at: 1, removed: 1, added: [] }),
    JSON.stringify({ from: 4, at: 2, removed: 1, added: [] }),
  ]);
  // Replayed after a crash, the changes give the same order.
  const replayed = await AtomStore.open(dir, { noLock: true, compactAfterEntries: 1_000_000 });
  assert.deepEqual(replayed.lastBuild()?.order, fourth);
  replayed.dispose();
  await writer.close();
});
