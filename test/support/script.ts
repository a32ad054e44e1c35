/**
 * A TypeScript entry for a child process, bundled for plain Node (`node script.js`): a child
 * started through tsx compiles the source tree it imports first, seconds a start on a loaded
 * machine, which tests that start many children (the crash tests) pay each time. Bundled once per
 * test process with esbuild (as scripts/build.mjs bundles the product), packages left to
 * node_modules; the bundle lives in dist/ (so node_modules resolves) and is removed at exit.
 */
import { buildSync } from 'esbuild';
import { mkdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';

const folder = join(__dirname, '..', '..', 'dist', 'test-scripts');
const built = new Map<string, string>();
process.once('exit', () => {
  for (const file of built.values()) rmSync(file, { force: true });
});

/** The path of `entry` (a .ts file) bundled to plain JavaScript, to start as `node <path> ...args`. */
export function nodeScript(entry: string): string {
  let outfile = built.get(entry);
  if (!outfile) {
    outfile = join(folder, `${basename(entry, '.ts')}-${process.pid}.js`);
    mkdirSync(folder, { recursive: true });
    buildSync({ entryPoints: [entry], outfile, bundle: true, platform: 'node', format: 'cjs', target: 'node24', packages: 'external', logLevel: 'warning' });
    built.set(entry, outfile);
  }
  return outfile;
}
