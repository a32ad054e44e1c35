/**
 * USE-lite runs three ways: tfjs's graph (the model as shipped), the forward pass of
 * useLiteForward.ts (tfjs operations, for one text) and onnxruntime (useLiteOnnx.ts: the same pass
 * as an ONNX graph, what the model's process runs where onnxruntime ships). Their vectors must be
 * the graph's: on the search evaluation's queries, the game atoms' texts and texts of every length
 * up to the 128 pieces the model reads, in this process; and through the model's own process.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as energeticCore from '@energetic-ai/core';
import { useFastBatchMatMul, type KernelRegistry } from '../../src/search/embeddings/batchMatMul.js';
import { tfjsWasmDir, useLiteModelDir } from '../../src/search/embeddings/paths.js';
import { createRequire } from 'node:module';
import { SentencePiece, type Vocabulary } from '../../src/search/embeddings/sentencePiece.js';
import { forwardOne, forwardWeights, type ForwardOps, type Tensor } from '../../src/search/embeddings/useLiteForward.js';
import { UseLiteProvider } from '../../src/search/embeddings/useLite.js';
import { readModelFiles } from '../../src/search/embeddings/modelFiles.js';
import { onnxRuntimeModule, onnxRuntimeShipped } from '../../src/search/embeddings/paths.js';
import { hostWeights, OnnxUseLite, type OnnxRuntime } from '../../src/search/embeddings/useLiteOnnx.js';
import { embeddingText } from '../../src/atoms/signature.js';
import { validateDraft } from '../../src/atoms/validate.js';
import { GAME_ATOMS, GAME_QUERIES, HELD_OUT_QUERIES } from '../fixtures/game-atoms.js';

interface Tfjs extends KernelRegistry, ForwardOps {
  setWasmPaths(prefix: string): void;
  setBackend(name: string): Promise<boolean>;
  ready(): Promise<void>;
  loadGraphModel(url: string): Promise<{ executeAsync(inputs: Record<string, Tensor>): Promise<Tensor>; weights: Record<string, Tensor[]> }>;
  tensor2d(values: Int32Array, shape: [number, number], dtype: 'int32'): Tensor;
}
const tf = energeticCore as unknown as Tfjs;

/** The largest difference between two vectors, component by component. */
function largestDifference(a: Float32Array, b: Float32Array): number {
  assert.equal(a.length, b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
  return worst;
}

const TOLERANCE = 1e-5;
const QUERIES = [...GAME_QUERIES, ...HELD_OUT_QUERIES].map((q) => q.query);
const ATOM_TEXTS = GAME_ATOMS.map((draft) => embeddingText({ ...validateDraft(draft), version: 1 } as Parameters<typeof embeddingText>[0]));

/** The graph, the tokenizer and the texts every way is held to: loaded once for the tests below. */
const loaded = (async () => {
  tf.setWasmPaths(`${tfjsWasmDir()}/`);
  await tf.setBackend('wasm');
  await tf.ready();
  useFastBatchMatMul(tf);
  const dir = useLiteModelDir();
  const graph = await tf.loadGraphModel(`file://${join(dir, 'model.json')}`);
  const tokenizer = new SentencePiece(JSON.parse(await readFile(join(dir, 'vocab.json'), 'utf8')) as Vocabulary);
  const viaGraph = async (ids: number[]): Promise<Float32Array> => {
    const indices = new Int32Array(ids.length * 2);
    ids.forEach((_, column) => (indices[2 * column + 1] = column));
    const inputs = { indices: tf.tensor2d(indices, [ids.length, 2], 'int32'), values: tf.tensor1d(Int32Array.from(ids), 'int32') };
    const output = await graph.executeAsync(inputs);
    const data = await output.data();
    for (const t of [output, inputs.indices, inputs.values]) t.dispose();
    return data;
  };
  const long = tokenizer.encode(ATOM_TEXTS.join('\n'));
  const lengths = [1, 2, 3, 7, 16, 31, 64, 100, 127, 128].map((n) => long.slice(0, n));
  const texts = [...QUERIES, ...ATOM_TEXTS].map((text) => tokenizer.encode(text).slice(0, 128)).concat(lengths);
  const expected: Float32Array[] = [];
  for (const ids of texts) expected.push(await viaGraph(ids));
  return { graph, texts, expected };
})();

test("the forward pass gives the graph's vector for every text it is given", async () => {
  const { graph, texts: all, expected } = await loaded;
  const weights = forwardWeights((t, shape) => tf.reshape(t, shape), graph.weights);
  const viaForward = async (ids: number[]): Promise<Float32Array> => {
    const output = forwardOne(tf, weights, Int32Array.from(ids));
    assert.deepEqual(output.shape, [1, 512]);
    const data = await output.data();
    output.dispose();
    return data;
  };

  // Piece 0 is a piece like any other (the graph's padding is -1, its SparseToDense default): some texts have it.
  assert.ok(all.some((ids) => ids.includes(0)));
  let worst = 0;
  for (const [i, ids] of all.entries()) {
    assert.ok(ids.length > 0 && ids.every((id) => id >= 0));
    worst = Math.max(worst, largestDifference(expected[i]!, await viaForward(ids)));
  }
  assert.ok(worst <= TOLERANCE, `largest difference ${worst} over ${all.length} texts`);

  // A model of another shape is refused by name, not run wrongly.
  const { 'module/Embeddings_en': _dropped, ...others } = graph.weights;
  assert.throws(() => forwardWeights((t, shape) => tf.reshape(t, shape), others), /USE-lite's graph has no module\/Embeddings_en/);
});

test("onnxruntime gives the graph's vector for every text it is given", async () => {
  assert.ok(onnxRuntimeShipped(), 'onnxruntime-node ships a library for this platform (npm ci installs it)');
  const { texts, expected } = await loaded;
  const ort = createRequire(__filename)(onnxRuntimeModule()) as OnnxRuntime;
  const files = await readModelFiles(useLiteModelDir());
  for (const threads of [1, 2]) {
    const onnx = await OnnxUseLite.create(ort, files, threads);
    try {
      let worst = 0;
      for (const [i, ids] of texts.entries()) {
        const vector = await onnx.embed(Int32Array.from(ids));
        assert.equal(vector.length, 512);
        worst = Math.max(worst, largestDifference(expected[i]!, vector));
      }
      assert.ok(worst <= TOLERANCE, `${threads} thread(s): largest difference ${worst} over ${texts.length} texts`);
    } finally {
      await onnx.dispose();
    }
  }
  // Weights it cannot read are refused by name, not read wrongly.
  const quantized = structuredClone(files.json);
  quantized.weightsManifest[0]!.weights[0]!.quantization = { dtype: 'uint8' };
  assert.throws(() => hostWeights(quantized, files.shards), /only float32 and int32 are read/);
  assert.throws(() => hostWeights(files.json, files.shards.subarray(0, 1000)), /the model's weight files end before/);
});

test('the model process runs on onnxruntime, with the vectors tfjs gives, a text alone or in a run', async () => {
  const onnx = new UseLiteProvider({ processes: 1 });
  const tfjsRun = new UseLiteProvider({ processes: 1, runtime: 'tfjs' });
  try {
    const texts = [QUERIES[0]!, QUERIES[7]!, ATOM_TEXTS[3]!, 'jump', ...ATOM_TEXTS.slice(10, 22)];
    const [a, b] = await Promise.all([onnx.embed(texts), tfjsRun.embed(texts)]);
    assert.equal(onnx.memory().runtime, 'onnxruntime');
    assert.equal(tfjsRun.memory().runtime, 'tfjs');
    texts.forEach((text, i) => assert.ok(largestDifference(a[i]!, b[i]!) <= TOLERANCE, `${JSON.stringify(text.slice(0, 40))}: ${largestDifference(a[i]!, b[i]!)}`));
    const [alone] = await onnx.embed([texts[2]!]);
    assert.ok(largestDifference(alone!, a[2]!) <= TOLERANCE);
  } finally {
    await Promise.all([onnx.dispose(), tfjsRun.dispose()]);
  }
});

test("tfjs's process answers one text by the forward pass with the vector a run of several gives", async () => {
  const provider = new UseLiteProvider({ processes: 1, runtime: 'tfjs' });
  try {
    for (const text of [QUERIES[0]!, QUERIES[7]!, ATOM_TEXTS[3]!, 'jump']) {
      const [alone] = await provider.embed([text]); // one text: the forward pass
      const [inRun] = await provider.embed([text, text]); // two: the graph
      assert.ok(largestDifference(alone!, inRun!) <= TOLERANCE, `${JSON.stringify(text.slice(0, 40))}: ${largestDifference(alone!, inRun!)}`);
    }
  } finally {
    await provider.dispose();
  }
});
