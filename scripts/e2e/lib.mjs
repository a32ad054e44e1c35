// Shared parts of the real-VS-Code harness: the install cache, code-server (VS Code in a browser, run with
// Node 24 from npm), Debian's chromium through playwright-core, and packaging the extension.
// Plain Node ESM with no dependencies beyond playwright-core, so `npm start` and `npm run test:e2e` share it.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const e2eHome = process.env.E2E_HOME || join(homedir(), '.cache', 'atomic-coding-e2e');
const node24Bin = join(e2eHome, 'node24', 'package', 'bin');
const codeServerBin = join(e2eHome, 'cs', 'node_modules', '.bin', 'code-server');

// A run that is stopped (Ctrl+C, or `npm test` stopping it when another check failed) still runs its exit
// handlers, which stop its code-server (a process group of its own, which would outlive it) and Chromium.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

export function log(...parts) {
  process.stderr.write(`[e2e ${new Date().toISOString().slice(11, 23)}] ${parts.join(' ')}\n`);
}

/** Runs scripts/e2e/install.sh (idempotent, quick when everything is cached). */
/**
 * Runs an e2e entry when its file is the one node was started with: `run({ build })` resolves to
 * the exit code; `--no-build` reuses the package built before.
 */
export function runWhenMain(moduleUrl, run) {
  if (moduleUrl !== `file://${process.argv[1]}`) return;
  run({ build: !process.argv.includes('--no-build') }).then(
    (code) => process.exit(code),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}

export function ensureInstalled() {
  execFileSync('bash', [join(root, 'scripts', 'e2e', 'install.sh'), e2eHome], { stdio: ['ignore', 'inherit', 'inherit'] });
}

/** Environment for code-server: Node 24 first on PATH, its config/data/logs kept out of $HOME. */
export function codeServerEnv() {
  const xdg = join(e2eHome, 'xdg');
  return {
    ...process.env,
    PATH: `${node24Bin}:${process.env.PATH}`,
    XDG_CONFIG_HOME: join(xdg, 'config'),
    XDG_DATA_HOME: join(xdg, 'data'),
    XDG_CACHE_HOME: join(xdg, 'cache'),
    XDG_STATE_HOME: join(xdg, 'state'),
  };
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Run directories kept for reading their logs afterwards (a whole e2e run makes seven). */
const KEEP_RUNS = 21;

/**
 * A fresh directory for one run: code-server's user data, extensions, logs and the browser profile. The
 * oldest beyond the newest KEEP_RUNS are removed first: each holds an unpacked extension and a browser
 * profile (60 MB), and a developer's cache had grown to 5 GB of them.
 */
export function newRunDir(kind) {
  const runs = join(e2eHome, 'runs');
  mkdirSync(runs, { recursive: true });
  const dirs = readdirSync(runs, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => ({ path: join(runs, d.name), mtime: statSync(join(runs, d.name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const old of dirs.slice(KEEP_RUNS)) rmSync(old.path, { recursive: true, force: true });
  return mkdtempSync(join(runs, `${kind}-`));
}

/** Where `vsce package` puts the extension: <name>-<version>.vsix in the repo (gitignored). */
export function vsixPath() {
  if (process.env.ATOMIC_E2E_VSIX) return process.env.ATOMIC_E2E_VSIX;
  const { name, version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return join(root, `${name}-${version}.vsix`);
}

/**
 * A private copy of the package for one test run, also named in ATOMIC_E2E_VSIX for child processes, so
 * a package rebuilt meanwhile by someone else in the same checkout cannot change what this run installs.
 */
export function pinVsix(vsix) {
  mkdirSync(join(e2eHome, 'runs'), { recursive: true });
  const pinned = join(e2eHome, 'runs', `package-${process.pid}.vsix`);
  cpSync(vsix, pinned);
  process.env.ATOMIC_E2E_VSIX = pinned;
  process.on('exit', () => {
    rmSync(pinned, { force: true });
    rmSync(installedCopy(pinned), { recursive: true, force: true });
  });
  return pinned;
}

/** Where the pinned package's first install is kept for the run's other sessions to copy. */
const installedCopy = (vsix) => `${vsix}.installed`;

/**
 * Builds the extension (minified) and packages it with vsce; returns the .vsix path. `target` (VS Code's
 * platform names: linux-x64, darwin-arm64, ...) makes a package for that platform, with its onnxruntime
 * library (scripts/build.mjs); without one, the package is this machine's, untargeted. The build goes into
 * a private stage (.e2e/stage-<pid>) with a copy of the rest of what the .vsix holds, never into dist/:
 * tests running meanwhile (npm test runs the integration tests beside this) keep reading the development
 * build there. That build is made too when it is missing, since the UI runs' agents start dist/cli.js.
 */
export function buildAndPackage(target) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const build = (...args) => execFileSync(npm, ['run', 'build', '--silent', '--', ...args], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (!existsSync(join(root, 'dist', 'cli.js'))) build();
  const stage = join(root, '.e2e', `stage-${process.pid}`);
  const { name, version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const vsix = join(root, target ? `${name}-${target}-${version}.vsix` : `${name}-${version}.vsix`);
  // Written under a temporary name and renamed: a reader never sees a half-written package.
  const partial = `${vsix}.${process.pid}.partial`;
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  try {
    build('--production', `--outdir=${join(stage, 'dist')}`, ...(target ? [`--target=${target}`] : []));
    for (const entry of ['media', 'package.json', '.vscodeignore', 'README.md', 'LICENSE', 'LICENSE.md', 'CHANGELOG.md']) {
      // Webview sources (media/**/*.ts) stay out of the package.
      const filter = (src) => !(src.includes('/media/') && src.endsWith('.ts'));
      if (existsSync(join(root, entry))) cpSync(join(root, entry), join(stage, entry), { recursive: true, filter });
    }
    execFileSync(join(root, 'node_modules', '.bin', 'vsce'), ['package', '--no-dependencies', '--allow-missing-repository', '--no-rewrite-relative-links', ...(target ? ['--target', target] : []), '-o', partial], {
      cwd: stage,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    renameSync(partial, vsix);
  } finally {
    rmSync(partial, { force: true });
    rmSync(stage, { recursive: true, force: true });
  }
  return vsix;
}

/**
 * Installs a .vsix into an extensions folder with code-server's CLI (no server needed). The package a run
 * pinned (pinVsix) is installed once: its install is kept beside it, and the run's other sessions copy it
 * (extensions.json names the folder, so its paths are rewritten), ~2 s of CPU less a session.
 */
export function installVsix(vsix, extensionsDir, userDataDir) {
  const install = (into) =>
    execFileSync(codeServerBin, ['--user-data-dir', userDataDir, '--extensions-dir', into, '--install-extension', vsix, '--force'], {
      env: codeServerEnv(),
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  if (vsix !== process.env.ATOMIC_E2E_VSIX) install(extensionsDir);
  else {
    const kept = installedCopy(vsix);
    if (!existsSync(kept)) {
      const partial = `${kept}-${process.pid}.partial`;
      install(partial);
      renameSync(partial, kept);
    }
    cpSync(kept, extensionsDir, { recursive: true });
    const list = join(extensionsDir, 'extensions.json');
    const entries = JSON.parse(readFileSync(list, 'utf8')).map((e) => {
      const at = join(extensionsDir, e.relativeLocation);
      return { ...e, location: { ...e.location, fsPath: at, path: at, external: pathToFileURL(at).href } };
    });
    writeFileSync(list, JSON.stringify(entries));
  }
  const { publisher, name } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const folder = readdirSync(extensionsDir).find((f) => f.toLowerCase().startsWith(`${publisher}.${name}-`.toLowerCase()));
  if (!folder) throw new Error(`the extension did not appear in ${extensionsDir} after installing ${vsix}`);
  return join(extensionsDir, folder);
}

const USER_SETTINGS = {
  'telemetry.telemetryLevel': 'off',
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'update.mode': 'none',
  'security.workspace.trust.enabled': false,
  'chat.mcp.discovery.enabled': false,
  'workbench.colorTheme': 'Default Dark Modern',
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'git.openRepositoryInParentFolders': 'never',
  // VS Code for the Web saves after a delay by default; the suite's edits assume a save happens when a test
  // saves (the auto-save suite turns it on for itself and back off).
  'files.autoSave': 'off',
};

/**
 * Starts code-server on a free loopback port and waits for it to answer.
 * Returns { port, url, stop }. `extraArgs` e.g. ['--vscode-option', 'enable-smoke-test-driver'].
 */
export async function startCodeServer({ runDir, folder, port, extraArgs = [], settings = {}, keepSettings = false, stdio }) {
  port ??= await freePort();
  const userData = join(runDir, 'ud');
  mkdirSync(join(userData, 'User'), { recursive: true });
  mkdirSync(join(runDir, 'ext'), { recursive: true });
  const settingsFile = join(userData, 'User', 'settings.json');
  if (!keepSettings || !existsSync(settingsFile)) writeFileSync(settingsFile, JSON.stringify({ ...USER_SETTINGS, ...settings }, null, 2));
  writeFileSync(join(runDir, 'config.yaml'), 'auth: none\n');
  const out = stdio ?? openSync(join(runDir, 'code-server.log'), 'w');
  const args = [
    '--config', join(runDir, 'config.yaml'),
    '--bind-addr', `127.0.0.1:${port}`,
    '--auth', 'none',
    '--user-data-dir', userData,
    '--extensions-dir', join(runDir, 'ext'),
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override',
    '--ignore-last-opened',
    // Without this, extension hosts outlive a closed browser tab for three hours.
    '--reconnection-grace-time', '5',
    ...extraArgs,
    folder,
  ];
  const child = spawn(codeServerBin, args, { env: codeServerEnv(), stdio: ['ignore', out, out], detached: true });
  let exited = false;
  child.on('exit', () => (exited = true));
  const stop = () => {
    if (exited) return;
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {}
  };
  process.on('exit', stop);
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (exited) throw new Error(`code-server exited at start; see ${join(runDir, 'code-server.log')}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return { port, url, stop, child };
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  stop();
  throw new Error(`code-server did not answer on ${url} within 60 s; see ${join(runDir, 'code-server.log')}`);
}

const CHROME_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  // Without these Chromium floods the closed network with connection attempts.
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** playwright-core: the project's devDependency, else the copy in the install cache. */
function playwright() {
  for (const base of [join(root, 'package.json'), join(e2eHome, 'pw', 'package.json')]) {
    try {
      return createRequire(base)('playwright-core');
    } catch {}
  }
  throw new Error('playwright-core is not installed; run scripts/e2e/install.sh');
}

/** Launches Debian's chromium headless with a fresh profile inside runDir. */
export async function launchBrowser(runDir, viewport = { width: 1400, height: 900 }) {
  const executablePath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (!existsSync(executablePath)) throw new Error(`chromium not found at ${executablePath}; run scripts/e2e/install.sh`);
  return playwright().chromium.launchPersistentContext(join(runDir, 'chrome-profile'), {
    executablePath,
    headless: true,
    args: CHROME_ARGS,
    viewport,
  });
}

/**
 * Opens the workbench on `folder` in a fresh Chromium and clicks the Atomic Coding container in the
 * activity bar, as a person would; resolves with the browser and its page once the container is open.
 */
export async function openAtomicWorkbench(server, folder, runDir) {
  const browser = await launchBrowser(runDir);
  try {
    const page = browser.pages()[0] ?? (await browser.newPage());
    page.on('pageerror', (e) => log('pageerror', e.message));
    await page.goto(workbenchUrl(server.url, folder));
    await page.locator('.monaco-workbench .part.activitybar').waitFor({ timeout: 90_000 });
    const container = page.locator('.part.activitybar .action-item a[aria-label^="Atomic Coding"]').first();
    await container.waitFor({ timeout: 60_000 });
    await container.click();
    return { browser, page };
  } catch (err) {
    await browser.close().catch(() => {});
    throw err;
  }
}

/** A workbench URL for `folder` with an optional smoke-test-driver payload. */
export function workbenchUrl(base, folder, payload) {
  let url = `${base}/?folder=${encodeURIComponent(folder)}`;
  if (payload) url += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  return url;
}

/**
 * Bundles the mocha suite (test/e2e/suite/*.ts) into out/e2e/suite-<pid>/ with esbuild: one file per test plus
 * index.js, whose run() VS Code calls inside the extension host. `vscode` and `mocha` stay external
 * (the host provides the first; the second resolves from the repo's node_modules).
 */
export async function bundleSuite() {
  const esbuild = await import('esbuild');
  const src = join(root, 'test', 'e2e', 'suite');
  // One folder per process: another run in the same checkout must not rewrite the tests under this one.
  const outdir = join(root, 'out', 'e2e', `suite-${process.pid}`);
  process.on('exit', () => rmSync(outdir, { recursive: true, force: true }));
  const entryPoints = readdirSync(src).filter((f) => f.endsWith('.ts')).map((f) => join(src, f));
  await esbuild.build({
    entryPoints,
    outdir,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'inline',
    external: ['vscode', 'mocha'],
    logLevel: 'warning',
  });
  return outdir;
}
