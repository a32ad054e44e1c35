/**
 * useLiteForward.ts runs USE-lite on one text as tfjs operations instead of through the graph's
 * executor (a query's run ~5 ms shorter). Its vectors must be the graph's: on the search
 * evaluation's queries, the game atoms' texts and texts of every length up to the 128 pieces the
 * model reads, in this process; and through the model's own process, where a run of one text takes
 * the forward pass and a run of several the graph.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as energeticCore from '@energetic-ai/core';
import { useFastBatchMatMul, type KernelRegistry } from '../../src/search/embeddings/batchMatMul.js';
import { tfjsWasmDir, useLiteModelDir } from '../../src/search/embeddings/paths.js';
import { SentencePiece, type Vocabulary } from '../../src/search/embeddings/sentencePiece.js';
import { forwardOne, forwardWeights, type ForwardOps, type Tensor } from '../../src/search/embeddings/useLiteForward.js';
import { UseLiteProvider } from '../../src/search/embeddings/useLite.js';
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

test("the forward pass gives the graph's vector for every text it is given", async () => {
  tf.setWasmPaths(`${tfjsWasmDir()}/`);
  await tf.setBackend('wasm');
  await tf.ready();
  useFastBatchMatMul(tf);
  const dir = useLiteModelDir();
  const graph = await tf.loadGraphModel(`file://${join(dir, 'model.json')}`);
  const tokenizer = new SentencePiece(JSON.parse(await readFile(join(dir, 'vocab.json'), 'utf8')) as Vocabulary);
  const weights = forwardWeights(tf, graph.weights);

  const viaGraph = async (ids: number[]): Promise<Float32Array> => {
    const indices = new Int32Array(ids.length * 2);
    ids.forEach((_, column) => (indices[2 * column + 1] = column));
    const inputs = { indices: tf.tensor2d(indices, [ids.length, 2], 'int32'), values: tf.tensor1d(Int32Array.from(ids), 'int32') };
    const output = await graph.executeAsync(inputs);
    const data = await output.data();
    for (const t of [output, inputs.indices, inputs.values]) t.dispose();
    return data;
  };
  const viaForward = async (ids: number[]): Promise<Float32Array> => {
    const output = forwardOne(tf, weights, Int32Array.from(ids));
    assert.deepEqual(output.shape, [1, 512]);
    const data = await output.data();
    output.dispose();
    return data;
  };

  const long = tokenizer.encode(ATOM_TEXTS.join('\n'));
  const lengths = [1, 2, 3, 7, 16, 31, 64, 100, 127, 128].map((n) => long.slice(0, n));
  const all = [...QUERIES, ...ATOM_TEXTS].map((text) => tokenizer.encode(text).slice(0, 128)).concat(lengths);
  // Piece 0 is a piece like any other (the graph's padding is -1, its SparseToDense default): some texts have it.
  assert.ok(all.some((ids) => ids.includes(0)));
  let worst = 0;
  for (const ids of all) {
    assert.ok(ids.length > 0 && ids.every((id) => id >= 0));
    const a = await viaGraph(ids);
    const b = await viaForward(ids);
    worst = Math.max(worst, largestDifference(a, b));
  }
  assert.ok(worst <= TOLERANCE, `largest difference ${worst} over ${all.length} texts`);

  // A model of another shape is refused by name, not run wrongly.
  const { 'module/Embeddings_en': _dropped, ...others } = graph.weights;
  assert.throws(() => forwardWeights(tf, others), /USE-lite's graph has no module\/Embeddings_en/);
});

test("the model's process answers one text by the forward pass with the vector a run of several gives", async () => {
  const provider = new UseLiteProvider({ processes: 1 });
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
