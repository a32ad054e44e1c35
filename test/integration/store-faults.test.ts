/**
 * The store under conditions a person cannot easily arrange by hand: a database replaced by
 * another program, a read-only workspace, a full disk. The last two mount a small tmpfs and
 * need root (as CI has); elsewhere they are skipped, saying why.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeEntry } from '../../src/store/journal.js';
import { AtomStore } from '../../src/store/atomStore.js';
import { AtomWorkspace } from '../../src/workspace.js';
import { mathClamp, physicsConfig, playerJump } from '../support/atoms.js';
import { tempDir } from '../support/tmp.js';
import { upsert } from '../support/storeWrites.js';

test('a database changed by another program is noticed and reloaded, not overwritten', async () => {
  // Branch B: a workspace with a different history, as a git checkout would bring it.
  const other = tempDir();
  const b = await AtomStore.open(other);
  await upsert(b, physicsConfig);
  await upsert(b, playerJump);
  await b.close();

  const dir = tempDir();
  const ws = await AtomWorkspace.open(dir);
  await ws.upsert(mathClamp);
  await ws.compact();
  const reloads: string[] = [];
  ws.onDidChange((e) => reloads.push(e.kind));

  // "git checkout": both files replaced under the running store.
  copyFileSync(join(other, '.atomic', 'atoms.db'), join(dir, '.atomic', 'atoms.db.tmp-checkout'));
  execFileSync('mv', [join(dir, '.atomic', 'atoms.db.tmp-checkout'), join(dir, '.atomic', 'atoms.db')]);
  writeFileSync(join(dir, '.atomic', 'atoms.journal'), readFileSync(join(other, '.atomic', 'atoms.journal')));

  const deadline = Date.now() + 5000;
  while (!reloads.includes('reload') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  assert.ok(reloads.includes('reload'), 'the file watcher noticed the change');
  assert.deepEqual(ws.atoms.all().map((a) => a.name), ['physics_config', 'player_jump']);

  // A write after the checkout builds on the checked-out atoms instead of the old ones.
  await ws.upsert(mathClamp);
  await ws.close();
  const reopened = await AtomStore.open(dir);
  assert.deepEqual(reopened.all().map((a) => a.name), ['math_clamp', 'physics_config', 'player_jump']);
  await reopened.close();
});

test('a write right after an outside change reloads first, even without the watcher', async () => {
  const dir = tempDir();
  const a = await AtomStore.open(dir);
  await upsert(a, mathClamp);
  await a.compact();
  // Another program rewrites the journal (say, a restore from backup with one more atom).
  const backup = tempDir();
  const b = await AtomStore.open(backup);
  await upsert(b, mathClamp);
  await upsert(b, physicsConfig);
  await b.close();
  copyFileSync(join(backup, '.atomic', 'atoms.db'), join(dir, '.atomic', 'atoms.db'));
  await upsert(a, playerJump); // needs physics_config, which only the restored database has
  assert.deepEqual(a.all().map((x) => x.name), ['math_clamp', 'physics_config', 'player_jump']);
  await a.close();
});

const mounts: string[] = [];
after(() => {
  for (const m of mounts) {
    try {
      execFileSync('umount', [m]);
    } catch {}
  }
});

/** A tmpfs of `size` mounted on a fresh folder, or null when this machine does not allow it. */
function smallDisk(size: string): string | null {
  const dir = tempDir('atomic-mnt-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    return null;
  }
  mounts.push(dir);
  return dir;
}

test('a full disk is reported with what to do, changes nothing, and the store recovers', async (t) => {
  const disk = smallDisk('512k');
  if (!disk) return t.skip('mounting a tmpfs needs root');
  const ws = await AtomWorkspace.open(join(disk, 'ws'));
  await ws.upsert(mathClamp);
  // Fill the disk, leaving too little for the next journal line.
  mkdirSync(join(disk, 'filler'));
  let i = 0;
  try {
    for (;;) writeFileSync(join(disk, 'filler', String(i++)), Buffer.alloc(16 * 1024));
  } catch {}
  try {
    for (;;) writeFileSync(join(disk, 'filler', `s${i++}`), Buffer.alloc(64));
  } catch {}
  await assert.rejects(ws.upsert({ ...physicsConfig, description: 'x'.repeat(3000) }), /the disk is full: free some space and try again\. Nothing was changed\./);
  assert.equal(ws.atoms.get('physics_config'), undefined);
  rmSync(join(disk, 'filler'), { recursive: true });
  await ws.upsert(physicsConfig);
  await ws.close();
  const reopened = await AtomStore.open(join(disk, 'ws'));
  assert.deepEqual(reopened.all().map((a) => a.name), ['math_clamp', 'physics_config']);
  await reopened.close();
});

test('a read-only workspace opens for reading and refuses writes with what to do', async (t) => {
  const disk = smallDisk('2m');
  if (!disk) return t.skip('mounting a tmpfs needs root');
  const seeded = await AtomStore.open(join(disk, 'ws'));
  await upsert(seeded, mathClamp);
  await seeded.close();
  execFileSync('mount', ['-o', 'remount,ro', disk]);
  const store = await AtomStore.open(join(disk, 'ws'));
  assert.match(store.readOnly ?? '', /not writable \(EROFS\)/);
  assert.deepEqual(store.all().map((a) => a.name), ['math_clamp']);
  await assert.rejects(upsert(store, physicsConfig), /the workspace is read-only .*make it writable and open it again/);
  await store.close();
});

test('a read-only workspace reads its vectors from vectors.bin', async (t) => {
  const disk = smallDisk('2m');
  if (!disk) return t.skip('mounting a tmpfs needs root');
  const seeded = await AtomStore.open(join(disk, 'ws'));
  await upsert(seeded, mathClamp);
  const vector = Float32Array.from([0.5, -0.25, 0.125, 1 / 3]);
  await seeded.putEmbeddings([{ name: 'math_clamp', model: 'm', textHash: 'c'.repeat(32), vector }]);
  await seeded.close();
  execFileSync('mount', ['-o', 'remount,ro', disk]);
  const store = await AtomStore.open(join(disk, 'ws'));
  assert.ok(store.readOnly);
  assert.deepEqual([...store.getEmbedding('math_clamp')!.vector], [0.5, -0.25, 0.125, 0.333251953125]);
  assert.deepEqual(store.embeddingsPage('', 10).embeddings.map((e) => e.name), ['math_clamp']);
  await store.close();
});

test('a read-only workspace of schema 2 keeps its vectors for search, in memory (vectors.bin cannot be written)', async (t) => {
  const disk = smallDisk('2m');
  if (!disk) return t.skip('mounting a tmpfs needs root');
  const seeded = await AtomStore.open(join(disk, 'ws'));
  await upsert(seeded, mathClamp);
  await seeded.close();
  // Schema 2's emb op: the vector itself, base64 of float32, after the snapshot's last entry.
  const vector = Float32Array.from([0.5, -0.25, 0.125, 1 / 3]);
  const row = { name: 'math_clamp', model: 'm', textHash: 'c'.repeat(32), vector: Buffer.from(vector.buffer).toString('base64') };
  writeFileSync(join(disk, 'ws', '.atomic', 'atoms.journal'), encodeEntry({ seq: 1000, ops: [{ op: 'emb', rows: [row] }] }));
  execFileSync('mount', ['-o', 'remount,ro', disk]);
  const store = await AtomStore.open(join(disk, 'ws'));
  assert.ok(store.readOnly);
  assert.deepEqual([...store.getEmbedding('math_clamp')!.vector], [0.5, -0.25, 0.125, 0.333251953125]);
  assert.deepEqual(store.embeddingsPage('', 10).embeddings.map((e) => e.name), ['math_clamp']);
  assert.equal(store.embeddingCount, 1);
  await store.close();
});
