/**
 * `npm run test:all` (what `npm test` runs once the toolchain is there): every check, in the order that
 * finds a broken build soonest, with what does not depend on each other run side by side:
 *
 *   1. type-check, lint and build at once (none reads another's output);
 *   2. the unit tests;
 *   3. the integration tests (two files at a time, each on the Node that runs its code in the product);
 *   4. the memory tests, alone on the machine;
 *   5. the unit tests on the extension host's Node 22;
 *   6. the real VS Code runs (extension-host suite, then the UI runs).
 *
 * Installing code-server and Chromium for step 6 (minutes on a fresh machine, nothing when cached) starts
 * at once and goes on beside steps 1-3; step 4 waits for it, since a neighbour's load moves what the
 * memory tests read. Each step's output is printed whole when it ends, with its time; the first failure
 * stops the run (after the install in the background is done), exit code 1.
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

async function step(scripts) {
  const results = await Promise.all(scripts.map((s) => npmRun(s, scripts.length > 1)));
  results.forEach(report);
  if (results.some((r) => r.status !== 0)) {
    report(await install);
    await finish(1);
  }
}

await step(['typecheck', 'lint', 'build']);
await step(['test:unit']);
await step(['test:integration:shared']);
const installed = await install;
report(installed);
if (installed.status !== 0) await finish(1);
await step(['test:integration:alone']);
await step(['test:node22']);
await step(['test:e2e']);
await finish(0);
