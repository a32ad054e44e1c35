/**
 * Embedding providers turn text into vectors for semantic search. Search only sees this
 * interface, so a faster or better model (say a transformers.js model a user points to) can be
 * added beside the default without touching ranking or indexing.
 */
export interface EmbeddingProvider {
  /**
   * Names the model and anything that changes its vectors. Stored with every vector: when it
   * differs from the stored one, that vector is stale and the atom is embedded again.
   */
  readonly modelId: string;
  /** Length of every vector this provider returns. */
  readonly dimensions: number;
  /** One vector per text, in order. Rejects with an Error whose message says what to do. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  /**
   * Someone is about to search (a search box was opened): start loading the model now, so the query
   * typed meanwhile finds it up. Optional; loads nothing more than the first embed would.
   */
  warm?(): void;
  /** Frees what the provider holds (a process, a model). Safe to call twice. */
  dispose(): Promise<void>;
  /** The memory of the process the model runs in, when it runs apart from this one (get_status). */
  memory?(): EmbedderMemory;
}

/** An embedding model's process memory, apart from the server's. */
export interface EmbedderMemory {
  /** Whether the model's process is running now (it is started on demand, ended when idle). */
  running: boolean;
  pid?: number;
  /** Resident memory now, in bytes (from /proc, else as the process last reported it). */
  rssBytes?: number;
  /** Peak resident memory of the current process, in bytes (Linux only). */
  peakBytes?: number;
  /** What runs the model in that process, once it has answered (USE-lite: onnxruntime, or tfjs where onnxruntime does not load). */
  runtime?: string;
}

/** Cosine similarity of two vectors of the same length. */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
