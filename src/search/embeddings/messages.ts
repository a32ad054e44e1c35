/** Messages between the USE-lite provider and its child process (IPC, advanced serialization). */
export interface EmbedRequest {
  id: number;
  texts: string[];
}

/** `rss`: the child's resident memory when it answered (its memory where /proc is not available). */
export type EmbedResponse = ({ id: number; vectors: Float32Array[] } | { id: number; error: string }) & { rss?: number };

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
}
