/**
 * Logging. On stdio, stdout carries protocol messages only, so the headless logger writes to
 * stderr; in VS Code the extension passes a logger that writes to its output channel.
 */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** How much our own logger writes: this level and above (`--log-level` on the command line). */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3, silent: 4 };

export function stderrLogger(level: LogLevel = 'info'): Logger {
  const write = (at: Exclude<LogLevel, 'silent'>, message: string) => {
    if (RANK[at] >= RANK[level]) process.stderr.write(`[${new Date().toISOString()}] ${at.padEnd(5)} ${message}\n`);
  };
  return {
    debug: (m) => write('debug', m),
    info: (m) => write('info', m),
    warn: (m) => write('warn', m),
    error: (m) => write('error', m),
  };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
