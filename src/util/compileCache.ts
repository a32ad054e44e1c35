/**
 * Node's compile cache (V8 code cache on disk) for the processes we start: the headless server an
 * agent launches (dist/cli.js) and the embedding model's process. Compiling the 2.3 MB command
 * line took about 60 ms of every start and 8 MiB of its memory; with the cache a start reads the
 * compiled code instead (measured: `cli.js --version` 0.17 s / 87 MiB -> 0.11 s / 79 MiB).
 *
 * The cache lives in this user's cache folder (util/cacheDir.ts), created readable by its user
 * only: code cache is trusted as compiled code, so it must not sit where others may write (a
 * shared /tmp, Node's default). Node checks each entry against its source's hash, the Node version
 * and the V8 options; a stale or foreign entry is compiled again. A folder that cannot be made
 * leaves the cache off: nothing else changes.
 */
import { mkdirSync } from 'node:fs';
import nodeModule from 'node:module';
import { join } from 'node:path';
import { userCacheDir } from './cacheDir.js';

/** Where the compile cache lives, or undefined when that folder cannot be made ours. */
export function compileCacheDir(): string | undefined {
  const dir = join(userCacheDir(), 'compile-cache');
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  } catch {
    return undefined;
  }
}

/** The environment that turns the cache on in a child process from its first line (its own script included). */
export function compileCacheEnv(): { NODE_COMPILE_CACHE?: string } {
  const dir = compileCacheDir();
  return dir ? { NODE_COMPILE_CACHE: dir } : {};
}

/**
 * Turns the cache on for modules this process loads from now on (Node 22.1 and later); the
 * module that calls it is compiled already, so an entry point calls it and then loads the rest.
 */
export function enableCompileCache(): void {
  const enable = (nodeModule as { enableCompileCache?: (dir: string) => unknown }).enableCompileCache;
  const dir = enable ? compileCacheDir() : undefined;
  if (enable && dir) enable(dir);
}
