/**
 * The embedding process's entry: loads Universal Sentence Encoder lite (tfjs on the wasm backend)
 * from local files and embeds texts on request over IPC. It runs as a child process, not a thread,
 * so its ~300 MiB leave with it when it is idle or ended, and never count against the editor's
 * extension host. Embedding takes ~80 ms of CPU per text; here it never blocks the server.
 *
 * It lives only as long as its parent's IPC channel: when the parent exits or dies (even killed),
 * the channel closes and this process exits, so no model is left running as an orphan.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { format } from 'node:util';
import * as energeticCore from '@energetic-ai/core';
import { EmbeddingsModel, type EmbeddingsModelData } from '@energetic-ai/embeddings';
import type { EmbedRequest, EmbedResponse, WorkerConfig } from './messages.js';

/** The part of tfjs used here. @energetic-ai/core bundles tfjs but its typings point at @tensorflow/*, which is not installed. */
interface Tfjs {
  loadGraphModel(url: string): Promise<EmbeddingsModelData['model']>;
  ready(): Promise<void>;
  setWasmPaths(prefix: string): void;
}
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
    const vectors: Float32Array[] = [];
    // One text at a time: batching does not make USE-lite faster, and it bounds memory.
    for (const text of request.texts) vectors.push(Float32Array.from(await model.embed(text)));
    return { id: request.id, vectors, rss: process.memoryUsage.rss() };
  } catch (err) {
    return { id: request.id, error: (err as Error).message ?? String(err), rss: process.memoryUsage.rss() };
  }
}
