// Runs the mocha suite (test/e2e/suite) inside the real extension host of VS Code (code-server), the way
// VS Code's own browser integration tests do: the smoke-test driver reads extensionDevelopmentPath and
// extensionTestsPath from the page's `payload` and reports the run's exit code to codeAutomationExit.
// The extension under test is the packaged .vsix, unpacked, so the tests see exactly what ships.
// Usage: node scripts/e2e/extension-tests.mjs [--no-build] ; exit code = mocha's (0 = all passed).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format } from 'node:util';
import { buildAndPackage, pinVsix, vsixPath, bundleSuite, ensureInstalled, installVsix, launchBrowser, log, newRunDir, runWhenMain, startCodeServer, workbenchUrl } from './lib.mjs';

/**
 * The suite is stuck when the extension host has said nothing for this long: longer than any test's
 * own mocha timeout (180 s at most; 600 s for the opt-in language bench), so a stuck test fails by its
 * timeout first and the run goes on. A deadline on the whole run (300 s) cut a run that was only
 * slow: on a machine loaded to 15 by other work the suite was at its last file when the deadline
 * came, and mocha's report never came.
 */
const SILENCE_MS = Number(process.env.ATOMIC_E2E_SILENCE_MS || (process.env.ATOMIC_E2E_LANG_BENCH ? 660_000 : 240_000));
/** Extension-host console lines that are VS Code's own chatter, not our tests. */
const NOISE = /AgentHost|ChatModelSelection|AccountPolicyGate|connection token|Creating a socket|open-vsx\.org|Service Worker|builtin extensions cache|reconnection-grace-time|^\s+at /;

/**
 * Runs the suite; resolves with mocha's exit code. `write` takes the suite's output (the default prints it
 * as it comes; `npm run test:e2e` keeps it for the end, as this runs beside the UI runs there).
 */
export async function runExtensionTests({ build = true, write = (text) => process.stdout.write(text) } = {}) {
  const t0 = Date.now();
  if (!process.env.ATOMIC_E2E_SKIP_INSTALL) ensureInstalled();
  const vsix = build ? pinVsix(buildAndPackage()) : vsixPath();
  const suite = await bundleSuite();
  const runDir = newRunDir('tests');
  const devPath = installVsix(vsix, join(runDir, 'unpacked'), join(runDir, 'ud'));
  const folder = join(runDir, 'workspace');
  mkdirSync(folder, { recursive: true });
  // The suite writes its results here too, so the report survives the browser.
  const resultFile = join(runDir, 'results.txt');
  writeFileSync(resultFile, '');
  process.env.ATOMIC_E2E_RESULTS = resultFile;
  process.env.ATOMIC_E2E_WORKSPACE = folder;
  // Connect Other Agents writes the user's own configuration: in the tests, a home folder of the run's own.
  process.env.ATOMIC_CODING_USER_HOME = join(runDir, 'home');
  mkdirSync(process.env.ATOMIC_CODING_USER_HOME, { recursive: true });
  const server = await startCodeServer({ runDir, folder, extraArgs: ['--vscode-option', 'enable-smoke-test-driver'] });
  log(`code-server ${server.url} (run dir ${runDir}) after ${Date.now() - t0} ms`);
  let browser;
  let code;
  try {
    browser = await launchBrowser(runDir);
    const page = browser.pages()[0] ?? (await browser.newPage());
    page.on('pageerror', (e) => log('pageerror', e.message));
    let heard = Date.now();
    let lastLine = '(nothing yet)';
    const done = new Promise((resolve) => {
      browser.exposeFunction('codeAutomationLog', (_type, args) => {
        const line = format(...args);
        const first = line.split('\n')[0];
        heard = Date.now();
        if (process.env.VERBOSE || !NOISE.test(first)) {
          lastLine = first;
          write(line + '\n');
        }
      });
      browser.exposeFunction('codeAutomationExit', (exitCode) => resolve(exitCode));
    });
    const authority = `127.0.0.1:${server.port}`;
    await page.goto(
      workbenchUrl(server.url, folder, [
        ['extensionDevelopmentPath', `vscode-remote://${authority}${devPath}`],
        ['extensionTestsPath', `vscode-remote://${authority}${join(suite, 'index')}`],
        ['skipWelcome', 'true'],
      ]),
    );
    let timer;
    const silent = new Promise((resolve) => {
      timer = setInterval(() => {
        if (Date.now() - heard < SILENCE_MS) return;
        log(`STUCK: the extension host said nothing for ${SILENCE_MS / 1000} s; its last line: ${lastLine}`);
        write(`STUCK: no output for ${SILENCE_MS / 1000} s after: ${lastLine}\n`);
        resolve(3);
      }, 1000);
    });
    code = await Promise.race([done, silent]);
    clearInterval(timer);
    await page.screenshot({ path: join(runDir, 'final.png') }).catch(() => {});
  } finally {
    await browser?.close().catch(() => {});
    server.stop();
  }
  log(`extension tests: exit code ${code} after ${Date.now() - t0} ms; logs in ${runDir}`);
  return code;
}

runWhenMain(import.meta.url, runExtensionTests);
