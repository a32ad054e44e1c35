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

/** Control characters (C0, DEL, C1) and the Unicode line and paragraph separators. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * `message` as one line: every control character escaped (`\n`, `\r`, `\t`, else `\xNN` or
 * `\uNNNN`). Names in messages come from the workspace (a file named with a line break), and one
 * log call must be one line: a name cannot forge a line of its own. A stack trace becomes one line too.
 */
export function logLine(message: string): string {
  return String(message).replace(CONTROL, (c) => NAMED[c] ?? (c.charCodeAt(0) <= 0xff ? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}` : `\\u${c.charCodeAt(0).toString(16)}`));
}

export function stderrLogger(level: LogLevel = 'info'): Logger {
  const write = (at: Exclude<LogLevel, 'silent'>, message: string) => {
    if (RANK[at] >= RANK[level]) process.stderr.write(`[${new Date().toISOString()}] ${at.padEnd(5)} ${logLine(message)}\n`);
  };
  return {
    debug: (m) => write('debug', m),
    info: (m) => write('info', m),
    warn: (m) => write('warn', m),
    error: (m) => write('error', m),
  };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
