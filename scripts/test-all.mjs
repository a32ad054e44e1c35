/**
 * `npm run test:all` (what `npm test` runs once the toolchain is there): every check, in the order that
 * finds a broken build soonest, with what does not depend on each other run side by side:
 *
 *   1. type-check, lint and build at once (none reads another's output);
 *   2. the unit tests;
 *   3. at once: the integration tests (two files at a time, each on the Node that runs its code in the
 *      product), the unit tests on the extension host's Node 22, and the real VS Code runs (extension-host
 *      suite, then the UI runs) once code-server and Chromium are installed. The VS Code runs leave a third
 *      of two cores idle while a page loads or a step waits, and the tests beside them fill most of it
 *      (test/bench/README.md, "The test suite's time");
 *   4. the memory tests, alone on the machine (a neighbour's load moves what they read).
 *
 * Installing code-server and Chromium (minutes on a fresh machine, nothing when cached) starts at once and
 * goes on beside steps 1-3. Each script's output is printed whole when it ends, with its time; the first
 * failed step stops the run (after the install in the background is done), exit code 1.
 */
import { spawn } from 'node:child_process';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Runs `npm run <script>`; resolves with its status, output and seconds. Output is buffered when `quiet`. */
function npmRun(script, quiet) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(npm, ['run', '--silent', script], { stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit', shell: process.platform === 'win32' });
    const chunks = [];
    child.stdout?.on('data', (c) => chunks.push(c));
    child.stderr?.on('data', (c) => chunks.push(c));
    child.on('close', (status, signal) => resolve({ script, status: status ?? (signal ? 1 : 0), output: Buffer.concat(chunks).toString(), seconds: (Date.now() - started) / 1000 }));
  });
}

const started = Date.now();
const timings = [];

function report(r) {
  if (r.output) process.stdout.write(r.output);
  process.stdout.write(`── ${r.script}: ${r.status === 0 ? 'passed' : `FAILED (exit ${r.status})`} in ${r.seconds.toFixed(1)} s\n`);
  timings.push(r);
}

async function finish(code) {
  process.stdout.write(`\ntest:all ${code === 0 ? 'passed' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(0)} s: ${timings.map((t) => `${t.script} ${t.seconds.toFixed(0)} s`).join(', ')}\n`);
  process.exit(code);
}

const install = npmRun('e2e:install', true);

/** Runs the step's scripts side by side (a function is a script that starts when it chooses), then reports. */
async function step(scripts) {
  const quiet = scripts.length > 1;
  const results = await Promise.all(scripts.map((s) => (typeof s === 'function' ? s(quiet) : npmRun(s, quiet))));
  results.forEach(report);
  if (results.some((r) => r.status !== 0)) {
    if (!timings.some((t) => t.script === 'e2e:install')) report(await install);
    await finish(1);
  }
}

/** The VS Code runs, once code-server and Chromium are there (the install's failure is the step's). */
async function e2eAfterInstall(quiet) {
  const installed = await install;
  report(installed);
  return installed.status === 0 ? npmRun('test:e2e', quiet) : { script: 'test:e2e', status: 1, output: 'not run: the install failed\n', seconds: 0 };
}

await step(['typecheck', 'lint', 'build']);
await step(['test:unit']);
await step(['test:integration:shared', 'test:node22', e2eAfterInstall]);
await step(['test:integration:alone']);
await finish(0);
