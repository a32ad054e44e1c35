/**
 * The default embedding provider: Universal Sentence Encoder lite (512 dimensions), whose
 * weights ship inside the extension, so it works offline straight after install. The model
 * runs in a worker thread started on the first request, never at activation.
 */
import { Worker } from 'node:worker_threads';
import type { EmbeddingProvider } from './provider.js';
import type { EmbedRequest, EmbedResponse, WorkerConfig } from './protocol.js';
import { tfjsWasmDir, useLiteModelDir, useLiteWorkerScript } from './paths.js';

export const USE_LITE_MODEL_ID = 'use-lite-512@energetic-ai-0.2.0';

export interface UseLiteOptions {
  /** Folder with model.json, the weight shards and vocab.json; defaults to the shipped model. */
  modelDir?: string;
  /** Folder with the tfjs wasm binaries; defaults to the shipped ones. */
  wasmDir?: string;
}

interface Pending {
  resolve(vectors: Float32Array[]): void;
  reject(err: Error): void;
}

export class UseLiteProvider implements EmbeddingProvider {
  readonly modelId = USE_LITE_MODEL_ID;
  readonly dimensions = 512;
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private disposed = false;

  constructor(private readonly options: UseLiteOptions = {}) {}

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (this.disposed) throw new Error('the embedding provider was disposed');
    if (texts.length === 0) return [];
    const worker = this.ensureWorker();
    const id = this.nextId++;
    const request: EmbedRequest = { id, texts: [...texts] };
    return new Promise<Float32Array[]>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage(request);
    });
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    const worker = this.worker;
    this.worker = undefined;
    this.failAll(new Error('the embedding provider was disposed'));
    if (worker) await worker.terminate();
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const config: WorkerConfig = {
      modelDir: this.options.modelDir ?? useLiteModelDir(),
      wasmDir: this.options.wasmDir ?? tfjsWasmDir(),
    };
    const script = useLiteWorkerScript();
    const worker =
      'file' in script
        ? new Worker(script.file, { workerData: config })
        : new Worker(script.evalSource, { eval: true, workerData: config });
    worker.on('message', (response: EmbedResponse) => this.settle(response));
    worker.on('error', (err) => this.crashed(worker, err));
    worker.on('exit', (code) => this.crashed(worker, new Error(`the embedding worker exited (code ${code})`)));
    // An idle worker must not keep the process (CLI, tests) alive; it is ref'd while a request waits.
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private settle(response: EmbedResponse): void {
    const waiting = this.pending.get(response.id);
    if (!waiting) return;
    this.pending.delete(response.id);
    if (this.pending.size === 0) this.worker?.unref();
    if ('error' in response) {
      waiting.reject(
        new Error(`the embedding model failed: ${response.error}. Reinstall the extension if its files are damaged.`),
      );
    } else {
      waiting.resolve(response.vectors);
    }
  }

  private crashed(worker: Worker, err: Error): void {
    if (this.worker !== worker) return;
    // The next request starts a fresh worker.
    this.worker = undefined;
    this.failAll(new Error(`the embedding worker stopped: ${err.message}`));
  }

  private failAll(err: Error): void {
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const p of waiting) p.reject(err);
  }
}
