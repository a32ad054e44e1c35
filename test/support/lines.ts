/** A Logger that keeps every line it is given, at any level, for a test to look through. */
import type { Logger } from '../../src/util/log.js';

export function linesLogger(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const keep = (m: string) => void lines.push(m);
  return { log: { debug: keep, info: keep, warn: keep, error: keep }, lines };
}
