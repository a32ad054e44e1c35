/**
 * Worker thread entry: loads Universal Sentence Encoder lite (tfjs on the wasm backend) from
 * local files and embeds texts on request. Embedding takes ~80 ms of CPU per text; running it
 * here keeps the extension host and the MCP server responsive meanwhile.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { format } from 'node:util';
import * as energeticCore from '@energetic-ai/core';
import { EmbeddingsModel, type EmbeddingsModelData } from '@energetic-ai/embeddings';
import type { EmbedRequest, EmbedResponse, WorkerConfig } from './protocol.js';

/** The part of tfjs used here. @energetic-ai/core bundles tfjs but its typings point at @tensorflow/*, which is not installed. */
interface Tfjs {
  loadGraphModel(url: string): Promise<EmbeddingsModelData['model']>;
  ready(): Promise<void>;
  setWasmPaths(prefix: string): void;
}
const tf = energeticCore as unknown as Tfjs;

// A worker's console.log goes to the process's stdout, which is the MCP stdio channel in the CLI.
console.log = console.info = (...args: unknown[]) => process.stderr.write(`${format(...args)}\n`);

const port = parentPort;
if (!port) throw new Error('useLiteWorker must run in a worker thread');
const config = workerData as WorkerConfig;

async function loadModel(): Promise<EmbeddingsModel> {
  tf.setWasmPaths(config.wasmDir.endsWith('/') ? config.wasmDir : `${config.wasmDir}/`);
  const modelUrl = `file://${join(config.modelDir, 'model.json')}`;
  const vocabulary = readFile(join(config.modelDir, 'vocab.json'), 'utf8').then((text) => JSON.parse(text));
  vocabulary.catch(() => {});
  // The backend must be initialized before the model is loaded: loading runs tensor ops.
  await tf.ready();
  const model = await tf.loadGraphModel(modelUrl);
  return new EmbeddingsModel({ model, vocabulary: await vocabulary });
}

const modelPromise = loadModel();
// Reported per request below; this only keeps an early failure from being "unhandled".
modelPromise.catch(() => {});

port.on('message', (request: EmbedRequest) => {
  void handle(request).then((response) => {
    const transfer = 'vectors' in response ? response.vectors.map((v) => v.buffer as ArrayBuffer) : [];
    port.postMessage(response, transfer);
  });
});

async function handle(request: EmbedRequest): Promise<EmbedResponse> {
  try {
    const model = await modelPromise;
    const vectors: Float32Array[] = [];
    // One text at a time: batching does not make USE-lite faster, and it bounds memory.
    for (const text of request.texts) vectors.push(Float32Array.from(await model.embed(text)));
    return { id: request.id, vectors };
  } catch (err) {
    return { id: request.id, error: (err as Error).message ?? String(err) };
  }
}
