/**
 * Entry point VS Code loads inside the extension host (extensionTestsPath): runs every bundled
 * `*.test.js` beside it with mocha and rejects when a test fails, which gives the run its exit code.
 * The same file serves both launchers (code-server via scripts/e2e, desktop VS Code via runTest.ts).
 * Selecting part of the suite (both default to everything): ATOMIC_E2E_FILES, comma-separated parts of
 * file names (`debug-preview,graph` runs debug-preview.test.js and graph-preview.test.js), and
 * ATOMIC_E2E_GREP, a mocha grep on the tests' titles.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60_000, reporter: 'spec' });
  const grep = process.env.ATOMIC_E2E_GREP;
  if (grep) mocha.grep(grep);
  const only = (process.env.ATOMIC_E2E_FILES ?? '').split(',').map((f) => f.trim()).filter(Boolean);
  for (const file of fs.readdirSync(__dirname).sort()) {
    if (file.endsWith('.test.js') && (only.length === 0 || only.some((part) => file.includes(part)))) mocha.addFile(path.join(__dirname, file));
  }
  return new Promise((resolve, reject) => {
    mocha.run((failures) => {
      const total = mocha.suite.total();
      const line = `extension host tests: ${total - failures} passed, ${failures} failed`;
      console.log(line);
      const results = process.env.ATOMIC_E2E_RESULTS;
      if (results) fs.appendFileSync(results, line + '\n');
      if (failures) reject(new Error(`${failures} extension host test(s) failed`));
      else resolve();
    });
  });
}
