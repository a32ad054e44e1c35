import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { machineSeal } from '../../src/store/checkSeal.js';
import { AtomStore } from '../../src/store/atomStore.js';
import { WorkspaceLockedError } from '../../src/store/lock.js';
import { wasmPath } from '../../src/store/sqlite.js';
import { cube, mathClamp, physicsConfig, playerJump } from '../support/atoms.js';
import { tempDir } from '../support/tmp.js';
import { deleteAtom, upsert, upsertMany } from '../support/storeWrites.js';

function snapshotFiles(store: AtomStore): string {
  const read = (f: string) => {
    try {
      return readFileSync(f).toString('base64');
    } catch {
      return '<none>';
    }
  };
  return read(store.dbFile) + '|' + read(store.journalFile);
}

test('atoms survive a reopen, from the journal and after compaction', async () => {
  const dir = tempDir();
  let store = await AtomStore.open(dir);
  for (const d of cube) await upsert(store, d);
  assert.equal(store.size, 4);
  // No close(): simulate a crash by dropping the store; the lock's pid is ours, so reopening takes it over.
  store = await AtomStore.open(dir);
  assert.deepEqual(store.all().map((a) => a.name), ['game_loop', 'math_clamp', 'physics_config', 'player_jump']);
  assert.deepEqual(store.get('game_loop')!.dependencies, ['math_clamp', 'player_jump']);
  assert.equal(store.edges, 3);
  await store.close();
  assert.equal(statSync(store.journalFile).size, 0, 'a clean close compacts the journal into the snapshot');
  store = await AtomStore.open(dir);
  assert.equal(store.size, 4);
  await store.close();
});

test('versions start at 1, go up by one per change, keep created_at, and history keeps every version', async () => {
  const store = await AtomStore.open(tempDir());
  const v1 = (await upsert(store, mathClamp)).atom;
  assert.equal(v1.version, 1);
  const same = await upsert(store, mathClamp);
  assert.equal(same.atom.version, 1, 'an identical upsert is not a new version');
  await new Promise((r) => setTimeout(r, 5));
  const v2 = (await upsert(store, { ...mathClamp, description: 'Clamp a value' })).atom;
  assert.equal(v2.version, 2);
  assert.equal(v2.created_at, v1.created_at);
  assert.notEqual(v2.updated_at, v1.updated_at);
  assert.deepEqual(store.history('math_clamp').map((v) => [v.version, v.description, v.deleted]), [
    [2, 'Clamp a value', false],
    [1, 'Clamp a number between min and max', false],
  ]);
  await store.close();
});

test('delete leaves a tombstone; re-creating continues the version numbers', async () => {
  const store = await AtomStore.open(tempDir());
  await upsert(store, mathClamp);
  await deleteAtom(store, 'math_clamp');
  assert.equal(store.get('math_clamp'), undefined);
  assert.deepEqual(store.deletedAtoms().map((d) => [d.name, d.version]), [['math_clamp', 2]]);
  const tomb = store.history('math_clamp')[0]!;
  assert.equal(tomb.deleted, true);
  assert.equal(tomb.code, mathClamp.code, 'the tombstone keeps the code so the atom can be restored');
  assert.equal((await upsert(store, mathClamp)).atom.version, 3);
  assert.deepEqual(store.deletedAtoms(), []);
  await store.close();
});

test('delete is refused while atoms depend on it, with the contract text', async () => {
  const store = await AtomStore.open(tempDir());
  for (const d of cube) await upsert(store, d);
  await assert.rejects(deleteAtom(store, 'physics_config'), /^AtomError: Cannot delete "physics_config": used by \[player_jump\]/);
  await assert.rejects(deleteAtom(store, 'nope'), /Atom "nope" not found/);
  assert.equal(store.size, 4);
  await store.close();
});

test('refused input changes nothing on disk', async () => {
  const store = await AtomStore.open(tempDir());
  await upsert(store, physicsConfig);
  await store.compact();
  const before = snapshotFiles(store);
  const refusals = [
    upsert(store, { ...playerJump, dependencies: ['physics_config', 'missing_one'] }),
    upsert(store, { ...mathClamp, code: 'function math_clamp( {' }),
    upsert(store, { ...physicsConfig, dependencies: ['physics_config'] }),
    upsert(store, { ...mathClamp, inputs: [{ name: 'x', type: 'int' as never }] }),
    deleteAtom(store, 'physics_nope'),
  ];
  for (const r of refusals) await assert.rejects(r);
  assert.equal(snapshotFiles(store), before);
  assert.equal(store.get('physics_config')!.version, 1);
  await store.close();
});

test('upsertMany is all or nothing and validates against the graph after the batch', async () => {
  const store = await AtomStore.open(tempDir());
  // player_jump needs physics_config, which arrives in the same batch.
  const results = await upsertMany(store, [playerJump, physicsConfig]);
  assert.deepEqual(results.map((r) => r.atom.name), ['player_jump', 'physics_config']);
  await assert.rejects(
    upsertMany(store, [mathClamp, { ...physicsConfig, dependencies: ['player_jump'] }]),
    /physics_config: dependency cycle: physics_config -> player_jump -> physics_config/,
  );
  assert.equal(store.get('math_clamp'), undefined, 'nothing of a refused batch is stored');
  await store.close();
});

test('a write torn by a crash is dropped; everything before it survives', async () => {
  const dir = tempDir();
  const store = await AtomStore.open(dir);
  await upsert(store, mathClamp);
  await upsert(store, physicsConfig);
  appendFileSync(store.journalFile, '{"seq":3,"ops":[{"op":"del","name":"math_cl'); // no checksum, no newline
  const reopened = await AtomStore.open(dir);
  assert.deepEqual(reopened.all().map((a) => a.name), ['math_clamp', 'physics_config']);
  await upsert(reopened, playerJump);
  const again = await AtomStore.open(dir);
  assert.equal(again.size, 3, 'a write after the repair is not hidden behind the torn line');
  await again.close();
});

test('a second process cannot open the workspace while the first holds it', async () => {
  const dir = tempDir();
  const store = await AtomStore.open(dir);
  // A lock held by another live process of this user on this machine (pid 1 is always alive): sealed
  // with this machine's secret, as a lock written here is (a lock without the seal came from elsewhere).
  const live = { pid: 1, host: (await import('node:os')).hostname(), since: '' };
  writeFileSync(join(store.atomicDir, 'lock'), JSON.stringify({ ...live, seal: machineSeal('lock', [live.pid, live.host, live.since]) }));
  await assert.rejects(AtomStore.open(dir), WorkspaceLockedError);
  // A lock whose process is gone is stale and taken over.
  writeFileSync(join(store.atomicDir, 'lock'), JSON.stringify({ pid: 2 ** 22 + 12345, host: (await import('node:os')).hostname(), since: '' }));
  const second = await AtomStore.open(dir);
  await second.close();
});

test('a database from a newer version is refused with what to do, and left untouched', async () => {
  const dir = tempDir();
  const store = await AtomStore.open(dir);
  await upsert(store, mathClamp);
  await store.close();
  const SQL = await initSqlJs({ locateFile: () => wasmPath() });
  const db = new SQL.Database(readFileSync(store.dbFile));
  db.run("UPDATE meta SET value = '99' WHERE key = 'schema_version'");
  writeFileSync(store.dbFile, db.export());
  const bytes = readFileSync(store.dbFile);
  await assert.rejects(AtomStore.open(dir), /newer version of Atomic Coding \(schema 99.*Update the Atomic Coding extension/);
  assert.deepEqual(readFileSync(store.dbFile), bytes);
});

test('a corrupt database file is reported with what to do', async () => {
  const dir = tempDir();
  const store = await AtomStore.open(dir);
  await store.close();
  writeFileSync(store.dbFile, 'this is not sqlite');
  await assert.rejects(AtomStore.open(dir), /not a readable Atomic Coding database.*Restore it/);
});

test('change events fire after the write is durable', async () => {
  const store = await AtomStore.open(tempDir());
  const seen: string[] = [];
  store.onDidChange((e) => seen.push(e.kind === 'reload' ? 'reload' : `${e.kind}:${e.atom.name}`));
  await upsert(store, mathClamp);
  await deleteAtom(store, 'math_clamp');
  assert.deepEqual(seen, ['upsert:math_clamp', 'delete:math_clamp']);
  await store.close();
});

test('compaction happens by itself after enough entries', async () => {
  const store = await AtomStore.open(tempDir(), { compactAfterEntries: 3 });
  for (let i = 0; i < 3; i++) await upsert(store, { ...mathClamp, description: `v${i}` });
  // After the write that made it due has been answered, not inside it.
  assert.ok(store.diskSize().journal > 0);
  await store.settled();
  assert.equal(store.diskSize().journal, 0);
  assert.ok(store.diskSize().database > 0);
  await store.close();
});
