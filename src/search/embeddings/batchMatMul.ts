/**
 * A faster BatchMatMul for tfjs's wasm backend, as USE-lite runs it. The backend computes a matrix
 * product through XNNPACK only when it is one plain product (a batch of one, neither side
 * transposed); anything else (the attention's [texts, heads, 128, 128] products, and those with a
 * transposed side) goes through a plain loop that is ~20 times slower per flop on this model
 * (test/bench/embed.bench.ts, "matrix products"). Those took ~60% of a model run.
 *
 * This kernel computes such a product as one plain product per batch entry, each through the
 * backend's own kernel (so through XNNPACK), with the transposed sides transposed once into the
 * copy each entry needs anyway. The result is the same product; only the order of the additions
 * inside a dot product may differ, so vectors can differ from the plain loop's in the last bits
 * (~1e-7 of a component; rankings do not move: the eval's numbers are unchanged).
 */

/** The part of a tfjs tensor the kernel sees. */
interface TensorInfo {
  dataId: object;
  shape: number[];
  dtype: string;
}

/** The part of tfjs's wasm backend used here. */
interface WasmBackend {
  makeOutput(shape: number[], dtype: string): TensorInfo;
  typedArrayFromHeap(t: TensorInfo): Float32Array;
  disposeData(dataId: object): void;
}

interface KernelArgs {
  inputs: { a: TensorInfo; b: TensorInfo };
  backend: WasmBackend;
  attrs: { transposeA: boolean; transposeB: boolean };
}

type KernelFunc = (args: KernelArgs) => TensorInfo;

/** The part of tfjs's kernel registry used here. */
export interface KernelRegistry {
  getKernel(name: string, backend: string): { kernelFunc: KernelFunc; setupFunc?: unknown } | undefined;
  unregisterKernel(name: string, backend: string): void;
  registerKernel(config: { kernelName: string; backendName: string; kernelFunc: KernelFunc; setupFunc?: unknown }): void;
}

const size = (shape: readonly number[]): number => shape.reduce((a, b) => a * b, 1);

/**
 * Copies batch entry `entry` of `from` (rows × cols after the batch dimensions) into `to` as a
 * rows × cols matrix, or as its transpose (cols × rows) when `transpose`.
 */
function copyEntry(from: Float32Array, entry: number, rows: number, cols: number, transpose: boolean, to: Float32Array): void {
  const base = entry * rows * cols;
  if (!transpose) {
    to.set(from.subarray(base, base + rows * cols));
    return;
  }
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) to[c * rows + r] = from[base + r * cols + c]!;
}

/**
 * Replaces the wasm backend's BatchMatMul with one that sends batched and transposed products through
 * the fast path. The wasm backend must be registered (tf.ready() done). Returns false when the kernel
 * is not there (another tfjs build), leaving it as it was.
 */
export function useFastBatchMatMul(tf: KernelRegistry): boolean {
  const original = tf.getKernel('BatchMatMul', 'wasm');
  if (!original) return false;
  const plain = original.kernelFunc;
  const kernelFunc: KernelFunc = (args) => {
    const { inputs, backend, attrs } = args;
    const { a, b } = inputs;
    const batchA = size(a.shape.slice(0, -2));
    const batchB = size(b.shape.slice(0, -2));
    const batch = Math.max(batchA, batchB);
    const plainProduct = batch === 1 && !attrs.transposeA && !attrs.transposeB;
    // Broadcasting between different batch shapes, other dtypes: the backend's own way.
    const sameOrOne = (batchA === batch || batchA === 1) && (batchB === batch || batchB === 1) && a.shape.length === b.shape.length;
    if (plainProduct || a.dtype !== 'float32' || b.dtype !== 'float32' || !sameOrOne) return plain(args);

    const [aRows, aCols] = a.shape.slice(-2) as [number, number];
    const [bRows, bCols] = b.shape.slice(-2) as [number, number];
    const m = attrs.transposeA ? aCols : aRows;
    const k = attrs.transposeA ? aRows : aCols;
    const n = attrs.transposeB ? bRows : bCols;
    const batchShape = (batchA >= batchB ? a : b).shape.slice(0, -2);
    const out = backend.makeOutput([...batchShape, m, n], 'float32');
    for (let i = 0; i < batch; i++) {
      const left = backend.makeOutput([m, k], 'float32');
      const right = backend.makeOutput([k, n], 'float32');
      // Views of the heap are taken after every allocation: an allocation can grow (move) the heap.
      copyEntry(backend.typedArrayFromHeap(a), batchA === 1 ? 0 : i, aRows, aCols, attrs.transposeA, backend.typedArrayFromHeap(left));
      copyEntry(backend.typedArrayFromHeap(b), batchB === 1 ? 0 : i, bRows, bCols, attrs.transposeB, backend.typedArrayFromHeap(right));
      const product = plain({ inputs: { a: left, b: right }, backend, attrs: { transposeA: false, transposeB: false } });
      backend.typedArrayFromHeap(out).set(backend.typedArrayFromHeap(product), i * m * n);
      backend.disposeData(left.dataId);
      backend.disposeData(right.dataId);
      backend.disposeData(product.dataId);
    }
    return out;
  };
  tf.unregisterKernel('BatchMatMul', 'wasm');
  tf.registerKernel({ ...original, kernelName: 'BatchMatMul', backendName: 'wasm', kernelFunc });
  return true;
}
