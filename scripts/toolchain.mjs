// The project's own Node. `npm start`, `npm test` and `npm run bench` run through this script, so they behave
// the same on every machine whatever Node the machine has (a fresh one may have Node 20, which is past its end
// of life and below what vectra declares): it
//   1. installs Node 24 from the npm registry (the `node-<os>-<cpu>` package) into the tool cache, once;
//   2. runs `npm ci` with that Node when node_modules is missing or older than package-lock.json;
//   3. runs the given npm script with that Node first on PATH and without the variables the outer npm exported
//      (its user agent names the machine's Node, which code-server's postinstall reads; its prefixes, node-gyp
//      and nodedir point at the machine's Node too).
// The same Node 24 runs code-server in the real-VS-Code tests (scripts/e2e/install.sh), so one download serves both.
// Plain Node ESM with no dependencies: it runs on a fresh clone before anything is installed, on Node 18 and up.
//
// Usage: node scripts/toolchain.mjs <npm script> [args...]   (runs `npm run <script> -- args` on the project's Node)
//        node scripts/toolchain.mjs --install-node [CACHE]  (only step 1; prints the Node binary's path)
// The tool cache is $E2E_HOME, else ~/.cache/atomic-coding-e2e.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { constants, homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const NODE_VERSION = '24.21.0';
/** The Node line of desktop VS Code's extension host (Electron): what the server must keep running on (scripts/node22-check.mjs). */
export const EXTENSION_HOST_NODE_VERSION = '22.23.3';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/**
 * The reporters of every `node --test` run: the spec reporter, and beside it one that says at once why a
 * test failed (scripts/test-failures-reporter.mjs; package.json's test:unit spells the same out).
 */
export const TEST_REPORTERS = ['--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=./scripts/test-failures-reporter.mjs', '--test-reporter-destination=stderr'];

function say(text) {
  process.stderr.write(`[toolchain] ${text}\n`);
}

export function toolCache() {
  return process.env.E2E_HOME || join(homedir(), '.cache', 'atomic-coding-e2e');
}

/**
 * The environment for everything the project runs: the caller's, less what an outer `npm run` exported about
 * itself and the machine's Node. Kept: the user's own npm settings (registry, cafile, proxies, userconfig,
 * cache), which describe the network rather than the machine's Node.
 */
export function cleanEnv(env = process.env) {
  const machineNode = new Set(['user_agent', 'node_gyp', 'nodedir', 'prefix', 'local_prefix', 'global_prefix', 'npm_version', 'init_module', 'node_version']);
  const out = {};
  for (const [key, value] of Object.entries(env)) {
    const k = key.toLowerCase();
    if (k.startsWith('npm_') && !k.startsWith('npm_config_')) continue; // npm_package_*, npm_lifecycle_*, npm_execpath...
    if (k.startsWith('npm_config_') && machineNode.has(k.slice('npm_config_'.length))) continue;
    out[key] = value;
  }
  return out;
}

/**
 * Installs Node `version` (default NODE_VERSION) into CACHE/node<major> unless it is there; returns the
 * folder holding `node`.
 */
export function installNode(cache = toolCache(), version = NODE_VERSION) {
  const folder = `node${version.split('.')[0]}`;
  const bin = join(cache, folder, 'package', 'bin');
  const node = join(bin, process.platform === 'win32' ? 'node.exe' : 'node');
  const installed = () => existsSync(node) && spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout?.trim() === `v${version}`;
  if (installed()) return bin;
  const pkg = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}@${version}`;
  say(`installing Node ${version} (npm package ${pkg}) into ${join(cache, folder)}`);
  mkdirSync(join(cache, folder), { recursive: true });
  // Unpacked beside its final place and renamed in, so an interrupted install never looks complete. Two
  // installs may run at once (npm test runs the integration tests and the Node 22 unit run side by side):
  // the one that finishes second keeps the first one's Node, which may already be running tests.
  const work = mkdtempSync(join(cache, `${folder}-`));
  try {
    const packed = spawnSync('npm', ['pack', '--silent', pkg], { cwd: work, env: cleanEnv(), encoding: 'utf8', shell: process.platform === 'win32' });
    if (packed.status !== 0) throw new Error(`npm pack ${pkg} failed: ${packed.stderr || packed.error}`);
    const tgz = join(work, packed.stdout.trim().split('\n').pop());
    const untar = spawnSync('tar', ['xzf', tgz, '-C', work], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (untar.status !== 0) throw new Error(`could not unpack ${tgz}`);
    if (installed()) return bin;
    const target = join(cache, folder, 'package');
    // Another version (or a broken copy) is moved aside first, by a rename: never removed in place.
    if (existsSync(target) && !installed()) renameSync(target, join(work, 'replaced'));
    try {
      renameSync(join(work, 'package'), target);
    } catch (err) {
      if (!installed()) throw err;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return bin;
}

/** The environment with the project's Node first on PATH (npm itself is the machine's, run by that Node). */
function projectEnv(bin) {
  const env = cleanEnv();
  const pathKey = Object.keys(env).find((k) => k.toUpperCase() === 'PATH') ?? 'PATH';
  env[pathKey] = `${bin}${delimiter}${env[pathKey] ?? ''}`;
  return env;
}

/** `npm ci` when node_modules is missing or older than package-lock.json. */
function ensureDeps(env) {
  const marker = join(root, 'node_modules', '.package-lock.json');
  const lock = join(root, 'package-lock.json');
  if (existsSync(marker) && statSync(lock).mtimeMs <= statSync(marker).mtimeMs) return;
  say('installing npm dependencies (npm ci)');
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, env, stdio: ['ignore', process.stderr, process.stderr], shell: process.platform === 'win32' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [first, ...rest] = process.argv.slice(2);
  if (!first) {
    say('usage: node scripts/toolchain.mjs <npm script> [args...] | --install-node [CACHE]');
    process.exit(2);
  }
  if (first === '--install-node') {
    process.stdout.write(`${join(installNode(rest[0] || toolCache()), 'node')}\n`);
    process.exit(0);
  }
  const bin = installNode();
  const env = projectEnv(bin);
  ensureDeps(env);
  const child = spawn('npm', ['run', first, ...(rest.length ? ['--', ...rest] : [])], {
    cwd: root,
    env,
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  // Ctrl-C reaches the child through the terminal's process group; this process only waits for it to end.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
}
