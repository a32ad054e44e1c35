/**
 * Where the sandbox's files are. Bundled (dist/cli.js, dist/extension.js), the worker and the
 * QuickJS wasm sit beside the bundle in dist/ (scripts/build.mjs copies them); from source
 * (tests, tsx) the worker is the TypeScript file and the wasm comes from node_modules.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';

const bundled = process.env.ATOMIC_BUNDLED === '1';

export function quickjsWasmPath(): string {
  if (bundled) return join(__dirname, 'quickjs.wasm');
  // (createRequire keeps esbuild from trying to resolve this at bundle time; it never runs bundled.)
  return createRequire(__filename).resolve('@jitl/quickjs-wasmfile-release-sync/wasm');
}

export function workerScript(): { path: string; execArgv: string[] } {
  if (bundled) return { path: join(__dirname, 'sandbox-worker.js'), execArgv: [] };
  // From source the worker is TypeScript: load it through tsx, as the tests themselves are.
  // (`--import tsx` registers its hooks too late for a worker's own entry file; the CommonJS hook is in time.)
  return { path: join(__dirname, 'worker.ts'), execArgv: ['--require', 'tsx/cjs'] };
}
