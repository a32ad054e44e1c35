/**
 * Where the Universal Sentence Encoder lite files are. Bundled (the extension, the CLI), the
 * model, the tfjs wasm binaries and the worker script sit in dist/ beside the bundle, so an
 * air-gapped install works with nothing downloaded. Run from source (tsx), they come from
 * node_modules and the worker is the TypeScript file itself.
 */
import { join } from 'node:path';

const bundled = process.env.ATOMIC_BUNDLED === '1';
/** The repository's node_modules, seen from src/store/embeddings/ (only used when not bundled). */
const nodeModules = join(__dirname, '..', '..', '..', 'node_modules');

/** Folder holding model.json, its weight shards and vocab.json. */
export function useLiteModelDir(): string {
  return bundled ? join(__dirname, 'models', 'use-lite') : join(nodeModules, '@energetic-ai', 'model-embeddings-en', 'dist');
}

/** Folder holding tfjs-backend-wasm*.wasm. */
export function tfjsWasmDir(): string {
  return bundled ? __dirname : join(nodeModules, '@energetic-ai', 'core', 'dist');
}

/** How to start the embedding worker: a script path, or source to eval (tsx from source). */
export function useLiteWorkerScript(): { file: string } | { evalSource: string } {
  if (bundled) return { file: join(__dirname, 'embedding-worker.js') };
  const entry = join(__dirname, 'useLiteWorker.ts');
  // Workers do not inherit tsx's loader hooks; register them inside the worker first.
  return { evalSource: `require('tsx/cjs'); require(${JSON.stringify(entry)});` };
}
