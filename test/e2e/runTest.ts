/**
 * The same extension-host suite in desktop VS Code, launched by @vscode/test-electron. For machines that
 * can download VS Code (these cannot: they use code-server, see scripts/e2e/extension-tests.mjs).
 * Run with ATOMIC_E2E_LAUNCHER=electron npm run test:e2e, or node --import tsx test/e2e/runTest.ts.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runTests } from '@vscode/test-electron';
import { tempDir } from '../support/tmp.js';

const root = join(__dirname, '..', '..');

async function main(): Promise<number> {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  const lib = (await import(pathToFileURL(join(root, 'scripts', 'e2e', 'lib.mjs')).href)) as { bundleSuite(): Promise<string> };
  const suite = await lib.bundleSuite();
  const workspace = tempDir('atomic-e2e-');
  const results = join(workspace, '..', `${workspace.split('/').pop()}-results.txt`);
  return runTests({
    extensionDevelopmentPath: root,
    extensionTestsPath: join(suite, 'index'),
    launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust', '--skip-welcome'],
    extensionTestsEnv: { ATOMIC_E2E_RESULTS: results },
  });
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`desktop VS Code tests could not run: ${(err as Error).message}`);
    process.exit(1);
  },
);
