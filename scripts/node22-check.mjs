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
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cleanEnv, EXTENSION_HOST_NODE_VERSION, installNode, TEST_REPORTERS } from './toolchain.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const bin = installNode(undefined, EXTENSION_HOST_NODE_VERSION);
const node = join(bin, 'node');
const env = cleanEnv();
env.PATH = `${bin}${delimiter}${env.PATH ?? ''}`;
const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
process.stderr.write(`[node22] the extension host's Node line: ${version}\n`);

// One process for every unit file, as the unit run on 24 does, through one entry file that imports them
// all: Node 22's own way to that (--experimental-test-isolation=none) failed every test of a run with
// "Promise resolution is still pending but the event loop has already resolved", once in three runs; this
// passed ten runs in ten, in 5 s and 7.5 s of CPU against 14 s and 20 s for a process a file.
const unit = readdirSync(join(root, 'test', 'unit'))
  .filter((f) => f.endsWith('.test.ts'))
  .sort()
  .map((f) => join(root, 'test', 'unit', f));
const dir = mkdtempSync(join(tmpdir(), 'atomic-node22-'));
const entry = join(dir, 'unit.test.mjs');
writeFileSync(entry, unit.map((f) => `await import(${JSON.stringify(pathToFileURL(f).href)});\n`).join(''));
const r = spawnSync(node, ['--import', 'tsx', '--test', ...TEST_REPORTERS, entry], { cwd: root, env, stdio: 'inherit' });
rmSync(dir, { recursive: true, force: true });
if (r.status !== 0) process.exit(r.status ?? 1);
process.stderr.write(`[node22] passed on ${version}\n`);
