import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { VectorFile } from '../../src/store/vectors/vectorFile.js';
import { textHash } from '../../src/util/textHash.js';
import { seededRandom } from '../support/random.js';
import { tempDir } from '../support/tmp.js';

test('readMany gives each slot what read gives it: the vector where the slot holds the hash, nothing otherwise', async () => {
  const dir = tempDir('atomic-vector-file-');
  const file = new VectorFile(join(dir, 'vectors.bin'));
  file.reset([]);
  const next = seededRandom(7);
  const dimensions = 64;
  const stored = Array.from({ length: 700 }, (_, i) => ({ textHash: textHash(`text ${i}`), vector: Float32Array.from({ length: dimensions }, () => next() * 2 - 1) }));
  const { slots } = await file.write(stored);
  for (let round = 0; round < 20; round++) {
    // Dense and sparse requests, out of order, with wrong hashes, slots past the end and repeats.
    const density = [1, 0.5, 0.05, 0.005][round % 4]!;
    const wanted: { slot: number; textHash: string }[] = [];
    stored.forEach((v, i) => {
      if (next() < density) wanted.push({ slot: slots[i]!, textHash: next() < 0.1 ? textHash(`another ${i}`) : v.textHash });
    });
    wanted.push({ slot: slots.length + 3, textHash: stored[0]!.textHash }, { slot: -1, textHash: stored[0]!.textHash }, { slot: 1.5, textHash: stored[1]!.textHash });
    if (wanted.length > 3) wanted.push({ ...wanted[0]! });
    wanted.sort(() => next() - 0.5);
    const got = new Map<number, number[]>();
    file.readMany(wanted, (i, vector) => {
      assert.equal(got.has(i), false, 'each request at most once');
      got.set(i, [...vector]);
    });
    wanted.forEach((w, i) => {
      const one = file.read(w.slot, w.textHash);
      assert.deepEqual(got.get(i), one && [...one], `request ${i} (slot ${w.slot})`);
    });
  }
  file.close();
});

test('readMany gives nothing for the slots past the end of a file cut short', async () => {
  const dir = tempDir('atomic-vector-file-');
  const path = join(dir, 'vectors.bin');
  const file = new VectorFile(path);
  file.reset([]);
  const stored = Array.from({ length: 10 }, (_, i) => ({ textHash: textHash(`text ${i}`), vector: Float32Array.from({ length: 8 }, (_, k) => i + k / 10) }));
  const { slots } = await file.write(stored);
  // Cut in the middle of the eighth slot, behind the file's back (a crash, a disk full).
  const slotBytes = (statSync(path).size - 16) / 10;
  truncateSync(path, 16 + slotBytes * 7 + 5);
  const found: number[] = [];
  file.readMany(
    stored.map((v, i) => ({ slot: slots[i]!, textHash: v.textHash })),
    (i) => found.push(i),
  );
  assert.deepEqual(found.sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6]);
  file.close();
});
