/**
 * The command line's options, read by dist/cli.js's entry (cliEntry.ts: whether to start the
 * model's process before the rest loads) and by the command line itself (cli.ts), the same way.
 * Kept small: dist/cli.js bundles this module, compiled at every start.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { holdsVectors } from './store/vectors/vectorFile.js';

const OPTIONS = {
  workspace: { type: 'string', short: 'w' },
  'atoms-folder': { type: 'string' },
  port: { type: 'string', short: 'p' },
  stdio: { type: 'boolean' },
  'log-level': { type: 'string' },
  'bench-tools': { type: 'boolean' },
  junit: { type: 'string' },
  version: { type: 'boolean', short: 'v' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The arguments as options and positionals; throws on an unknown option (cli.ts reports it). */
export function parseCliArgs(argv: string[]) {
  return parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
}

/**
 * Whether these arguments serve a workspace that holds stored vectors (it was embedded before),
 * from a process that will open it itself: then its first search's query waits for the model's
 * process, which may start at once. Not for a stdio server that will bridge to a running one
 * (`.atomic/server.json` there: cli.ts checks it in full), nor for arguments cli.ts refuses.
 */
export function servesEmbeddedWorkspace(argv: string[]): boolean {
  let parsed: ReturnType<typeof parseCliArgs>;
  try {
    parsed = parseCliArgs(argv);
  } catch {
    return false;
  }
  const { values, positionals } = parsed;
  if (values.help || values.version || (positionals[0] ?? 'serve') !== 'serve' || positionals.length > 1) return false;
  const dir = resolve(values.workspace ?? process.cwd());
  if (values.stdio && !values['bench-tools'] && existsSync(join(dir, '.atomic', 'server.json'))) return false;
  return embeddedBefore(dir);
}

/** Whether the workspace in `dir` holds stored vectors: it was embedded before, and its searches will want the model. */
export function embeddedBefore(dir: string): boolean {
  return holdsVectors(join(dir, '.atomic', 'vectors.bin'));
}
