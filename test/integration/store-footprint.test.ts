/**
 * The store's size (issue 15): schema 2 keeps each version once (the current one is the atoms
 * row), vectors as binary16, 8 KiB pages; schema 3 keeps the vectors in vectors.bin, not the database; and a seal per row this program checked, so an open
 * does not parse every atom again. A database of schema 1 is migrated without losing a version;
 * history reads as it did; a row not sealed by this machine's secret is still checked in full.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs, { type Database } from 'sql.js';
import { AtomStore } from '../../src/store/atomStore.js';
import { seal } from '../../src/store/checkSeal.js';
import { wasmPath } from '../../src/store/sqlite.js';
import { SCHEMA_VERSION } from '../../src/store/schema.js';
import { mathClamp, physicsConfig, playerJump } from '../support/atoms.js';
import { tempDir } from '../support/tmp.js';
import { deleteAtom, upsert } from '../support/storeWrites.js';

// This machine's secret for these tests: a folder of their own, outside every workspace.
process.env.ATOMIC_CODING_CACHE_DIR = tempDir('atomic-seal-key-');

const SQL = initSqlJs({ locateFile: () => wasmPath() });
const T1 = '2026-01-01T00:00:00.000Z';
const T2 = '2026-01-02T00:00:00.000Z';
const T3 = '2026-01-03T00:00:00.000Z';

/** The tables and rows schema 1 wrote: every version in atom_versions, the current one too; float32 vectors; 4 KiB pages. */
const SCHEMA_1 = `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE atoms (name TEXT PRIMARY KEY, type TEXT NOT NULL CHECK (type IN ('core', 'feature', 'util')),
    code TEXT NOT NULL CHECK (length(CAST(code AS BLOB)) <= 2048), description TEXT, inputs TEXT NOT NULL DEFAULT '[]',
    outputs TEXT NOT NULL DEFAULT '[]', version INTEGER NOT NULL CHECK (version >= 1), created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
  CREATE TABLE atom_dependencies (atom_name TEXT NOT NULL REFERENCES atoms(name) ON DELETE CASCADE,
    depends_on TEXT NOT NULL REFERENCES atoms(name) ON DELETE RESTRICT, PRIMARY KEY (atom_name, depends_on));
  CREATE INDEX idx_atom_dependencies_target ON atom_dependencies(depends_on);
  CREATE TABLE atom_versions (name TEXT NOT NULL, version INTEGER NOT NULL, type TEXT NOT NULL, code TEXT NOT NULL,
    description TEXT, inputs TEXT NOT NULL, outputs TEXT NOT NULL, dependencies TEXT NOT NULL, created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL, deleted INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (name, version));
  CREATE TABLE builds (id INTEGER PRIMARY KEY AUTOINCREMENT, status TEXT NOT NULL CHECK (status IN ('building', 'success', 'error')),
    bundle_path TEXT, atom_count INTEGER NOT NULL, build_log TEXT NOT NULL DEFAULT '[]', error_message TEXT, duration_ms REAL,
    created_at TEXT NOT NULL);
  CREATE TABLE embeddings (name TEXT PRIMARY KEY, model TEXT NOT NULL, text_hash TEXT NOT NULL, vector BLOB NOT NULL);
  INSERT INTO meta VALUES ('schema_version', '1'), ('journal_seq', '0');
`;

const CLAMP_V1 = 'function math_clamp(value, min, max) {\n  return value;\n}';
const GONE_CODE = 'function old_helper() {\n  return 1;\n}';

function version(db: Database, name: string, v: number, code: string, deps: string[], created: string, updated: string, deleted = 0): void {
  db.run('INSERT INTO atom_versions VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?)', [name, v, 'util', code, '[]', '[]', JSON.stringify(deps), created, updated, deleted]);
}

/** A workspace as schema 1 left it: math_clamp at version 2 (1 superseded), physics_config at 1, old_helper deleted (1, tombstone 2). */
async function schema1Workspace(): Promise<string> {
  const dir = tempDir('atomic-schema1-');
  mkdirSync(join(dir, '.atomic'));
  const db = new (await SQL).Database();
  db.run('PRAGMA page_size = 4096');
  db.run(SCHEMA_1);
  db.run('INSERT INTO atoms VALUES (?, ?, ?, ?, ?, ?, 2, ?, ?)', ['math_clamp', 'util', mathClamp.code, null, '[]', '[]', T1, T2]);
  db.run('INSERT INTO atoms VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)', ['physics_config', 'util', physicsConfig.code, null, '[]', '[]', T1, T1]);
  db.run("INSERT INTO atom_dependencies VALUES ('math_clamp', 'physics_config')");
  version(db, 'math_clamp', 1, CLAMP_V1, [], T1, T1);
  version(db, 'math_clamp', 2, mathClamp.code, ['physics_config'], T1, T2);
  version(db, 'physics_config', 1, physicsConfig.code, [], T1, T1);
  version(db, 'old_helper', 1, GONE_CODE, [], T1, T1);
  version(db, 'old_helper', 2, GONE_CODE, [], T1, T3, 1);
  const vector = new Float32Array([0.5, -0.25, 0.125, 1 / 3]);
  db.run("INSERT INTO embeddings VALUES ('math_clamp', 'm', 'h', ?)", [new Uint8Array(vector.buffer)]);
  writeFileSync(join(dir, '.atomic', 'atoms.db'), db.export());
  db.close();
  return dir;
}

async function onDisk<T>(dir: string, read: (db: Database) => T): Promise<T> {
  const db = new (await SQL).Database(readFileSync(join(dir, '.atomic', 'atoms.db')));
  try {
    return read(db);
  } finally {
    db.close();
  }
}

const all = (db: Database, sql: string) => db.exec(sql)[0]?.values ?? [];

test('a schema 1 database is migrated: every version kept, the current one no longer copied, vectors as binary16 in vectors.bin, 8 KiB pages', async () => {
  const dir = await schema1Workspace();
  const store = await AtomStore.open(dir);
  const history = store.history('math_clamp');
  assert.deepEqual(
    history.map((v) => [v.version, v.code, v.dependencies, v.deleted]),
    [
      [2, mathClamp.code, ['physics_config'], false],
      [1, CLAMP_V1, [], false],
    ],
  );
  assert.deepEqual(store.history('old_helper').map((v) => [v.version, v.deleted, v.updated_at]), [[2, true, T3], [1, false, T1]]);
  assert.deepEqual(store.deletedAtoms(), [{ name: 'old_helper', version: 2, deleted_at: T3 }]);
  const read = store.getEmbedding('math_clamp')!.vector;
  assert.deepEqual([...read], [0.5, -0.25, 0.125, 0.333251953125], 'binary16 keeps about 1 part in 2,000');
  // Where the runtime has Float16Array (Node 24), a vector read back is held at two bytes a value.
  assert.equal(read.BYTES_PER_ELEMENT, typeof Float16Array === 'function' ? 2 : 4);
  await store.close(); // the migration is written by the snapshot at close

  const disk = await onDisk(dir, (db) => ({
    schema: all(db, "SELECT value FROM meta WHERE key = 'schema_version'")[0]![0],
    pageSize: all(db, 'PRAGMA page_size')[0]![0],
    versions: all(db, 'SELECT name, version, deleted FROM atom_versions ORDER BY name, version'),
    vectorsInDatabase: all(db, 'SELECT count(*) FROM embeddings')[0]![0],
    slots: all(db, 'SELECT name, model, text_hash, slot FROM embedding_slots'),
    seals: all(db, 'SELECT name FROM atom_checks ORDER BY name').map((r) => r[0]),
  }));
  assert.equal(disk.schema, String(SCHEMA_VERSION));
  assert.equal(disk.pageSize, 8192);
  assert.deepEqual(disk.versions, [['math_clamp', 1, 0], ['old_helper', 1, 0], ['old_helper', 2, 1]], 'current versions are the atoms rows');
  assert.equal(disk.vectorsInDatabase, 0, 'the vectors left the database');
  assert.deepEqual(disk.slots, [['math_clamp', 'm', 'h', 0]]);
  assert.equal(readFileSync(join(dir, '.atomic', 'vectors.bin')).length, 16 + 16 + 8, 'a header, and one slot: its hash, four values of two bytes');
  assert.deepEqual(disk.seals, ['math_clamp', 'physics_config'], 'rows checked in full at open are sealed');

  const again = await AtomStore.open(dir);
  assert.deepEqual(again.history('math_clamp'), history, 'history reads the same after the migration was written');
  assert.deepEqual([...again.getEmbedding('math_clamp')!.vector], [0.5, -0.25, 0.125, 0.333251953125]);
  await again.close();
});

test('history after updates, a delete and a re-creation reads as before, with each version stored once', async () => {
  const dir = tempDir();
  let store = await AtomStore.open(dir);
  await upsert(store, physicsConfig);
  await upsert(store, { ...physicsConfig, description: 'second' });
  await deleteAtom(store, 'physics_config');
  await upsert(store, { ...physicsConfig, description: 'fourth' });
  await upsert(store, mathClamp);
  const expected = [
    [4, 'fourth', false],
    [3, 'second', true],
    [2, 'second', false],
    [1, physicsConfig.description, false],
  ];
  const shape = (s: AtomStore) => s.history('physics_config').map((v) => [v.version, v.description, v.deleted]);
  assert.deepEqual(shape(store), expected);
  assert.deepEqual(store.deletedAtoms(), [], 'a re-created atom is not listed as deleted');
  await deleteAtom(store, 'math_clamp');
  assert.deepEqual(store.deletedAtoms().map((d) => [d.name, d.version]), [['math_clamp', 2]]);
  assert.deepEqual(store.history('math_clamp').map((v) => [v.version, v.deleted, v.code]), [[2, true, mathClamp.code], [1, false, mathClamp.code]]);
  await store.close();

  const versions = await onDisk(dir, (db) => all(db, 'SELECT name, version, deleted FROM atom_versions ORDER BY name, version'));
  assert.deepEqual(versions, [['math_clamp', 1, 0], ['math_clamp', 2, 1], ['physics_config', 1, 0], ['physics_config', 2, 0], ['physics_config', 3, 1]], 'no copy of version 4: it is the atoms row');

  store = await AtomStore.open(dir);
  assert.deepEqual(shape(store), expected);
  const next = await upsert(store, { ...physicsConfig, description: 'fifth' });
  assert.equal(next.atom.version, 5);
  await store.close();
});

test('a row sealed by this machine loads without its code being parsed again; a row edited outside, or sealed with another secret, is checked in full', async () => {
  const dir = tempDir();
  let store = await AtomStore.open(dir);
  await upsert(store, physicsConfig);
  await upsert(store, playerJump);
  await upsert(store, mathClamp);
  await store.close();

  const broken = 'function math_clamp( {';
  const row = (name: string, code: string, description: string | null, inputs: string, outputs: string, deps: string[]) => ({
    name, type: 'util', code, description, inputs, outputs, version: 1, created_at: '', updated_at: '', dependencies: deps, examples: null,
  });
  await onDisk(dir, (db) => {
    const [created, updated, inputs, outputs, description] = all(db, "SELECT created_at, updated_at, inputs, outputs, description FROM atoms WHERE name = 'math_clamp'")[0] as string[];
    // As if this program had checked it: the seal made with this machine's secret.
    const good = seal({ ...row('math_clamp', broken, description!, inputs!, outputs!, []), created_at: created!, updated_at: updated! });
    db.run("UPDATE atoms SET code = ? WHERE name = 'math_clamp'", [broken]);
    db.run("UPDATE atom_checks SET seal = ? WHERE name = 'math_clamp'", [good]);
    // Edited outside: its seal no longer matches.
    db.run("UPDATE atoms SET code = 'function physics_config( {' WHERE name = 'physics_config'");
    // A seal made with a secret that is not this machine's: it never matches.
    db.run("UPDATE atoms SET code = 'function player_jump( {' WHERE name = 'player_jump'");
    db.run("UPDATE atom_checks SET seal = 'forged' WHERE name = 'player_jump'");
    writeFileSync(join(dir, '.atomic', 'atoms.db'), db.export());
  });

  store = await AtomStore.open(dir);
  assert.equal(store.get('math_clamp')?.code, broken, 'the sealed row was not parsed again');
  const refused = new Map(store.openReport.refused.map((r) => [r.name, r.reason]));
  assert.deepEqual([...refused.keys()].sort(), ['physics_config', 'player_jump']);
  assert.match(refused.get('physics_config')!, /^code does not parse as JavaScript/);
  assert.match(refused.get('player_jump')!, /^code does not parse as JavaScript/);
  await store.close();
});

test('builds keep only the newest order, once, and it survives the builds that held it being dropped', async () => {
  const dir = tempDir();
  const store = await AtomStore.open(dir);
  await upsert(store, physicsConfig);
  const record = (order: string[]) => ({
    status: 'success' as const, bundle_path: 'latest.js', atom_count: order.length, order, error_message: null, duration_ms: 1, created_at: T1,
  });
  const first = ['physics_config', 'math_clamp'];
  const second = ['math_clamp', 'physics_config'];
  const third = ['math_clamp', 'physics_config', 'z_helper'];
  await store.recordBuild(record(first));
  for (let i = 0; i < 60; i++) await store.recordBuild(record([...first]));
  // Every created atom changes the order: only the newest is kept.
  await store.recordBuild(record(second));
  await store.recordBuild(record(third));
  await store.recordBuild(record(second));
  for (let i = 0; i < 60; i++) await store.recordBuild(record([...second]));
  assert.deepEqual(store.lastBuild()?.order, second);
  await store.close();

  const orders = async () => {
    const rows = await onDisk(dir, (db) => all(db, 'SELECT id, build_log FROM builds ORDER BY id'));
    return { rows, kept: rows.filter((r) => r[1] !== '=' && r[1] !== '[]').map((r) => JSON.parse(r[1] as string)) };
  };
  let { rows, kept } = await orders();
  assert.equal(rows.length, 100, 'the newest 100 builds are kept');
  assert.deepEqual(kept, [second], 'one order is stored: the newest');

  // More than 100 builds since the order last changed: the build holding it is dropped, and the
  // oldest build kept takes the order first.
  const reopened = await AtomStore.open(dir);
  assert.deepEqual(reopened.lastBuild()?.order, second);
  for (let i = 0; i < 100; i++) await reopened.recordBuild(record([...second]));
  await reopened.close();
  ({ rows, kept } = await orders());
  assert.deepEqual(kept, [second]);
  assert.notEqual(rows[0]![1], '=', 'the oldest build kept holds the order');
  const again = await AtomStore.open(dir);
  assert.deepEqual(again.lastBuild()?.order, second);
  await again.close();
});
