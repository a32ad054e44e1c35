import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cosine } from '../../src/search/embeddings/provider.js';
import { compactVector, VectorIndex, VectorSlab } from '../../src/search/vectorIndex.js';

/**
 * A unit vector of 512 components, each a few hundredths, as USE-lite gives them: its largest
 * component is about twice the typical one (1.8 on the eval's 154 atoms, where compacting moved a
 * query's cosine by 0.0007 at most, 0.0001 on average).
 */
function embeddingLike(random: () => number): Float32Array {
  const v = new Float32Array(512);
  let sum = 0;
  for (let i = 0; i < v.length; i++) {
    const x = random() + random() + random() - 1.5; // roughly normal, no outliers
    v[i] = x;
    sum += x * x;
  }
  for (let i = 0; i < v.length; i++) v[i]! /= Math.sqrt(sum);
  return v;
}

function seeded(seed: number): () => number {
  return () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

test('a compact vector is 8-bit integers up to 127 in magnitude, and keeps the direction a cosine sees', () => {
  const random = seeded(3);
  let worst = 0;
  for (let k = 0; k < 200; k++) {
    const a = embeddingLike(random);
    const b = embeddingLike(random);
    const ca = compactVector(a);
    assert.ok(ca instanceof Int8Array);
    assert.equal(Math.max(...ca.map(Math.abs)), 127);
    worst = Math.max(worst, Math.abs(cosine(a, b) - cosine(ca, compactVector(b))), 1 - cosine(a, ca));
  }
  assert.ok(worst < 0.002, `a cosine moved by ${worst}`);
  const already = new Int8Array([1, -2, 3]);
  assert.equal(compactVector(already), already, 'an Int8Array is taken as it is');
  assert.deepEqual([...compactVector([0, 0, 0])], [0, 0, 0]);
});

test('the index holds one compact vector an atom, whether filled at open or upserted, and ranks as the float vectors do', async () => {
  const random = seeded(11);
  const index = new VectorIndex(undefined, { flushDelayMs: 0, maxFlushDelayMs: 0 });
  await index.open();
  const vectors = Array.from({ length: 300 }, () => embeddingLike(random));
  const meta = { type: 'util' as const, model: 'm', textHash: 'h' };
  await index.fill(vectors.slice(0, 200).map((vector, i) => ({ name: `atom_${i}`, vector, meta })));
  vectors.slice(200).forEach((vector, i) => index.upsert(`atom_${200 + i}`, vector, meta));
  await index.flush();
  for (const name of ['atom_0', 'atom_250']) assert.ok((await index.vector(name)) instanceof Int8Array, name);
  for (let q = 0; q < 20; q++) {
    const query = embeddingLike(random);
    const hits = await index.query(query, 5);
    const exact = vectors.map((v, i) => ({ name: `atom_${i}`, similarity: cosine(query, v) })).sort((a, b) => b.similarity - a.similarity);
    // The same five, barring a near tie; each similarity within a rounding's reach of the exact one.
    for (const hit of hits) {
      const truth = exact.find((e) => e.name === hit.name)!;
      assert.ok(Math.abs(hit.similarity - truth.similarity) < 0.002, `${hit.name}: ${hit.similarity} against ${truth.similarity}`);
      assert.ok(truth.similarity >= exact[4]!.similarity - 0.004, `${hit.name} is not among the five nearest`);
    }
  }
  await index.dispose();
});

test('a slab compacts vectors into views of one buffer, each equal to its own compact vector', () => {
  const random = seeded(11);
  const vectors = Array.from({ length: 3 }, () => embeddingLike(random));
  const slab = new VectorSlab(2, 512);
  const [a, b, c] = vectors.map((v) => slab.take(v));
  for (const [i, v] of [a!, b!, c!].entries()) assert.deepEqual([...v], [...compactVector(vectors[i]!)]);
  assert.equal(a!.buffer, b!.buffer, 'the first two share the slab');
  assert.equal(a!.buffer.byteLength, 2 * 512);
  assert.notEqual(c!.buffer, a!.buffer, 'one past the room gets a buffer of its own');
  const other = slab.take(new Float32Array([0.5, -1, 0.25]));
  assert.deepEqual([...other], [64, -127, 32], 'another length: its own buffer, compacted the same way');
  assert.deepEqual([...new VectorSlab(1, 3).take(new Int8Array([1, -2, 3]))], [1, -2, 3], 'an 8-bit vector is copied as it is');
});
