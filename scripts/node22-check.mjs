// What runs in VS Code's extension host runs on desktop VS Code's Node (Electron's, the 22 line), not on
// the project's Node 24. The integration tests of what the extension host runs in process (the store and
// its durability, the hostile-clone defences (O_NOFOLLOW and fstat), the MCP tools, the checks and the
// sandbox (QuickJS in a worker), the text tree, the bundle and its source map, search and the model's
// process) run on that Node in `npm run test:integration` (scripts/test-integration.mjs, EXTENSION_HOST).
// This check adds the unit tests on it: it installs that Node from the npm registry into the tool cache
// (once) and runs them there. A feature Node 22 lacks (Float16Array, a newer fs or test-runner option)
// fails here or there.
//
// Usage: node scripts/node22-check.mjs   (part of `npm test`)
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanEnv, EXTENSION_HOST_NODE_VERSION, installNode } from './toolchain.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const bin = installNode(undefined, EXTENSION_HOST_NODE_VERSION);
const node = join(bin, 'node');
const env = cleanEnv();
env.PATH = `${bin}${delimiter}${env.PATH ?? ''}`;
const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
process.stderr.write(`[node22] the extension host's Node line: ${version}\n`);

function run(args) {
  const r = spawnSync(node, ['--import', 'tsx', '--test', '--test-reporter=spec', ...args], { cwd: root, env, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const unit = readdirSync(join(root, 'test', 'unit')).filter((f) => f.endsWith('.test.ts')).map((f) => join('test', 'unit', f));
// A process a file, one at a time: Node 22's --experimental-test-isolation=none (one process for all, as the
// unit run on 24 does) failed every test of a run with "Promise resolution is still pending but the event
// loop has already resolved", once in three runs.
run(['--test-concurrency=1', ...unit]);
process.stderr.write(`[node22] passed on ${version}\n`);
