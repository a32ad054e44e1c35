// `npm run test:e2e`: installs what is missing (cached), builds and packages the extension once, then runs
// the mocha suite inside VS Code's extension host and the UI run with screenshots. Exit code 0 only when
// both pass. ATOMIC_E2E_LAUNCHER=electron runs the same suite in desktop VS Code via @vscode/test-electron
// instead (machines that can download VS Code), and skips the browser UI run.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runExtensionTests } from './extension-tests.mjs';
import { buildAndPackage, ensureInstalled, log, pinVsix, root } from './lib.mjs';
import { runUi } from './ui.mjs';

if (process.env.ATOMIC_E2E_LAUNCHER === 'electron') {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'test', 'e2e', 'runTest.ts')], { cwd: root, stdio: 'inherit' });
  process.exit(r.status ?? 1);
}

ensureInstalled();
process.env.ATOMIC_E2E_SKIP_INSTALL = '1';
pinVsix(buildAndPackage());
const tests = await runExtensionTests({ build: false });
const ui = await runUi({ build: false });
// Further UI runs (test/e2e/ui-*.mjs, e.g. the graph and preview) reuse the package built above.
const more = readdirSync(join(root, 'test', 'e2e'))
  .filter((f) => /^ui-.*\.mjs$/.test(f))
  .sort()
  .map((f) => {
    const r = spawnSync(process.execPath, [join(root, 'test', 'e2e', f), '--no-build'], { cwd: root, stdio: 'inherit' });
    return { f, ok: r.status === 0 };
  });
const summary = [
  `extension-host tests: ${tests === 0 ? 'passed' : `failed (${tests})`}`,
  `UI run: ${ui === 0 ? 'passed' : 'failed'}`,
  ...more.map((m) => `${m.f}: ${m.ok ? 'passed' : 'failed'}`),
];
log(summary.join('; '));
process.exit(tests === 0 && ui === 0 && more.every((m) => m.ok) ? 0 : 1);
