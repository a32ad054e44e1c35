/**
 * The vector index (vectorIndex.ts): vectra in memory over the store's vectors, each kept once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compactVector, LEGACY_INDEX_FILES, VectorIndex, type VectorMeta } from '../../src/search/vectorIndex.js';
import { embeddingText } from '../../src/atoms/signature.js';
import type { EmbeddingProvider } from '../../src/search/embeddings/provider.js';
import type { Vector } from '../../src/store/vectors/float16.js';
import { textHash } from '../../src/util/textHash.js';
import { SearchIndex } from '../../src/search/searchIndex.js';
import { MemorySource } from '../fixtures/search-source.js';
import { numberUtil } from '../support/atoms.js';
import { tempDir } from '../support/tmp.js';

const meta = (type: VectorMeta['type'] = 'util'): VectorMeta => ({ type, model: 'm1', textHash: 'h' });
const unit = (...xs: number[]) => {
  const n = Math.hypot(...xs);
  return Float32Array.from(xs.map((x) => x / n));
};

test('changes are seen by queries at once, before and after they are committed', async () => {
  const index = new VectorIndex(undefined, { flushDelayMs: 60_000 });
  await index.open();
  index.upsert('a', unit(1, 0, 0), meta());
  index.upsert('b', unit(0, 1, 0), meta('core'));
  const hits = await index.query(unit(1, 0.1, 0), 2);
  assert.deepEqual(hits.map((h) => h.name), ['a', 'b']);
  assert.ok(Math.abs(hits[0]!.similarity - 0.995) < 0.001);
  await index.flush();
  assert.deepEqual((await index.query(unit(1, 0.1, 0), 2)).map((h) => h.name), ['a', 'b']);
  assert.equal(index.size, 2);
});

test('the type filter and deletes apply to committed and pending items alike', async () => {
  const index = new VectorIndex(undefined, { flushDelayMs: 60_000 });
  await index.open();
  index.upsert('a', unit(1, 0), meta('util'));
  index.upsert('b', unit(1, 0.2), meta('core'));
  await index.flush();
  index.upsert('c', unit(1, 0.1), meta('core'));
  assert.deepEqual((await index.query(unit(1, 0), 5, 'core')).map((h) => h.name), ['c', 'b']);
  index.delete('b');
  assert.deepEqual((await index.query(unit(1, 0), 5)).map((h) => h.name), ['a', 'c']);
  await index.flush();
  assert.deepEqual((await index.query(unit(1, 0), 5)).map((h) => h.name), ['a', 'c']);
  assert.equal(index.meta('b'), undefined);
});

test('fill keeps each vector once, compact (a compact vector by reference, others compacted), and pending changes stay newer', async () => {
  const index = new VectorIndex(undefined, { flushDelayMs: 60_000 });
  await index.open();
  index.upsert('b', unit(0, 1), meta('core'));
  const a = compactVector(unit(1, 0));
  const stale = unit(1, 1);
  await index.fill([
    { name: 'a', vector: a, meta: { type: 'feature', model: 'm1', textHash: 'ha' } },
    { name: 'b', vector: stale, meta: meta() },
  ]);
  assert.equal(await index.vector('a'), a, 'the very array, not a copy');
  assert.ok((await index.vector('b')) instanceof Int8Array);
  assert.deepEqual(index.meta('a'), { type: 'feature', model: 'm1', textHash: 'ha' });
  assert.deepEqual(index.meta('b'), meta('core'), 'the upsert made before the fill is newer');
  assert.deepEqual((await index.query(unit(0, 1), 5, 'core')).map((h) => h.name), ['b']);
  await index.flush();
  assert.deepEqual((await index.query(unit(0, 1), 5, 'core')).map((h) => h.name), ['b']);
  assert.equal(index.size, 2);
  // A second fill replaces the items it names and keeps the others.
  const a2 = unit(0, 1);
  await index.fill([{ name: 'a', vector: a2, meta: meta() }]);
  assert.deepEqual(await index.vector('a'), compactVector(a2));
  assert.deepEqual((await index.query(unit(0, 1), 5)).map((h) => h.name).sort(), ['a', 'b']);
});

test('a fill waits for a commit in flight, so the commit cannot bring back the items before it', async () => {
  const index = new VectorIndex(undefined, { flushDelayMs: 60_000 });
  await index.open();
  index.upsert('x', unit(1, 0), meta());
  const committing = index.flush();
  const filled = index.fill([{ name: 'y', vector: unit(0, 1), meta: meta() }]);
  await Promise.all([committing, filled]);
  assert.deepEqual((await index.query(unit(1, 1), 5)).map((h) => h.name).sort(), ['x', 'y']);
});

test('the index files of earlier versions are removed at open, and nothing is written to disk', async () => {
  const folder = join(tempDir(), 'vectors');
  mkdirSync(folder);
  for (const f of LEGACY_INDEX_FILES) writeFileSync(join(folder, f), 'an old copy of the vectors');
  const index = new VectorIndex(folder, { flushDelayMs: 0 });
  await index.open();
  assert.equal(existsSync(folder), false, 'the emptied folder is removed');
  index.upsert('a', unit(1, 0), meta());
  await index.flush();
  assert.equal(existsSync(folder), false);

  // A folder holding anything else is left in place, with that file.
  const other = join(tempDir(), 'vectors');
  mkdirSync(other);
  writeFileSync(join(other, 'index.bin'), 'old');
  writeFileSync(join(other, 'notes.txt'), 'not ours');
  await new VectorIndex(other).open();
  assert.deepEqual(readdirSync(other), ['notes.txt']);
});

test('search reads the stored vectors at open a slice at a time (not 50,000 rows in one turn), and indexes every one', async () => {
  const dimensions = 8;
  // A model that turns a text into a vector of its hash's bytes: same text, same vector.
  const vectorOf = (text: string) => unit(...[...createHash('sha256').update(text.trim()).digest().subarray(0, dimensions)].map((b) => b - 127.5));
  const provider: EmbeddingProvider = {
    modelId: 'chars',
    dimensions,
    embed: async (texts) => texts.map(vectorOf),
    dispose: async () => {},
  };
  const drafts = Array.from({ length: 4_500 }, (_, i) => numberUtil(`atom_${String(i).padStart(4, '0')}`, `x + ${i}`));
  const source = new MemorySource(join(tempDir(), '.atomic'), drafts);
  source.reload(
    drafts,
    source.all().map((atom) => ({ name: atom.name, model: 'chars', textHash: textHash(embeddingText(atom)), vector: vectorOf(embeddingText(atom)) })),
  );
  const slices: number[] = [];
  const page = source.embeddingsPage.bind(source);
  source.embeddingsPage = <V>(after: string, limit: number, keep: (vector: Vector) => V) => {
    const read = page(after, limit, keep);
    slices.push(read.embeddings.length);
    return read;
  };
  const index = new SearchIndex(source, provider, { backlogDelayMs: 60_000 });
  try {
    await index.open();
    assert.ok(slices.length >= 3 && Math.max(...slices) <= 2_000, `read in slices of ${slices.join(', ')}`);
    assert.equal(slices.reduce((a, b) => a + b, 0), 4_500);
    assert.equal(index.pendingEmbeddings, 0, 'every stored vector was current: nothing to embed again');
    const last = source.get('atom_4499')!;
    const { hits } = await index.search(embeddingText(last), { mode: 'semantic', limit: 1, threshold: -1 });
    assert.equal(hits[0]?.atom.name, 'atom_4499');
  } finally {
    await index.close();
  }
});
