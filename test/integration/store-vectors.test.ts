/**
 * Embedding vectors in `.atomic/vectors.bin` (embeddings/vectorFile.ts, schema 3): the database
 * names a slot per atom, the file holds the vectors. What a user relies on (vectors survive
 * reopens, the file does not grow with every re-embedding) and what a cloned or damaged file
 * could bring (a vector is only ever read back for the row whose text it was computed from).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { AtomStore } from '../../src/store/atomStore.js';
import { roundToHalf } from '../../src/store/vectors/float16.js';
import { encodeEntry } from '../../src/store/journal.js';
import { wasmPath } from '../../src/store/sqlite.js';
import { mathClamp, physicsConfig } from '../support/atoms.js';
import { tempDir } from '../support/tmp.js';
import { deleteAtom, upsert } from '../support/storeWrites.js';

const MODEL = 'test-model';
const HASH_A = 'a'.repeat(32);
const HASH_B = 'b'.repeat(32);

function vectorOf(seed: number, length = 8): Float32Array {
  return Float32Array.from({ length }, (_, i) => Math.sin(seed * 7 + i) / 2);
}

async function storeWithAtoms(dir = tempDir('atomic-vectors-')): Promise<{ dir: string; store: AtomStore }> {
  const store = await AtomStore.open(dir);
  await upsert(store, physicsConfig);
  await upsert(store, mathClamp);
  return { dir, store };
}

const vectorsFile = (dir: string) => join(dir, '.atomic', 'vectors.bin');
const readBack = (store: AtomStore, name: string) => {
  const e = store.getEmbedding(name);
  return e && { textHash: e.textHash, vector: [...e.vector] };
};

test('vectors are kept in vectors.bin and read back the same after a reopen', async () => {
  const { dir, store } = await storeWithAtoms();
  await store.putEmbeddings([
    { name: 'math_clamp', model: MODEL, textHash: HASH_A, vector: vectorOf(1) },
    { name: 'physics_config', model: MODEL, textHash: HASH_B, vector: vectorOf(2) },
  ]);
  const expected = { textHash: HASH_A, vector: [...roundToHalf(vectorOf(1))] };
  assert.deepEqual(readBack(store, 'math_clamp'), expected);
  assert.equal(statSync(vectorsFile(dir)).size, 16 + 2 * (16 + 8 * 2));
  await store.close();

  const fromSnapshot = await AtomStore.open(dir);
  assert.deepEqual(readBack(fromSnapshot, 'math_clamp'), expected);
  assert.equal(fromSnapshot.embeddingCount, 2);
  // Search reads them all at once, page by page.
  const page = fromSnapshot.embeddingsPage('', 10);
  assert.deepEqual(page.embeddings.map((e) => [e.name, [...e.vector]]), [
    ['math_clamp', [...roundToHalf(vectorOf(1))]],
    ['physics_config', [...roundToHalf(vectorOf(2))]],
  ]);
  assert.equal(page.next, undefined);
  // Handed to `keep` as read, in bytes the page's reads share: nothing of a read outlives it.
  const handed: ArrayLike<number>[] = [];
  const kept = fromSnapshot.embeddingsPage('', 10, (vector) => {
    handed.push(vector);
    return [...vector];
  });
  assert.deepEqual(kept.embeddings.map((e) => [e.name, e.textHash, e.vector]), [
    ['math_clamp', HASH_A, [...roundToHalf(vectorOf(1))]],
    ['physics_config', HASH_B, [...roundToHalf(vectorOf(2))]],
  ]);
  const bytes = (v: ArrayLike<number>) => (v as Float32Array).buffer;
  // Where binary16 is read as a view (Float16Array); without it, each read is decoded to a float32 copy.
  if ('Float16Array' in globalThis) assert.equal(bytes(handed[0]!), bytes(handed[1]!), 'one buffer for every read of the page');
  assert.notEqual(bytes(page.embeddings[0]!.vector), bytes(page.embeddings[1]!.vector), 'without keep, each vector has its own');
  await fromSnapshot.close();
});

test('re-embedding an atom again and again reuses the slot it frees: the file does not grow', async () => {
  const { dir, store } = await storeWithAtoms();
  for (let i = 0; i < 40; i++) {
    await store.putEmbeddings([{ name: 'math_clamp', model: MODEL, textHash: i % 2 ? HASH_A : HASH_B, vector: vectorOf(i) }]);
  }
  assert.ok(statSync(vectorsFile(dir)).size <= 16 + 2 * (16 + 16), `${statSync(vectorsFile(dir)).size} bytes`);
  assert.deepEqual(readBack(store, 'math_clamp')?.vector, [...roundToHalf(vectorOf(39))]);
  // A deleted atom's slot is free too.
  await deleteAtom(store, 'math_clamp');
  await store.putEmbeddings([{ name: 'physics_config', model: MODEL, textHash: HASH_B, vector: vectorOf(50) }]);
  await store.putEmbeddings([{ name: 'physics_config', model: MODEL, textHash: HASH_A, vector: vectorOf(51) }]);
  assert.ok(statSync(vectorsFile(dir)).size <= 16 + 2 * (16 + 16));
  await store.close();
  const again = await AtomStore.open(dir);
  assert.deepEqual(readBack(again, 'physics_config')?.vector, [...roundToHalf(vectorOf(51))]);
  assert.equal(again.getEmbedding('math_clamp'), undefined);
  await again.close();
});

test('deleted atoms give their slots back: the file is cut after the last slot named at the next open', async () => {
  const { dir, store } = await storeWithAtoms();
  await store.putEmbeddings([
    { name: 'physics_config', model: MODEL, textHash: HASH_B, vector: vectorOf(2) },
    { name: 'math_clamp', model: MODEL, textHash: HASH_A, vector: vectorOf(1) },
  ]);
  assert.equal(statSync(vectorsFile(dir)).size, 16 + 2 * 32);
  await deleteAtom(store, 'math_clamp'); // the second slot
  await store.close();
  const again = await AtomStore.open(dir);
  assert.equal(statSync(vectorsFile(dir)).size, 16 + 32);
  assert.deepEqual(readBack(again, 'physics_config')?.vector, [...roundToHalf(vectorOf(2))]);
  await again.close();
});

test('a slot written but never named (a crash before the journal entry) is free at the next open', async () => {
  const { dir, store } = await storeWithAtoms();
  await store.putEmbeddings([{ name: 'math_clamp', model: MODEL, textHash: HASH_A, vector: vectorOf(1) }]);
  await store.close();
  // As a crash would leave it: a second slot written, no row naming it.
  const bytes = readFileSync(vectorsFile(dir));
  writeFileSync(vectorsFile(dir), Buffer.concat([bytes, bytes.subarray(16)]));
  const again = await AtomStore.open(dir);
  await again.putEmbeddings([{ name: 'physics_config', model: MODEL, textHash: HASH_B, vector: vectorOf(2) }]);
  assert.equal(statSync(vectorsFile(dir)).size, 16 + 2 * 32, 'the unnamed slot was given out again');
  assert.deepEqual(readBack(again, 'physics_config')?.vector, [...roundToHalf(vectorOf(2))]);
  assert.deepEqual(readBack(again, 'math_clamp')?.vector, [...roundToHalf(vectorOf(1))]);
  await again.close();
});

test('a damaged, cut or foreign vectors.bin gives no vector, never a wrong one, and the next vectors are stored again', async () => {
  for (const damage of [
    (file: string) => truncateSync(file, 16 + 10), // cut inside the first slot
    (file: string) => writeFileSync(file, Buffer.alloc(4096, 0x41)), // not ours at all
    (file: string) => {
      // Our header, slots holding other texts' vectors (another workspace's file, or slots reused).
      const bytes = readFileSync(file);
      bytes.fill(0x11, 16, 32);
      writeFileSync(file, bytes);
    },
  ]) {
    const { dir, store } = await storeWithAtoms();
    await store.putEmbeddings([{ name: 'math_clamp', model: MODEL, textHash: HASH_A, vector: vectorOf(1) }]);
    await store.close();
    damage(vectorsFile(dir));
    const again = await AtomStore.open(dir);
    assert.equal(again.getEmbedding('math_clamp'), undefined);
    assert.deepEqual(again.embeddingsPage('', 10).embeddings, []);
    await again.putEmbeddings([{ name: 'math_clamp', model: MODEL, textHash: HASH_A, vector: vectorOf(3) }]);
    assert.deepEqual(readBack(again, 'math_clamp')?.vector, [...roundToHalf(vectorOf(3))]);
    await again.close();
  }
});

test('a row naming a slot the file does not have, or not shaped like ours, gives no vector and does not stop the open', async () => {
  const { dir, store } = await storeWithAtoms();
  await store.putEmbeddings([
    { name: 'math_clamp', model: MODEL, textHash: HASH_A, vector: vectorOf(1) },
    { name: 'physics_config', model: MODEL, textHash: HASH_B, vector: vectorOf(2) },
  ]);
  await store.close();
  const SQL = await initSqlJs({ locateFile: () => wasmPath() });
  const file = join(dir, '.atomic', 'atoms.db');
  const db = new SQL.Database(readFileSync(file));
  db.run("UPDATE embedding_slots SET slot = 1000000000 WHERE name = 'math_clamp'");
  db.run("UPDATE embedding_slots SET model = x'00' WHERE name = 'physics_config'");
  writeFileSync(file, db.export());
  db.close();
  const again = await AtomStore.open(dir);
  assert.equal(again.getEmbedding('math_clamp'), undefined);
  assert.equal(again.getEmbedding('physics_config'), undefined);
  assert.deepEqual(again.embeddingsPage('', 10).embeddings, []);
  assert.equal(again.embeddingCount, 1, 'the out-of-range row is counted (search embeds it again); the misshapen one is not');
  await again.close();
});

test('vectors of another length (another model) start the file afresh; the old rows read nothing', async () => {
  const { dir, store } = await storeWithAtoms();
  await store.putEmbeddings([{ name: 'math_clamp', model: MODEL, textHash: HASH_A, vector: vectorOf(1) }]);
  await store.putEmbeddings([{ name: 'physics_config', model: 'other', textHash: HASH_B, vector: vectorOf(2, 12) }]);
  assert.equal(store.getEmbedding('math_clamp'), undefined);
  assert.deepEqual(readBack(store, 'physics_config')?.vector, [...roundToHalf(vectorOf(2, 12))]);
  assert.equal(statSync(vectorsFile(dir)).size, 16 + 16 + 24);
  await store.close();
});

test('a journal written by schema 2 (vectors in its rows) has its vectors moved into vectors.bin at the open', async () => {
  const { dir, store } = await storeWithAtoms();
  await store.close();
  // Schema 2's emb op: the vector as base64 of float32, after the snapshot's last entry.
  const seq = 1000;
  const vector = vectorOf(4);
  const row = { name: 'math_clamp', model: MODEL, textHash: HASH_A, vector: Buffer.from(vector.buffer).toString('base64') };
  writeFileSync(join(dir, '.atomic', 'atoms.journal'), encodeEntry({ seq, ops: [{ op: 'emb', rows: [row] }] }));
  const again = await AtomStore.open(dir);
  assert.deepEqual(readBack(again, 'math_clamp'), { textHash: HASH_A, vector: [...roundToHalf(vector)] });
  await again.close();
  const third = await AtomStore.open(dir);
  assert.deepEqual(readBack(third, 'math_clamp'), { textHash: HASH_A, vector: [...roundToHalf(vector)] });
  await third.close();
});
