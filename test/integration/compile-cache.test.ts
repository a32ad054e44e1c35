/**
 * dist/cli.js turns on Node's compile cache in this user's cache folder (util/compileCache.ts):
 * the first start writes the compiled command line there, later starts read it, and stdout still
 * carries only what the command prints. A cache folder that cannot be made changes nothing else.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI } from '../support/server.js';
import { tempDir } from '../support/tmp.js';
import { VERSION } from '../../src/version.js';

function version(cacheDir: string): string {
  return execFileSync(process.execPath, [CLI, '--version'], { env: { ...process.env, ATOMIC_CODING_CACHE_DIR: cacheDir }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function cacheFiles(dir: string): { path: string; mtimeMs: number; size: number }[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const path = join(e.parentPath, e.name);
      const { mtimeMs, size } = statSync(path);
      return { path, mtimeMs, size };
    });
}

test('the first start writes the compiled command line to the user cache folder, the next one reads it', () => {
  const home = tempDir('atomic-compile-cache-');
  assert.equal(version(home), `${VERSION}\n`, 'stdout holds the version and nothing else');
  const cache = join(home, 'compile-cache');
  assert.equal(statSync(cache).mode & 0o777, 0o700, 'the cache folder is its user\'s only: code cache is trusted as code');
  const written = cacheFiles(cache);
  // The command line's 2.3 MB compile to several hundred KB of code cache.
  assert.ok(written.some((f) => f.size > 100_000), `compiled code was cached: ${JSON.stringify(written)}`);
  assert.equal(version(home), `${VERSION}\n`);
  assert.deepEqual(cacheFiles(cache), written, 'a start that read the cache did not compile and write it again');
});

test('a cache folder that cannot be made leaves the cache off and changes nothing else', () => {
  const home = tempDir('atomic-compile-cache-');
  const file = join(home, 'not-a-folder');
  writeFileSync(file, 'x');
  assert.equal(version(join(file, 'cache')), `${VERSION}\n`);
});
