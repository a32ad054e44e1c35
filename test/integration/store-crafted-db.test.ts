/**
 * A cloned repository brings its own `.atomic/atoms.db` and journal. Whatever is in them must
 * not reach outside the atoms that pass an upsert's checks: a trigger must not rewrite the code
 * the user saves later, and an invalid atom must not be loaded, bundled, or lost.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs, { type Database } from 'sql.js';
import { createBundle } from '../../src/bundle/bundler.js';
import { bootAtom } from '../../src/atoms/boot.js';
import { formatStatus, workspaceStatus } from '../../src/mcp/tools/getStatus.js';
import { AtomStore } from '../../src/store/atomStore.js';
import { encodeEntry } from '../../src/store/journal.js';
import { wasmPath } from '../../src/store/sqlite.js';
import type { AtomWorkspace } from '../../src/workspace.js';
import { mathClamp, physicsConfig } from '../support/atoms.js';
import { tempDir } from '../support/tmp.js';
import { upsert } from '../support/storeWrites.js';

const SQL = initSqlJs({ locateFile: () => wasmPath() });

const BAD_NAME = 'bad\nINJECTED_BY_NAME();';
const JOURNAL_NAME = 'journal\nINJECTED_BY_JOURNAL();';
const BIG_CODE = `function big_atom() {\n  return "${'x'.repeat(2100)}";\n}`;
const INJECTED_CODE = "'function ' || NEW.name || '() { globalThis.pwned = true; }'";

/** The tables as an attacker writes them: the right names and columns, none of our CHECKs. */
const CRAFTED_SCHEMA = `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE atoms (name TEXT PRIMARY KEY, type TEXT, code TEXT, description TEXT, inputs TEXT, outputs TEXT,
    version INTEGER, created_at TEXT, updated_at TEXT);
  CREATE TABLE atom_dependencies (atom_name TEXT NOT NULL, depends_on TEXT NOT NULL, PRIMARY KEY (atom_name, depends_on));
  CREATE INDEX idx_atom_dependencies_target ON atom_dependencies(depends_on);
  CREATE TABLE atom_versions (name TEXT NOT NULL, version INTEGER NOT NULL, type TEXT NOT NULL, code TEXT NOT NULL,
    description TEXT, inputs TEXT NOT NULL, outputs TEXT NOT NULL, dependencies TEXT NOT NULL, created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL, deleted INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (name, version));
  CREATE TABLE builds (id INTEGER PRIMARY KEY AUTOINCREMENT, status TEXT NOT NULL, bundle_path TEXT, atom_count INTEGER NOT NULL,
    build_log TEXT NOT NULL DEFAULT '[]', error_message TEXT, duration_ms REAL, created_at TEXT NOT NULL);
  CREATE TABLE embeddings (name TEXT PRIMARY KEY, model TEXT NOT NULL, text_hash TEXT NOT NULL, vector BLOB NOT NULL);
  INSERT INTO meta VALUES ('schema_version', '1'), ('journal_seq', '0');

  -- What the store must remove: it rewrites every atom saved after it.
  CREATE TRIGGER inject AFTER INSERT ON atoms BEGIN
    UPDATE atoms SET code = ${INJECTED_CODE} WHERE name = NEW.name;
  END;
  CREATE VIEW peek AS SELECT name FROM atoms;
  CREATE TABLE payload (x TEXT);
  CREATE INDEX payload_x ON payload(x);
`;

const T = '2026-02-08T12:00:00.000Z';

function insertAtom(db: Database, name: string, type: string, code: string, dependencies: string[] = []): void {
  db.run('INSERT INTO atoms VALUES (?, ?, ?, NULL, ?, ?, 1, ?, ?)', [name, type, code, '[]', '[]', T, T]);
  for (const d of dependencies) db.run('INSERT INTO atom_dependencies VALUES (?, ?)', [name, d]);
}

/**
 * A workspace folder whose atoms.db has the crafted schema, with `fill` inserting its rows (the
 * schema's injecting trigger is dropped first, or it would rewrite them too).
 */
async function craftedDatabase(prefix: string, fill: (db: Database) => void): Promise<string> {
  const dir = tempDir(prefix);
  mkdirSync(join(dir, '.atomic'));
  const db = new (await SQL).Database();
  db.run(CRAFTED_SCHEMA);
  db.run('DROP TRIGGER inject');
  fill(db);
  writeFileSync(join(dir, '.atomic', 'atoms.db'), db.export());
  db.close();
  return dir;
}

/** A workspace as a hostile repository would ship it. */
async function craftedWorkspace(): Promise<string> {
  const dir = await craftedDatabase('atomic-crafted-', (db) => {
    insertAtom(db, mathClamp.name, mathClamp.type, mathClamp.code);
    insertAtom(db, BAD_NAME, 'util', 'function bad() {}');
    insertAtom(db, 'big_atom', 'util', BIG_CODE);
    insertAtom(db, 'broken_atom', 'util', 'function broken_atom( {');
    insertAtom(db, 'uses_big', 'util', 'function uses_big() { return big_atom(); }', ['big_atom']);
    // Back for whatever the store inserts later.
    db.run(`CREATE TRIGGER inject AFTER INSERT ON atoms BEGIN UPDATE atoms SET code = ${INJECTED_CODE} WHERE name = NEW.name; END;`);
  });
  // A journal entry with a valid checksum (anyone can compute one) writing an atom no upsert takes.
  const atom = { name: JOURNAL_NAME, type: 'util', code: 'function journal() {}', inputs: [], outputs: [], dependencies: [], description: null, version: 1, created_at: T, updated_at: T };
  writeFileSync(join(dir, '.atomic', 'atoms.journal'), encodeEntry({ seq: 1, ops: [{ op: 'put', atom: atom as never }] }));
  return dir;
}

/** The snapshot on disk, read past the store. */
async function onDisk(dir: string): Promise<{ objects: string[]; rows: Map<string, string> }> {
  const db = new (await SQL).Database(readFileSync(join(dir, '.atomic', 'atoms.db')));
  try {
    const objects = (db.exec("SELECT type || ' ' || name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")[0]?.values ?? []).map((r) => String(r[0]));
    const rows = new Map((db.exec('SELECT name, code FROM atoms')[0]?.values ?? []).map((r) => [String(r[0]), String(r[1])]));
    return { objects, rows };
  } finally {
    db.close();
  }
}

function statusText(store: AtomStore): string {
  const workspace = {
    atoms: store,
    search: { pendingEmbeddings: 0 },
    embeddings: { modelId: 'test-model' },
    bootAtom: () => bootAtom(store.all()),
    verification: { summary: () => ({ examples: 0, tests: 0, failing: [], pending: 0 }) },
  } as unknown as AtomWorkspace;
  return formatStatus(workspaceStatus(workspace, '0.0.0', 0));
}

test('a crafted atoms.db: its trigger, view, table and index are removed, and a later upsert stays as written after a restart', async () => {
  const dir = await craftedWorkspace();
  let store = await AtomStore.open(dir);
  assert.deepEqual(
    store.openReport.removed.map((o) => `${o.type} ${o.name}`).sort(),
    ['index payload_x', 'table payload', 'trigger inject', 'view peek'],
  );
  await upsert(store, physicsConfig);
  assert.equal(store.get('physics_config')!.code, physicsConfig.code);
  await store.close();

  const disk = await onDisk(dir);
  assert.deepEqual(disk.objects.filter((o) => /inject|peek|payload/.test(o)), [], 'the snapshot written at close has none of them');
  assert.equal(disk.rows.get('physics_config'), physicsConfig.code, 'the row holds the code as upserted');

  store = await AtomStore.open(dir);
  assert.equal(store.get('physics_config')!.code, physicsConfig.code, 'no injected code after a restart');
  assert.doesNotMatch(store.all().map((a) => a.code).join('\n'), /pwned/);
  assert.deepEqual(store.openReport.removed, []);
  await store.close();
});

test('atoms that fail an upsert\'s checks are refused at open, reported, kept in atoms.db as they were, and never bundled', async () => {
  const dir = await craftedWorkspace();
  let store = await AtomStore.open(dir);
  assert.deepEqual(store.all().map((a) => a.name), ['math_clamp'], 'only the valid atom is loaded');
  const refused = new Map(store.openReport.refused.map((r) => [r.name, r]));
  assert.deepEqual([...refused.keys()].sort(), ['bad\nINJECTED_BY_NAME();', 'big_atom', 'broken_atom', JOURNAL_NAME, 'uses_big'].sort());
  assert.match(refused.get(BAD_NAME)!.reason, /is not snake_case/);
  assert.match(refused.get('big_atom')!.reason, /code is \d+ bytes \(limit: 2048\)/);
  assert.match(refused.get('broken_atom')!.reason, /code does not parse as JavaScript/);
  assert.match(refused.get('uses_big')!.reason, /depends on big_atom, which is not loaded/);
  assert.equal(refused.get(JOURNAL_NAME)!.source, 'journal');
  assert.equal(refused.get(BAD_NAME)!.source, 'database');

  const bundle = createBundle(store.all()).code;
  assert.deepEqual(bundle.split('\n').filter((l) => /INJECTED/.test(l)), [], 'no line of the bundle comes from a refused name');

  const status = statusText(store);
  assert.match(status, /^5 atoms refused at open: .*"bad\\nINJECTED_BY_NAME\(\);" \(name .* is not snake_case/m);
  assert.match(status, /^Removed at open, not part of the Atomic Coding schema: trigger "inject"/m);
  assert.deepEqual(status.split('\n').filter((l) => /^INJECTED/.test(l)), [], 'no line of get_status starts with a refused name');

  // A refused row is kept as it was (close compacts the replayed journal into the snapshot).
  await store.close();
  const disk = await onDisk(dir);
  assert.equal(disk.rows.get('big_atom'), BIG_CODE);
  assert.equal(disk.rows.get(BAD_NAME), 'function bad() {}');
  assert.equal(disk.rows.has(JOURNAL_NAME), false, 'a refused journal entry is never applied');

  // Still refused after a restart; an upsert under a refused name replaces it.
  store = await AtomStore.open(dir);
  assert.deepEqual(store.all().map((a) => a.name), ['math_clamp']);
  assert.deepEqual(store.openReport.refused.map((r) => r.name).sort(), [BAD_NAME, 'big_atom', 'broken_atom', 'uses_big'].sort());
  await upsert(store, { name: 'big_atom', type: 'util', code: 'function big_atom() { return 1; }' });
  await store.close();
  store = await AtomStore.open(dir);
  assert.deepEqual(store.all().map((a) => a.name), ['big_atom', 'math_clamp', 'uses_big'], 'uses_big loads once its dependency is valid');
  assert.deepEqual(store.openReport.refused.map((r) => r.name).sort(), [BAD_NAME, 'broken_atom'].sort());
  await store.close();
});

test('atoms on a dependency cycle in a crafted atoms.db are refused at open, with the atoms they lead to; the rest load', async () => {
  const dir = await craftedDatabase('atomic-crafted-cycle-', (db) => {
    insertAtom(db, mathClamp.name, mathClamp.type, mathClamp.code);
    insertAtom(db, 'ping_atom', 'util', 'function ping_atom() { return pong_atom(); }', ['pong_atom']);
    insertAtom(db, 'pong_atom', 'util', 'function pong_atom() { return ping_atom(); }', ['ping_atom']);
    insertAtom(db, 'uses_ping', 'util', 'function uses_ping() { return ping_atom(); }', ['ping_atom']);
  });
  const store = await AtomStore.open(dir);
  try {
    assert.deepEqual(store.all().map((a) => a.name), ['math_clamp']);
    const refused = new Map(store.openReport.refused.map((r) => [r.name, r.reason]));
    assert.deepEqual([...refused.keys()].sort(), ['ping_atom', 'pong_atom', 'uses_ping']);
    for (const reason of refused.values()) assert.match(reason, /is on a dependency cycle, or depends on an atom on one/);
  } finally {
    await store.close();
  }
});
