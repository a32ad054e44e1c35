/** Messages between the USE-lite provider and its worker thread. */
export interface EmbedRequest {
  id: number;
  texts: string[];
}

export type EmbedResponse = { id: number; vectors: Float32Array[] } | { id: number; error: string };

/** Passed as workerData when the worker starts. */
export interface WorkerConfig {
  modelDir: string;
  wasmDir: string;
}
