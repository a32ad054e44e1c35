/**
 * `npm run test:integration`: test/integration/*.test.ts, two files at a time, then the files that measure
 * a process's memory, one at a time with nothing else running beside them.
 *
 * Two at a time is safe because every integration file works in folders of its own (mkdtemp), on ports
 * the OS picks (port 0), and starts children that only it talks to; the per-pid script bundles
 * (test/support/script.ts) and the user's caches (compile cache, vector cache) take concurrent writers as
 * two VS Code windows would. No test measures time. The memory tests read a server's peak resident
 * memory (VmHWM), which another test's load moves (a busier CPU delays the collector): they run alone.
 *
 * Arguments are passed to both runs of `node --test` (e.g. --test-name-pattern). Exit code: non-zero if
 * either run failed; both always run.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Files that measure memory: run alone, after the others. */
const ALONE = new Set(['memory.test.ts', 'memory-agent-path.test.ts']);
const CONCURRENCY = 2;

const folder = join('test', 'integration');
const files = readdirSync(folder)
  .filter((f) => f.endsWith('.test.ts'))
  .sort();
const shared = files.filter((f) => !ALONE.has(f)).map((f) => join(folder, f));
const alone = files.filter((f) => ALONE.has(f)).map((f) => join(folder, f));
const extra = process.argv.slice(2);

function run(list, concurrency) {
  if (list.length === 0) return 0;
  const args = ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...extra, ...list];
  const { status, signal } = spawnSync(process.execPath, args, { stdio: 'inherit' });
  return status ?? (signal ? 1 : 0);
}

const first = run(shared, CONCURRENCY);
const second = run(alone, 1);
process.exitCode = first || second;
