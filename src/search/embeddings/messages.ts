/** Messages between the USE-lite provider and its child process (IPC, advanced serialization). */
export interface EmbedRequest {
  id: number;
  texts: string[];
}

/** What runs the model in its process: onnxruntime where it loads (useLiteOnnx.ts), else tfjs's wasm backend. */
export type EmbedRuntime = 'onnxruntime' | 'tfjs';

/** `rss`: the child's resident memory when it answered (its memory where /proc is not available). */
export type EmbedResponse = ({ id: number; vectors: Float32Array[]; runtime: EmbedRuntime } | { id: number; error: string }) & { rss?: number };

/** Passed as the child's first argument (JSON) when it starts. */
export interface WorkerConfig {
  modelDir: string;
  wasmDir: string;
  /** Texts a model run (default 8); 1 is how it ran before (the embed bench compares them). */
  textsPerCall?: number;
  /**
   * Runs as before issue 38's second pass: the wasm backend's own BatchMatMul (not batchMatMul.ts's),
   * every piece of a text sent, texts in arrival order. Only the embed bench sets it, to compare.
   */
  plainRuns?: boolean;
  /**
   * What should run the model: onnxruntime (tfjs where it then does not load) when its library
   * ships for this platform, else tfjs; tfjs also where asked for (the embed bench compares them).
   */
  runtime: EmbedRuntime;
  /** onnxruntime's threads for a run (default 1). */
  threads?: number;
}
