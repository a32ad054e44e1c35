/**
 * The checked atoms kept beside atoms.db (`.atomic/atoms.bin`, store/atoms/keptAtoms.ts): an
 * open takes them instead of reading and checking every row, only where they are this database's,
 * and loads exactly what the rows would have loaded: the journal's later entries on top, a row
 * refused at open refused (and reported) at every open, a file from elsewhere never believed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import type { Atom } from '../../src/atoms/model.js';
import { AtomStore, type StoreOptions } from '../../src/store/atomStore.js';
import { encodeKeptAtoms, readKeptAtoms } from '../../src/store/atoms/keptAtoms.js';
import { machineMac } from '../../src/store/checkSeal.js';
import { encodeEntry } from '../../src/store/journal.js';
import { wasmPath } from '../../src/store/sqlite.js';
import type { Logger } from '../../src/util/log.js';
import { cube, gameLoop, mathClamp, physicsConfig, playerJump } from '../support/atoms.js';
import { sealWith } from '../support/snapshotSeal.js';
import { tempDir } from '../support/tmp.js';
import { deleteAtom, upsert, upsertMany } from '../support/storeWrites.js';

const SQL = initSqlJs({ locateFile: () => wasmPath() });

/** A store opened with a logger that keeps every line. */
async function open(dir: string, options: StoreOptions = {}): Promise<{ store: AtomStore; lines: string[] }> {
  const lines: string[] = [];
  const keep = (m: string) => void lines.push(m);
  const log: Logger = { debug: keep, info: keep, warn: keep, error: keep };
  return { store: await AtomStore.open(dir, { log, ...options }), lines };
}

/** What an open loaded: the atoms and their order, and whether it took them from the kept file. */
async function openedState(dir: string): Promise<{ atoms: readonly Atom[]; order: string[] | undefined; kept: boolean; lines: string[]; refused: string[] }> {
  const { store, lines } = await open(dir);
  try {
    return {
      atoms: store.all(),
      order: store.takeOpenOrder(),
      kept: lines.some((l) => / atoms from .*; kept in .*atoms\.bin at entry \d+\)/.test(l)),
      lines,
      refused: store.openReport.refused.map((r) => r.name).sort(),
    };
  } finally {
    await store.close();
  }
}

/** The same open from the rows alone: a copy of the folder without the kept file. */
async function fromRows(dir: string): Promise<{ atoms: readonly Atom[]; order: string[] | undefined }> {
  const copy = tempDir('atomic-kept-rows-');
  cpSync(join(dir, '.atomic'), join(copy, '.atomic'), { recursive: true });
  rmSync(join(copy, '.atomic', 'atoms.bin'));
  const state = await openedState(copy);
  assert.equal(state.kept, false);
  return state;
}

const keptFile = (dir: string) => join(dir, '.atomic', 'atoms.bin');

test('a closed store keeps its atoms, and the next open takes them: the atoms and order the rows give', async () => {
  const dir = tempDir('atomic-kept-');
  const { store } = await open(dir);
  await upsertMany(store, cube.map((a) => (a.name === mathClamp.name ? { ...a, examples: [{ args: [5, 0, 3], returns: 3 }] } : a)));
  await upsert(store, { ...playerJump, description: undefined });
  await store.close();
  assert.ok(existsSync(keptFile(dir)), 'written at close');

  const opened = await openedState(dir);
  assert.ok(opened.kept, opened.lines.join('\n'));
  const rows = await fromRows(dir);
  assert.deepEqual(opened.atoms, rows.atoms);
  assert.deepEqual(opened.order, rows.order);
  assert.deepEqual(opened.atoms.find((a) => a.name === 'math_clamp')?.examples, [{ args: [5, 0, 3], returns: 3 }]);
  assert.equal(opened.atoms.find((a) => a.name === 'player_jump')?.description, null);
});

test('changes after the kept atoms stay in the journal, and an open applies them on top (a crash included)', async () => {
  const dir = tempDir('atomic-kept-journal-');
  const first = await open(dir);
  await upsertMany(first.store, cube);
  await first.store.close(); // the kept atoms: the cube

  // Changes after them, durable in the journal only; the folder copied as a crash would leave it.
  // The kept atoms are this snapshot's already: a change does not write them again (the journal holds it).
  const before = readFileSync(keptFile(dir));
  const { store } = await open(dir);
  await upsert(store, { ...physicsConfig, code: physicsConfig.code.replace('12', '18') });
  await deleteAtom(store, gameLoop.name);
  await upsert(store, { name: 'score_label', type: 'util', code: 'function score_label(n) {\n  return `Score: ${n}`;\n}', inputs: [{ name: 'n', type: 'number' }], outputs: [{ name: 'label', type: 'string' }] });
  const expected = store.all();
  assert.ok(readFileSync(keptFile(dir)).equals(before), 'the kept atoms were not written again');
  const crashed = tempDir('atomic-kept-crash-');
  cpSync(join(dir, '.atomic'), join(crashed, '.atomic'), { recursive: true });
  await store.close();

  const opened = await openedState(crashed);
  assert.ok(opened.kept, opened.lines.join('\n'));
  assert.deepEqual(opened.atoms, expected);
  assert.deepEqual(opened.atoms.map((a) => a.name), ['math_clamp', 'physics_config', 'player_jump', 'score_label']);
  assert.match(opened.atoms.find((a) => a.name === 'physics_config')!.code, /18/);
  const rows = await fromRows(crashed);
  assert.deepEqual(opened.order, rows.order);
});

test('kept atoms of another workspace, damaged, or sealed elsewhere are not used: the rows are', async () => {
  const a = tempDir('atomic-kept-a-');
  const b = tempDir('atomic-kept-b-');
  for (const dir of [a, b]) {
    const { store } = await open(dir);
    await upsertMany(store, dir === a ? cube : [mathClamp]);
    await store.close();
  }
  const expected = (await fromRows(b)).atoms;

  // Another workspace's file: another snapshot's lineage.
  cpSync(keptFile(a), keptFile(b));
  let opened = await openedState(b);
  assert.equal(opened.kept, false);
  assert.ok(opened.lines.some((l) => /atoms\.bin not used: written for another atoms\.db/.test(l)), opened.lines.join('\n'));
  assert.deepEqual(opened.atoms, expected);

  // Its own (rewritten at that close), damaged in the middle of the codes.
  const bytes = readFileSync(keptFile(b));
  bytes[bytes.length - 60]! ^= 0x01;
  writeFileSync(keptFile(b), bytes);
  opened = await openedState(b);
  assert.equal(opened.kept, false);
  assert.ok(opened.lines.some((l) => /atoms\.bin not used: not sealed on this machine \(or damaged\)/.test(l)), opened.lines.join('\n'));
  assert.deepEqual(opened.atoms, expected);

  // What a hostile repository would commit: this database's key, its own atoms, sealed without this machine's secret.
  const file = readKeptAtoms(readFileSync(keptFile(b)), () => Buffer.alloc(0), () => null);
  assert.ok(typeof file !== 'string');
  const planted: Atom = { ...(expected[0] as Atom), code: 'function math_clamp() {\n  globalThis.pwned = true;\n}' };
  writeFileSync(keptFile(b), (await encodeKeptAtoms([planted], file.key, sealWith('the attacker')))!);
  opened = await openedState(b);
  assert.equal(opened.kept, false);
  assert.deepEqual(opened.atoms, expected);
  assert.doesNotMatch(opened.atoms.map((x) => x.code).join('\n'), /pwned/);
});

/** A workspace of the cube, closed (its atoms kept), whose atoms.db another program then changed with `sql`. */
async function cubeChangedOutside(prefix: string, sql: string): Promise<string> {
  const dir = tempDir(prefix);
  const { store } = await open(dir);
  await upsertMany(store, cube);
  await store.close();
  const db = new (await SQL).Database(readFileSync(join(dir, '.atomic', 'atoms.db')));
  db.run(sql);
  writeFileSync(join(dir, '.atomic', 'atoms.db'), db.export());
  db.close();
  return dir;
}

test('a database with a row refused at open is never kept: the refusal is reported at every open', async () => {
  // A row no upsert would write, put in by another program (no seal): refused at open, left in atoms.db.
  const dir = await cubeChangedOutside(
    'atomic-kept-refused-',
    "INSERT INTO atoms (name, type, code, description, inputs, outputs, version, created_at, updated_at) VALUES ('Not-Snake', 'util', 'function x() {}', NULL, '[]', '[]', 1, 'x', 'x')",
  );

  for (let open = 0; open < 3; open++) {
    const opened = await openedState(dir);
    assert.equal(opened.kept, false, `open ${open}`);
    assert.deepEqual(opened.refused, ['Not-Snake'], `open ${open}`);
    assert.deepEqual(opened.atoms.map((a) => a.name), cube.map((a) => a.name).sort());
  }
});

test('an atoms.db another program changed (as many rows as before) is read from its rows: the change is seen', async () => {
  const dir = await cubeChangedOutside('atomic-kept-edited-', "UPDATE atoms SET description = 'edited by hand' WHERE name = 'math_clamp'");

  const opened = await openedState(dir);
  assert.equal(opened.kept, false);
  assert.equal(opened.atoms.find((a) => a.name === 'math_clamp')?.description, 'edited by hand');
  assert.deepEqual(opened.refused, []);
});

test('kept atoms holding a journal entry that is refused now are not used: the rows decide, and the refusal is reported', async () => {
  const dir = tempDir('atomic-kept-refused-entry-');
  const { store } = await open(dir);
  await upsertMany(store, cube);
  await store.close();
  // The file as it would be had it been written after journal entry seq + 1: an update of
  // math_clamp that the check at open refuses (its code past 2 KB), which the rows never take.
  const file = readKeptAtoms(readFileSync(keptFile(dir)), () => Buffer.alloc(0), () => null);
  assert.ok(typeof file !== 'string');
  const { store: reader } = await open(dir);
  const atoms = reader.all();
  await reader.close();
  const seq = file.key.seq + 1;
  const bad: Atom = { ...atoms.find((a) => a.name === 'math_clamp')!, code: `function math_clamp() {\n  return "${'x'.repeat(2100)}";\n}`, version: 2 };
  const fresh = readKeptAtoms(readFileSync(keptFile(dir)), () => Buffer.alloc(0), () => null);
  assert.ok(typeof fresh !== 'string');
  writeFileSync(keptFile(dir), (await encodeKeptAtoms(atoms.map((a) => (a.name === bad.name ? bad : a)), { snapshot: fresh.key.snapshot, seq }, (parts) => machineMac('kept atoms', parts)))!);
  writeFileSync(join(dir, '.atomic', 'atoms.journal'), encodeEntry({ seq, ops: [{ op: 'put', atom: bad }] }));

  const opened = await openedState(dir);
  assert.equal(opened.kept, false, opened.lines.join('\n'));
  assert.ok(opened.lines.some((l) => /atoms\.bin not used: journal entry \d+, which they hold, is refused now/.test(l)), opened.lines.join('\n'));
  assert.deepEqual(opened.refused, ['math_clamp']);
  assert.equal(opened.atoms.find((a) => a.name === 'math_clamp')?.code, mathClamp.code);
});
