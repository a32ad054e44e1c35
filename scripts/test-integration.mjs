/**
 * `npm run test:integration`: test/integration/*.test.ts, two files at a time.
 *
 * Each file runs once, on the Node that runs its code in the product. The files that test what VS Code's
 * extension host runs in process (EXTENSION_HOST below: the store and its durability, atomic file writes,
 * the hostile-clone defences, the tools, the checks and the sandbox, the text tree, the bundle and its source
 * map, search, the user's vector cache and the embedding model's process) run on desktop VS Code's Node line
 * (22, installed from the npm registry into the tool cache once); the rest (the command line's servers, the bridge, HTTP, stdio) start `dist/cli.js` on
 * the project's Node (24), as `npm start` and other agents do. `npm run test:node22` adds the unit tests on
 * Node 22. So the Node 22 check costs no second run of the same tests.
 *
 * Two at a time is safe because every integration file works in folders of its own (mkdtemp), on ports
 * the OS picks (port 0), and starts children that only it talks to; the per-pid script bundles
 * (test/support/script.ts) and the user's caches (compile cache, vector cache) take concurrent writers as
 * two VS Code windows would. No test measures time. The memory tests read a server's peak resident
 * memory (VmHWM), which a busy CPU does not move: beside two busy loops on the two cores their peaks were
 * those measured alone (194-205 and 140-142 MiB against 194-218 and 142-145 MiB), so they share the lanes.
 * The slowest files start first, so the two lanes end together. A file's output is printed whole when it
 * ends (two files' lines never interleave), then a table of every file.
 *
 * Arguments are passed to every `node --test` (e.g. --test-name-pattern). Exit code: non-zero if a file
 * failed; every file always runs.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { cleanEnv, EXTENSION_HOST_NODE_VERSION, installNode, TEST_REPORTERS } from './toolchain.mjs';

/** What the extension host runs in process: these run on its Node line. */
const EXTENSION_HOST = new Set(
  [
    'arguments',
    'atomic-file',
    'batch-matmul',
    'checks',
    'crash',
    'embed-forward',
    'embed-process',
    'hostile-state-folder',
    'idle-memory',
    'sandbox',
    'search-index',
    'source-map',
    'store',
    'text-tree',
    'tools-run',
    'vector-cache',
    'workspace-write-path',
  ].map((n) => `${n}.test.ts`),
);
/** The slowest files (measured: 25-50 s each on a loaded 2-core machine) start first. */
const SLOW_FIRST = ['search-index', 'mcp-apps', 'search-rank', 'fuzz', 'server-crash', 'preview-exfiltration', 'bridge', 'search-tool'].map((n) => `${n}.test.ts`);
const CONCURRENCY = 2;

const folder = join('test', 'integration');
const extra = process.argv.slice(2);
const files = readdirSync(folder)
  .filter((f) => f.endsWith('.test.ts'))
  .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));

function rank(file) {
  const i = SLOW_FIRST.indexOf(file);
  return i === -1 ? SLOW_FIRST.length : i;
}

/** Node 22 and its environment, installed on first need. */
let node22;
function extensionHostNode() {
  if (!node22) {
    const bin = installNode(undefined, EXTENSION_HOST_NODE_VERSION);
    const env = cleanEnv();
    env.PATH = `${bin}${delimiter}${env.PATH ?? ''}`;
    node22 = { node: join(bin, process.platform === 'win32' ? 'node.exe' : 'node'), env };
  }
  return node22;
}

/** Runs one file; resolves with its exit status, its output and its duration. */
function runFile(file) {
  const onExtensionHost = EXTENSION_HOST.has(file);
  const { node, env } = onExtensionHost ? extensionHostNode() : { node: process.execPath, env: process.env };
  const args = ['--import', 'tsx', '--test', '--test-concurrency=1', ...TEST_REPORTERS, ...extra, join(folder, file)];
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(node, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    child.on('close', (status, signal) => {
      resolve({ file, node: onExtensionHost ? `Node ${EXTENSION_HOST_NODE_VERSION.split('.')[0]}` : `Node ${process.versions.node.split('.')[0]}`, status: status ?? (signal ? 1 : 0), output: Buffer.concat(chunks).toString(), seconds: (Date.now() - started) / 1000 });
    });
  });
}

/** Runs `list` with `lanes` files at a time, printing each file's output when it ends. */
async function runAll(list, lanes) {
  const queue = [...list];
  const results = [];
  const lane = async () => {
    for (let file = queue.shift(); file; file = queue.shift()) {
      const r = await runFile(file);
      process.stdout.write(`\n── ${file} (${r.node}, ${r.seconds.toFixed(1)} s, ${r.status === 0 ? 'passed' : `FAILED, exit ${r.status}`})\n${r.output}`);
      results.push(r);
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return results;
}

const started = Date.now();
const results = await runAll(files, CONCURRENCY);
const failed = results.filter((r) => r.status !== 0);
process.stdout.write(
  `\nintegration: ${results.length} files in ${((Date.now() - started) / 1000).toFixed(0)} s, ${failed.length} failed\n` +
    [...results]
      .sort((a, b) => b.seconds - a.seconds)
      .map((r) => `  ${r.status === 0 ? 'ok  ' : 'FAIL'} ${r.seconds.toFixed(1).padStart(6)} s  ${r.node}  ${r.file}`)
      .join('\n') +
    '\n',
);
process.exitCode = failed.length > 0 ? 1 : 0;
