import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeHalf, encodeHalf, halfVector } from '../../src/store/vectors/float16.js';

const bytes = () => encodeHalf([0.5, -0.25, 1 / 3, 65504, -0, 5.96e-8, 0.0123]);

test('a vector read as a view on its binary16 bytes holds the values decoding gives, at two bytes each, without a copy', (t) => {
  if (typeof Float16Array !== 'function') {
    t.skip('this runtime has no Float16Array (Node 22): vectors are decoded to float32');
    return;
  }
  const b = bytes();
  const view = halfVector(b);
  assert.ok(view instanceof Float16Array);
  assert.equal(view.buffer, b.buffer, 'a view, not a copy');
  assert.deepEqual([...view], [...decodeHalf(b)]);
});

test('without Float16Array (Node 22, VS Code\'s extension host) the vector is decoded to float32, to the same values', () => {
  const b = bytes();
  const decoded = halfVector(b, null);
  assert.ok(decoded instanceof Float32Array);
  assert.deepEqual([...decoded], [...decodeHalf(b)]);
  if (typeof Float16Array === 'function') assert.deepEqual([...decoded], [...halfVector(b)]);
});

test('bytes at an odd offset (a view it cannot take) are decoded instead', () => {
  const b = bytes();
  const shifted = new Uint8Array(b.byteLength + 1);
  shifted.set(b, 1);
  const odd = shifted.subarray(1);
  const v = halfVector(odd);
  assert.ok(v instanceof Float32Array);
  assert.deepEqual([...v], [...decodeHalf(b)]);
});
