/**
 * The `keyword` choice of atomicCoding.search.embeddingProvider: an embedding provider that never loads a
 * model. Search treats its refusal like an unavailable model and ranks by words alone (MiniSearch), so
 * nothing heavy is loaded or run, on machines where that matters more than paraphrase matching.
 */
import type { EmbeddingProvider } from './provider.js';

export class KeywordOnlyProvider implements EmbeddingProvider {
  readonly modelId = 'none (keyword search)';
  readonly dimensions = 0;

  async embed(): Promise<Float32Array[]> {
    throw new Error('keyword search only (the setting atomicCoding.search.embeddingProvider is "keyword")');
  }

  async dispose(): Promise<void> {}
}
