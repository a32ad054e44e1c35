/**
 * The vector index (vectorIndex.ts): vectra in memory over the store's vectors, each kept once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LEGACY_INDEX_FILES, VectorIndex, type VectorMeta } from '../../src/store/search/vectorIndex.js';
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

test('fill takes the vectors it is given by reference (each vector is kept once), and pending changes stay newer', async () => {
  const index = new VectorIndex(undefined, { flushDelayMs: 60_000 });
  await index.open();
  index.upsert('b', unit(0, 1), meta('core'));
  const a = unit(1, 0);
  const stale = unit(1, 1);
  await index.fill([
    { name: 'a', vector: a, meta: { type: 'feature', model: 'm1', textHash: 'ha' } },
    { name: 'b', vector: stale, meta: meta() },
  ]);
  assert.equal(await index.vector('a'), a, 'the very array, not a copy');
  assert.deepEqual(index.meta('a'), { type: 'feature', model: 'm1', textHash: 'ha' });
  assert.deepEqual(index.meta('b'), meta('core'), 'the upsert made before the fill is newer');
  assert.deepEqual((await index.query(unit(0, 1), 5, 'core')).map((h) => h.name), ['b']);
  await index.flush();
  assert.deepEqual((await index.query(unit(0, 1), 5, 'core')).map((h) => h.name), ['b']);
  assert.equal(index.size, 2);
  // A second fill replaces the items it names and keeps the others.
  const a2 = unit(0, 1);
  await index.fill([{ name: 'a', vector: a2, meta: meta() }]);
  assert.equal(await index.vector('a'), a2);
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
