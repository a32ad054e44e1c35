/**
 * The embedding process's entry: loads Universal Sentence Encoder lite from local files and embeds
 * texts on request over IPC. onnxruntime runs it where its library ships (useLiteOnnx.ts: ~9 ms a
 * 128-piece text on two threads), else tfjs on its wasm backend (~57 ms). It runs as a child
 * process, not a thread, so its memory leaves with it when it is idle or ended, and never counts
 * against the editor's extension host; the model's work never blocks the server.
 *
 * It lives only as long as its parent's IPC channel: when the parent exits or dies (even killed),
 * the channel closes and this process exits, so no model is left running as an orphan.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { format } from 'node:util';
import { createRequire } from 'node:module';
import { useFastBatchMatMul, type KernelRegistry } from './batchMatMul.js';
import type { EmbedRequest, EmbedResponse, WorkerConfig } from './messages.js';
import { onnxRuntimeModule } from './paths.js';
import { SentencePiece, type Vocabulary } from './sentencePiece.js';
import { forwardOne, forwardWeights, type ForwardOps, type ForwardWeights, type Tensor } from './useLiteForward.js';
import { readModelFiles, type ModelFiles, type ModelJson } from './modelFiles.js';
import { OnnxUseLite, type OnnxRuntime } from './useLiteOnnx.js';
import { withFallback, type ModelRuns } from './fallbackRuns.js';

/** tfjs's IOHandler: what loadGraphModel takes instead of a URL. */
interface ModelHandler {
  load(): Promise<unknown>;
}

/** The part of tfjs used here. @energetic-ai/core bundles tfjs but its typings point at @tensorflow/*, which is not installed. */
interface Tfjs extends KernelRegistry, ForwardOps {
  loadGraphModel(model: string | ModelHandler): Promise<{ executeAsync(inputs: Record<string, Tensor>): Promise<Tensor>; weights: Record<string, Tensor[]> }>;
  io: { getModelArtifactsForJSON(json: ModelJson, loadWeights: (manifest: ModelJson['weightsManifest']) => Promise<[unknown[], ArrayBuffer]>): Promise<unknown> };
  ready(): Promise<void>;
  setWasmPaths(prefix: string): void;
  tensor2d(values: Int32Array, shape: [number, number], dtype: 'int32'): Tensor;
}

type Graph = Awaited<ReturnType<Tfjs['loadGraphModel']>>;

/** The model and its tokenizer. */
interface Model {
  tokenizer: SentencePiece;
  /** What runs the model: onnxruntime where it loads and runs (useLiteOnnx.ts), else tfjs. */
  runs: ModelRuns;
}

/** USE-lite's vectors are this long. */
const DIMENSIONS = 512;
/**
 * Texts run through the model in one call. Measured (test/bench/embed.bench.ts): a call costs
 * ~10 ms of graph overhead whatever its texts, so several texts a call save that; the vectors are
 * the very ones of one text a call (each text is its own row of the model's sparse input).
 */
const TEXTS_PER_CALL = 8;
/**
 * The model reads a text's first 128 pieces (its graph's ClipToMaxLength): the vector of a longer
 * text is, bit for bit, that of its first 128 pieces, so only those are sent (~15% of a run's CPU
 * went to carrying the rest of a 2 KB atom's ~600 pieces through the graph's sparse input).
 */
const MAX_PIECES = 128;
/**
 * tfjs (@energetic-ai/core), loaded only where onnxruntime does not run the model: its module alone
 * is megabytes of code to evaluate at this process's start.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a require esbuild bundles, evaluated on first call only
const tfjs = (): Tfjs => require('@energetic-ai/core') as Tfjs;

// Nothing of this process goes to stdout (the parent pipes it to its stderr anyway: its own
// stdout may be the MCP stdio channel).
console.log = console.info = (...args: unknown[]) => process.stderr.write(`${format(...args)}\n`);

const send = process.send?.bind(process);
if (!send) {
  process.stderr.write('useLiteWorker must be started by the embedding provider (child_process.fork with an IPC channel)\n');
  process.exit(2);
}
// The parent is gone (exited, crashed or killed): nobody will ask for vectors any more.
process.on('disconnect', () => process.exit(0));

const config = JSON.parse(process.argv[2] ?? '{}') as WorkerConfig;

async function loadModel(): Promise<Model> {
  const vocabulary = readFile(join(config.modelDir, 'vocab.json'), 'utf8').then((text) => JSON.parse(text) as Vocabulary);
  vocabulary.catch(() => {});
  const files = readModelFiles(config.modelDir);
  files.catch(() => {});
  const onnx = config.runtime === 'onnxruntime' ? await loadOnnx(files) : undefined;
  // The files read again if onnxruntime ever fails a run: the first read's 27 MB go once its session holds the weights.
  const onTfjs = async (): Promise<ModelRuns> => ({ runtime: 'tfjs', run: await loadTfjs(await readModelFiles(config.modelDir)) });
  const runs = onnx
    ? withFallback({ runtime: 'onnxruntime', run: onnxRuns(onnx) }, onTfjs, (message) => process.stderr.write(`useLiteWorker: ${message} (tfjs's wasm backend)\n`))
    : { runtime: 'tfjs' as const, run: await loadTfjs(await files) };
  return { tokenizer: new SentencePiece(await vocabulary), runs };
}

/**
 * USE-lite in onnxruntime (useLiteOnnx.ts), or undefined where onnxruntime is not shipped for this
 * platform or does not load (said on stderr): then tfjs runs it, as it did before onnxruntime.
 */
async function loadOnnx(files: Promise<ModelFiles>): Promise<OnnxUseLite | undefined> {
  let ort: OnnxRuntime;
  try {
    ort = createRequire(__filename)(onnxRuntimeModule()) as OnnxRuntime;
  } catch (err) {
    process.stderr.write(`useLiteWorker: onnxruntime did not load (${(err as Error).message.split('\n')[0]}); the model runs on tfjs's wasm backend, several times slower\n`);
    return undefined;
  }
  const loaded = await files;
  try {
    return await OnnxUseLite.create(ort, loaded, config.threads ?? 1);
  } catch (err) {
    process.stderr.write(`useLiteWorker: onnxruntime refused the model (${(err as Error).message}); it runs on tfjs's wasm backend\n`);
    return undefined;
  }
}

/** Runs on onnxruntime: a text a run, one after another (its threads share each run's products). */
function onnxRuns(onnx: OnnxUseLite): ModelRuns['run'] {
  return async (encodings) => {
    const vectors: Float32Array[] = [];
    for (const ids of encodings) vectors.push(await onnx.embed(Int32Array.from(ids)));
    return vectors;
  };
}

/** USE-lite in tfjs on its wasm backend: the graph, and the forward pass for a run of one text. */
async function loadTfjs(files: ModelFiles): Promise<ModelRuns['run']> {
  const tf = tfjs();
  tf.setWasmPaths(config.wasmDir.endsWith('/') ? config.wasmDir : `${config.wasmDir}/`);
  // The backend must be initialized before the model is loaded: loading runs tensor ops.
  await tf.ready();
  // Off only to measure the backend's own kernel against it (test/bench/embed.bench.ts).
  if (!config.plainRuns) useFastBatchMatMul(tf);
  const graph = await tf.loadGraphModel(localModel(tf, files));
  const forward = config.plainRuns ? undefined : forwardOrGraph(tf, graph.weights);
  return (encodings) => embedBatch(tf, graph, forward, encodings);
}

/** The forward pass's weights, or undefined (every run through the graph) for a graph not shaped as USE-lite's. */
function forwardOrGraph(tf: Tfjs, weights: Record<string, Tensor[]>): ForwardWeights | undefined {
  try {
    return forwardWeights((t, shape) => tf.reshape(t, shape), weights);
  } catch (err) {
    process.stderr.write(`useLiteWorker: every text goes through the graph: ${(err as Error).message}\n`);
    return undefined;
  }
}

/** The model's files as tfjs loads them (tfjs's IOHandler). */
function localModel(tf: Tfjs, files: ModelFiles): ModelHandler {
  return {
    load: () => tf.io.getModelArtifactsForJSON(files.json, async (manifest) => [manifest.flatMap((group) => group.weights), files.shards.buffer as ArrayBuffer]),
  };
}

/**
 * The vectors of some texts (their pieces, tokenized) in one run of the model: what
 * @energetic-ai/embeddings' embed does (its sparse input: a row per text, a column per piece),
 * read back as one Float32Array instead of nested arrays.
 */
async function embedBatch(tf: Tfjs, graph: Graph, forward: ForwardWeights | undefined, encodings: readonly number[][]): Promise<Float32Array[]> {
  // One text (a query, most often) without the graph's executor: ~5 ms less a run, the same vector
  // (useLiteForward.ts). The graph's padding is a piece id below 0, which the tokenizer never gives.
  if (encodings.length === 1 && forward && encodings[0]!.every((id) => id >= 0)) {
    const output = forwardOne(tf, forward, Int32Array.from(encodings[0]!));
    try {
      return [(await output.data()).slice(0, DIMENSIONS)];
    } finally {
      output.dispose();
    }
  }
  const count = encodings.reduce((sum, e) => sum + e.length, 0);
  const indices = new Int32Array(count * 2);
  const values = new Int32Array(count);
  let k = 0;
  encodings.forEach((ids, row) => {
    ids.forEach((id, column) => {
      indices[2 * k] = row;
      indices[2 * k + 1] = column;
      values[k++] = id;
    });
  });
  const inputs = { indices: tf.tensor2d(indices, [count, 2], 'int32'), values: tf.tensor1d(values, 'int32') };
  try {
    const output = await graph.executeAsync(inputs);
    const flat = await output.data();
    output.dispose();
    return encodings.map((_, row) => flat.slice(row * DIMENSIONS, (row + 1) * DIMENSIONS));
  } finally {
    inputs.indices.dispose();
    inputs.values.dispose();
  }
}

const modelPromise = loadModel();
// Reported per request below; this only keeps an early failure from being "unhandled".
modelPromise.catch(() => {});

// Requests are handled one after another: the model is single-threaded anyway, and a queue
// bounds memory to one request's tensors.
let queue = Promise.resolve();
process.on('message', (request: EmbedRequest) => {
  queue = queue.then(async () => {
    const response = await handle(request);
    // The channel can close between the check and the write (the parent closed while this
    // embedded): with a callback the failed write is this one's to handle, not an uncaught
    // 'error' that printed a stack to the parent's log. Nobody is left to answer: exit.
    if (process.connected) send(response, undefined, {}, (err) => err && process.exit(0));
  });
});

async function handle(request: EmbedRequest): Promise<EmbedResponse> {
  try {
    const model = await modelPromise;
    const vectors: Float32Array[] = new Array<Float32Array>(request.texts.length);
    const encodings = request.texts.map((t) => (config.plainRuns ? model.tokenizer.encode(t) : model.tokenizer.encode(t).slice(0, MAX_PIECES)));
    // Neither runtime has a vector for no pieces at all (the graph refuses them, a pass over none is NaN).
    if (encodings.some((ids) => ids.length === 0)) throw new Error('an empty text has no pieces to embed');
    // A run pads every text to its longest: texts of like length run together (the vectors do not
    // depend on the padding, nor on the order).
    const order = encodings.map((_, i) => i);
    if (!config.plainRuns) order.sort((a, b) => encodings[a]!.length - encodings[b]!.length);
    // A few texts a run of the model: that bounds memory, and a query never waits long behind it.
    const perCall = config.textsPerCall ?? TEXTS_PER_CALL;
    for (let i = 0; i < order.length; i += perCall) {
      const rows = order.slice(i, i + perCall);
      const out = await model.runs.run(rows.map((k) => encodings[k]!));
      rows.forEach((k, j) => (vectors[k] = out[j]!));
    }
    return { id: request.id, vectors, runtime: model.runs.runtime, rss: process.memoryUsage.rss() };
  } catch (err) {
    return { id: request.id, error: (err as Error).message ?? String(err), rss: process.memoryUsage.rss() };
  }
}
