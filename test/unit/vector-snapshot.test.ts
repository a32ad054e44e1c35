/**
 * The vector snapshot's format (search/vectorSnapshot.ts): what is written is read back as it was,
 * and anything else (another seal, a changed or missing byte, another version) is refused with a
 * reason, never read as vectors.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeVectorSnapshot, encodeVectorSnapshot, type KeptVector } from '../../src/search/vectorSnapshot.js';
import { VERSION } from '../../src/version.js';
import { sealWith } from '../support/snapshotSeal.js';

const seal = sealWith('this machine');
const vectors = new Map<string, KeptVector>([
  ['clamp_value', { fingerprint: '3 2026-11-28T10:00:00.000Z util', textHash: 'a'.repeat(32), vector: Int8Array.from([1, -2, 127, -127, 0, 5]) }],
  ['größe_prüfen', { fingerprint: '1 2026-11-28T10:00:01.000Z core', textHash: 'b'.repeat(32), vector: Int8Array.from([-1, 2, 3, 4, 5, 6]) }],
  // A view into a larger buffer, as the index keeps its vectors.
  ['spawn_wave', { fingerprint: '7 2026-11-28T10:00:02.000Z feature', textHash: 'c'.repeat(32), vector: new Int8Array(Int8Array.from([9, 9, 10, 20, 30, 40, 50, 60, 9]).buffer, 2, 6) }],
]);

test('a snapshot is read back as written: model, dimensions, and each atom’s fingerprint, hash and vector', () => {
  const bytes = encodeVectorSnapshot('use-lite-1', 6, vectors, seal)!;
  const read = decodeVectorSnapshot(bytes, seal);
  assert.ok(typeof read !== 'string', String(read));
  assert.equal(read.model, 'use-lite-1');
  assert.equal(read.dimensions, 6);
  assert.deepEqual([...read.vectors.keys()], [...vectors.keys()]);
  for (const [name, kept] of vectors) {
    const back: KeptVector = read.vectors.get(name)!;
    assert.equal(back.fingerprint, kept.fingerprint);
    assert.equal(back.textHash, kept.textHash);
    assert.deepEqual([...back.vector], [...kept.vector]);
  }
});

test('no secret, or a vector of another length: nothing is written', () => {
  assert.equal(encodeVectorSnapshot('m', 6, vectors, () => null), undefined);
  assert.equal(encodeVectorSnapshot('m', 5, vectors, seal), undefined);
});

test('another machine’s seal, any byte changed, any length cut: refused', () => {
  const bytes = encodeVectorSnapshot('m', 6, vectors, seal)!;
  assert.match(String(decodeVectorSnapshot(bytes, sealWith('another machine'))), /not sealed on this machine/);
  for (let at = 0; at < bytes.length; at++) {
    const damaged = Buffer.from(bytes);
    damaged[at]! ^= 0x20;
    assert.equal(typeof decodeVectorSnapshot(damaged, seal), 'string', `byte ${at}`);
  }
  for (let length = 0; length < bytes.length; length++) assert.equal(typeof decodeVectorSnapshot(bytes.subarray(0, length), seal), 'string', `cut at ${length}`);
});

test('sealed here but written by another version, or not as the format says: refused', () => {
  const bytes = encodeVectorSnapshot('m', 6, vectors, seal)!;
  const headerLength = bytes.readUInt32LE(8);
  const header = JSON.parse(bytes.toString('utf8', 12, 12 + headerLength)) as Record<string, unknown>;
  const resealed = (changed: Record<string, unknown>) => {
    const json = Buffer.from(JSON.stringify(changed));
    const length = Buffer.alloc(4);
    length.writeUInt32LE(json.length);
    const body = Buffer.concat([bytes.subarray(0, 8), length, json, bytes.subarray(12 + headerLength, bytes.length - 32)]);
    return Buffer.concat([body, seal([body])!]);
  };
  assert.equal(header.product, VERSION);
  assert.match(String(decodeVectorSnapshot(resealed({ ...header, product: '0.0.0-other' }), seal)), /another version/);
  assert.match(String(decodeVectorSnapshot(resealed({ ...header, count: 2 }), seal)), /not as/);
  assert.match(String(decodeVectorSnapshot(resealed({ ...header, dimensions: 0 }), seal)), /not as the format says/);
});
