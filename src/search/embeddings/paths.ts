/**
 * Where the Universal Sentence Encoder lite files are. Bundled (the extension, the CLI), the
 * model, the tfjs wasm binaries and the embedding process's script sit in dist/ beside the
 * bundle, so an air-gapped install works with nothing downloaded. Run from source (tsx), they come
 * from node_modules and the process runs the TypeScript file itself through tsx's loader.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const bundled = process.env.ATOMIC_BUNDLED === '1';
/** The repository's node_modules, seen from src/search/embeddings/ (only used when not bundled). */
const nodeModules = join(__dirname, '..', '..', '..', 'node_modules');

/** Folder holding model.json, its weight shards and vocab.json. */
export function useLiteModelDir(): string {
  return bundled ? join(__dirname, 'models', 'use-lite') : join(nodeModules, '@energetic-ai', 'model-embeddings-en', 'dist');
}

/** Folder holding tfjs-backend-wasm*.wasm. */
export function tfjsWasmDir(): string {
  return bundled ? __dirname : join(nodeModules, '@energetic-ai', 'core', 'dist');
}

/**
 * onnxruntime-node, which runs the model where its native library ships for this platform: bundled,
 * scripts/build.mjs puts its JavaScript in dist/onnxruntime/lib/ort.js and this platform's library
 * in dist/onnxruntime/bin/ (where that file's own require looks for it).
 */
export function onnxRuntimeModule(): string {
  return bundled ? join(__dirname, 'onnxruntime', 'lib', 'ort.js') : join(nodeModules, 'onnxruntime-node');
}

/** Whether onnxruntime's native library is there for this platform (whether it loads, only the model's process finds out). */
export function onnxRuntimeShipped(): boolean {
  const bin = bundled ? join(__dirname, 'onnxruntime', 'bin') : join(nodeModules, 'onnxruntime-node', 'bin');
  return existsSync(join(bin, 'napi-v6', process.platform, process.arch, 'onnxruntime_binding.node'));
}

/**
 * How to start the embedding process: its script and the Node options it needs. From source the
 * script is TypeScript, so the child loads tsx first (by absolute path: the child's working
 * folder may be anywhere, and it must not inherit the parent's options, e.g. `--test`).
 */
export function useLiteProcessScript(): { file: string; execArgv: string[] } {
  if (bundled) return { file: join(__dirname, 'embedding-worker.js'), execArgv: [] };
  return { file: join(__dirname, 'useLiteWorker.ts'), execArgv: ['--import', pathToFileURL(join(nodeModules, 'tsx', 'dist', 'loader.mjs')).href] };
}
