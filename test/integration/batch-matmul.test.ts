/**
 * batchMatMul.ts computes the wasm backend's batched and transposed matrix products as plain ones
 * (through XNNPACK). Same products as the backend's own kernel: every shape the model uses, the
 * transposes, a batch broadcast against a single matrix, and shapes it leaves to the backend.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as energeticCore from '@energetic-ai/core';
import { useFastBatchMatMul, type KernelRegistry } from '../../src/search/embeddings/batchMatMul.js';
import { tfjsWasmDir } from '../../src/search/embeddings/paths.js';

interface Tensor {
  data(): Promise<Float32Array>;
  shape: number[];
}
interface Tfjs extends KernelRegistry {
  setWasmPaths(prefix: string): void;
  ready(): Promise<void>;
  setBackend(name: string): Promise<boolean>;
  getBackend(): string;
  tensor(values: Float32Array, shape: number[]): Tensor;
  matMul(a: Tensor, b: Tensor, transposeA: boolean, transposeB: boolean): Tensor;
}
const tf = energeticCore as unknown as Tfjs;

/** Deterministic values in [-1, 1). */
function values(count: number, seed: number): Float32Array {
  const out = new Float32Array(count);
  let s = seed;
  for (let i = 0; i < count; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    out[i] = s / 1073741824 - 1;
  }
  return out;
}

const CASES: Array<{ a: number[]; b: number[]; tA: boolean; tB: boolean }> = [
  { a: [8, 4, 128, 64], b: [8, 4, 128, 64], tA: false, tB: true }, // the attention's scores
  { a: [8, 4, 128, 128], b: [8, 4, 128, 64], tA: false, tB: false }, // scores times values
  { a: [2, 3, 5, 7], b: [2, 3, 5, 4], tA: true, tB: false },
  { a: [2, 3, 7, 5], b: [2, 3, 4, 7], tA: true, tB: true },
  { a: [1, 6, 5], b: [4, 5, 3], tA: false, tB: false }, // one matrix against a batch
  { a: [4, 6, 5], b: [1, 3, 5], tA: false, tB: true },
  { a: [1, 9, 6], b: [1, 9, 2], tA: true, tB: false }, // a batch of one, transposed
  { a: [64, 32], b: [32, 16], tA: false, tB: false }, // the plain product: the backend's own path
  { a: [3, 4, 5], b: [5, 2], tA: false, tB: false }, // ranks differ: the backend's own way
];

test('batched and transposed products through the fast path equal the wasm backend\'s own', async () => {
  tf.setWasmPaths(`${tfjsWasmDir()}/`);
  await tf.setBackend('wasm');
  await tf.ready();
  assert.equal(tf.getBackend(), 'wasm');
  const run = () =>
    Promise.all(
      CASES.map((c, i) => {
        const a = tf.tensor(values(c.a.reduce((x, y) => x * y, 1), 2 * i + 1), c.a);
        const b = tf.tensor(values(c.b.reduce((x, y) => x * y, 1), 2 * i + 2), c.b);
        const product = tf.matMul(a, b, c.tA, c.tB);
        return product.data().then((data) => ({ shape: product.shape, data }));
      }),
    );
  const plain = await run();
  assert.equal(useFastBatchMatMul(tf), true);
  const fast = await run();
  CASES.forEach((c, i) => {
    const label = `${JSON.stringify(c.a)} x ${JSON.stringify(c.b)} tA=${c.tA} tB=${c.tB}`;
    assert.deepEqual(fast[i]!.shape, plain[i]!.shape, label);
    let worst = 0;
    for (let k = 0; k < plain[i]!.data.length; k++) worst = Math.max(worst, Math.abs(fast[i]!.data[k]! - plain[i]!.data[k]!));
    // Sums of up to 128 products of values in [-1, 1): only the order of the additions differs.
    assert.ok(worst < 1e-4, `${label}: differs by ${worst}`);
  });
});
