/**
 * The embedding process's entry: loads Universal Sentence Encoder lite (tfjs on the wasm backend)
 * from local files and embeds texts on request over IPC. It runs as a child process, not a thread,
 * so its ~300 MiB leave with it when it is idle or ended, and never count against the editor's
 * extension host. Embedding takes ~80 ms of CPU per text; here it never blocks the server.
 *
 * It lives only as long as its parent's IPC channel: when the parent exits or dies (even killed),
 * the channel closes and this process exits, so no model is left running as an orphan.
 */
import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { format } from 'node:util';
import * as energeticCore from '@energetic-ai/core';
import { useFastBatchMatMul, type KernelRegistry } from './batchMatMul.js';
import type { EmbedRequest, EmbedResponse, WorkerConfig } from './messages.js';
import { SentencePiece, type Vocabulary } from './sentencePiece.js';
import { forwardOne, forwardWeights, type ForwardOps, type ForwardWeights, type Tensor } from './useLiteForward.js';

/** A tfjs model.json, as far as it is read here. */
interface ModelJson {
  weightsManifest: Array<{ paths: string[]; weights: unknown[] }>;
}

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

/** The model and its tokenizer. */
interface Model {
  graph: Awaited<ReturnType<Tfjs['loadGraphModel']>>;
  tokenizer: SentencePiece;
  /** The graph's weights for the forward pass of one text (useLiteForward.ts); undefined runs everything through the graph. */
  forward?: ForwardWeights;
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
const tf = energeticCore as unknown as Tfjs;

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
  tf.setWasmPaths(config.wasmDir.endsWith('/') ? config.wasmDir : `${config.wasmDir}/`);
  const vocabulary = readFile(join(config.modelDir, 'vocab.json'), 'utf8').then((text) => JSON.parse(text) as Vocabulary);
  vocabulary.catch(() => {});
  // The backend must be initialized before the model is loaded: loading runs tensor ops.
  await tf.ready();
  // Off only to measure the backend's own kernel against it (test/bench/embed.bench.ts).
  if (!config.plainRuns) useFastBatchMatMul(tf);
  const graph = await tf.loadGraphModel(localModel(config.modelDir));
  return { graph, tokenizer: new SentencePiece(await vocabulary), forward: config.plainRuns ? undefined : forwardOrGraph(graph.weights) };
}

/** The forward pass's weights, or undefined (every run through the graph) for a graph not shaped as USE-lite's. */
function forwardOrGraph(weights: Record<string, Tensor[]>): ForwardWeights | undefined {
  try {
    return forwardWeights(tf, weights);
  } catch (err) {
    process.stderr.write(`useLiteWorker: every text goes through the graph: ${(err as Error).message}\n`);
    return undefined;
  }
}

/**
 * The model's files as tfjs loads them, its weight shards read into one buffer. The file URL's
 * handler (@energetic-ai/core's) read each shard into a buffer of its own, then copied them all
 * into one: 27 MB more to copy, and to fault in, at every start of this process (a cold start
 * to the first vector went 1.0 → 0.85 s; a search's query waits for it).
 */
function localModel(dir: string): ModelHandler {
  return {
    load: async () => {
      const json = JSON.parse(await readFile(join(dir, 'model.json'), 'utf8')) as ModelJson;
      return tf.io.getModelArtifactsForJSON(json, async (manifest) => {
        const paths = manifest.flatMap((group) => group.paths);
        const files = await Promise.all(paths.map((path) => open(join(dir, path), 'r')));
        try {
          const sizes = await Promise.all(files.map(async (file) => (await file.stat()).size));
          const data = new Uint8Array(sizes.reduce((sum, size) => sum + size, 0));
          let at = 0;
          for (let i = 0; i < files.length; i++) {
            const end = at + sizes[i]!;
            while (at < end) {
              const { bytesRead } = await files[i]!.read(data, at, end - at, null);
              if (bytesRead === 0) throw new Error(`${paths[i]} is shorter than it was`);
              at += bytesRead;
            }
          }
          return [manifest.flatMap((group) => group.weights), data.buffer];
        } finally {
          await Promise.all(files.map((file) => file.close()));
        }
      });
    },
  };
}

/**
 * The vectors of some texts (their pieces, tokenized) in one run of the model: what
 * @energetic-ai/embeddings' embed does (its sparse input: a row per text, a column per piece),
 * read back as one Float32Array instead of nested arrays.
 */
async function embedBatch(model: Model, encodings: readonly number[][]): Promise<Float32Array[]> {
  // One text (a query, most often) without the graph's executor: ~5 ms less a run, the same vector
  // (useLiteForward.ts). The graph's padding is a piece id below 0, which the tokenizer never gives.
  if (encodings.length === 1 && model.forward && encodings[0]!.every((id) => id >= 0)) {
    const output = forwardOne(tf, model.forward, Int32Array.from(encodings[0]!));
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
    const output = await model.graph.executeAsync(inputs);
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
    // A run pads every text to its longest: texts of like length run together (the vectors do not
    // depend on the padding, nor on the order).
    const order = encodings.map((_, i) => i);
    if (!config.plainRuns) order.sort((a, b) => encodings[a]!.length - encodings[b]!.length);
    // A few texts a run of the model: that bounds memory, and a query never waits long behind it.
    const perCall = config.textsPerCall ?? TEXTS_PER_CALL;
    for (let i = 0; i < order.length; i += perCall) {
      const rows = order.slice(i, i + perCall);
      const out = await embedBatch(model, rows.map((k) => encodings[k]!));
      rows.forEach((k, j) => (vectors[k] = out[j]!));
    }
    return { id: request.id, vectors, rss: process.memoryUsage.rss() };
  } catch (err) {
    return { id: request.id, error: (err as Error).message ?? String(err), rss: process.memoryUsage.rss() };
  }
}
