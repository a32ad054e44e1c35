/**
 * Entry point VS Code loads inside the extension host (extensionTestsPath): runs every bundled
 * `*.test.js` beside it with mocha and rejects when a test fails, which gives the run its exit code.
 * The same file serves both launchers (code-server via scripts/e2e, desktop VS Code via runTest.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60_000, reporter: 'spec' });
  const grep = process.env.ATOMIC_E2E_GREP;
  if (grep) mocha.grep(grep);
  for (const file of fs.readdirSync(__dirname).sort()) {
    if (file.endsWith('.test.js')) mocha.addFile(path.join(__dirname, file));
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
