/**
 * `npm run test:all` (what `npm test` runs once the toolchain is there): every check, each started as soon
 * as what it needs is there, so the real VS Code runs (the longest path by far) start within seconds:
 *
 *   - at once, side by side: type-check, lint, the build and the unit tests (none reads another's output),
 *     and installing code-server and Chromium (minutes on a fresh machine, nothing when cached);
 *   - the real VS Code runs (extension-host suite, then the UI runs) as soon as the install and the build
 *     are done (their agents start the build's dist/cli.js);
 *   - once type-check, lint, the build and the unit tests have passed: the integration tests and the unit
 *     tests on the extension host's Node 22, side by side, at the lowest priority (nice 19). The VS Code
 *     runs leave a third of two cores idle while a page loads or a step waits, and these fill it; at the
 *     same priority they slowed every UI step by a third (test/bench/README.md, "The test suite's time").
 *
 * Each script's output is printed whole when it ends, with its time. The first failure ends the run, exit
 * code 1: what still runs is stopped (the install is left to finish, so the tool cache stays whole).
 */
import { spawn } from 'node:child_process';
import { statfsSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { toolCache } from './toolchain.mjs';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
/** The integration tests' and the Node 22 run's priority beside the VS Code runs (19: the lowest). */
const BESIDE_PRIORITY = 19;
const running = new Set();

/**
 * Runs `npm run <script>` with its output buffered; resolves with its status, output and seconds. `nice`
 * lowers its priority, which the processes it starts inherit. On POSIX it leads a process group of its
 * own, so stopping it stops everything it started.
 */
function npmRun(script, { nice = 0 } = {}) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(npm, ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32', detached: process.platform !== 'win32' });
    if (nice) {
      try {
        setPriority(child.pid, nice);
      } catch {}
    }
    const entry = { script, child };
    running.add(entry);
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    child.on('close', (status, signal) => {
      running.delete(entry);
      resolve({ script, status: status ?? (signal ? 1 : 0), output: Buffer.concat(chunks).toString(), seconds: (Date.now() - started) / 1000 });
    });
  });
}

/** Stops every script still running but the install, with all it started. */
function stopRunning() {
  for (const { script, child } of running) {
    if (script === 'e2e:install') continue;
    try {
      if (process.platform === 'win32') child.kill();
      else process.kill(-child.pid, 'SIGTERM');
    } catch {}
  }
}

const started = Date.now();
const timings = [];

/**
 * What a run writes on a fresh machine, measured: the tool cache (Node 24 0.19 GB and 22 0.19 GB,
 * code-server 0.6 GB, npm's download cache 0.5 GB) ~1.5 GB, node_modules 0.5 GB, Debian's chromium and
 * its libraries, and the tests' temporary workspaces: ~2.5 GB. Below this the run is likely to fail
 * midway with ENOSPC, so it is said first.
 */
const NEEDED_BYTES = 4 * 1024 ** 3;

/** The free space of the folders a run writes to, one line; and whether any is below NEEDED_BYTES. */
function freeSpace() {
  const seen = new Map();
  for (const [what, path] of [['checkout', process.cwd()], ['temp', tmpdir()], ['tool cache', toolCache()]]) {
    try {
      const s = statfsSync(path);
      const key = `${s.type}:${s.blocks}:${s.bfree}`; // one file system seen from several folders is said once
      if (!seen.has(key)) seen.set(key, { what: [what], path, free: s.bavail * s.bsize });
      else seen.get(key).what.push(what);
    } catch {} // a tool cache not made yet
  }
  const parts = [...seen.values()];
  return {
    line: parts.map((p) => `${(p.free / 1024 ** 3).toFixed(1)} GiB free for ${p.what.join(', ')} (${p.path})`).join('; '),
    low: parts.some((p) => p.free < NEEDED_BYTES),
  };
}

{
  const { line, low } = freeSpace();
  process.stdout.write(`test:all: ${line}\n`);
  if (low) process.stdout.write(`test:all: WARNING: a run on a fresh machine writes about ${NEEDED_BYTES / 1024 ** 3} GiB; with less free, steps fail with ENOSPC. Free some space, or point TMPDIR and E2E_HOME at a larger disk.\n`);
}

function report(r) {
  if (r.output) process.stdout.write(r.output);
  process.stdout.write(`── ${r.script}: ${r.status === 0 ? 'passed' : `FAILED (exit ${r.status})`} in ${r.seconds.toFixed(1)} s\n`);
  timings.push(r);
}

async function finish(code) {
  if (code !== 0) process.stdout.write(`test:all: at the end, ${freeSpace().line}\n`);
  process.stdout.write(`\ntest:all ${code === 0 ? 'passed' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(0)} s: ${timings.map((t) => `${t.script} ${t.seconds.toFixed(0)} s`).join(', ')}\n`);
  process.exit(code);
}

/** Reports each result as it comes; on the first failure stops the rest, waits for the install and exits 1. */
async function settle(runs) {
  await Promise.all(
    runs.map(async (run) => {
      const r = await run;
      report(r);
      if (r.status !== 0) {
        stopRunning();
        if (!timings.some((t) => t.script === 'e2e:install')) report(await install);
        await finish(1);
      }
    }),
  );
}

const install = npmRun('e2e:install');
const [typecheck, lint, build, unit] = ['typecheck', 'lint', 'build', 'test:unit'].map((s) => npmRun(s));
/** The VS Code runs, once code-server, Chromium and the build are there (their failure is this step's). */
const e2e = Promise.all([install, build]).then(([installed, built]) => {
  if (installed.status !== 0 || built.status !== 0) return { script: 'test:e2e', status: 1, output: `not run: ${installed.status !== 0 ? 'the install' : 'the build'} failed\n`, seconds: 0 };
  return npmRun('test:e2e');
});

await settle([typecheck, lint, build, unit]);
await settle([npmRun('test:integration', { nice: BESIDE_PRIORITY }), npmRun('test:node22', { nice: BESIDE_PRIORITY }), install, e2e]);
await finish(0);
