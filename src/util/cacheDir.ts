/**
 * This user's cache folder for Atomic Coding, outside every workspace: `$ATOMIC_CODING_CACHE_DIR`,
 * else `$XDG_CACHE_HOME/atomic-coding`, else `~/.cache/atomic-coding`. It holds what must not
 * come from a cloned repository: the open check's secret (store/checkSeal.ts) and Node's compile
 * cache for our own processes (compileCache.ts).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

export function userCacheDir(): string {
  const env = process.env;
  if (env.ATOMIC_CODING_CACHE_DIR) return env.ATOMIC_CODING_CACHE_DIR;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'atomic-coding');
}
