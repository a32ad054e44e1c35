/**
 * The Logger the core writes to, on the extension's output channel ("Atomic Coding"), one line per call.
 *
 * Each line carries the time it was logged, taken here when the call is made. (A log output channel
 * stamps a line when the window writes it, and at startup that is later: the lines logged while the
 * extension host was busy opening the store all showed the moment it was done.) Debug lines are written
 * only when VS Code's log level for the window is Debug or Trace.
 */
import type * as vscode from 'vscode';
import { logLine, type Logger } from '../util/log.js';

function stamp(date: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${date.getFullYear()}-${p(date.getMonth() + 1)}-${p(date.getDate())} ${p(date.getHours())}:${p(date.getMinutes())}:${p(date.getSeconds())}.${p(date.getMilliseconds(), 3)}`;
}

/** `debugOn` says whether VS Code's log level for the window is Debug or Trace now. */
export function outputLogger(channel: Pick<vscode.OutputChannel, 'appendLine'>, debugOn: () => boolean): Logger {
  const write = (level: string, m: string) => channel.appendLine(`${stamp(new Date())} [${level}] ${logLine(m)}`);
  return {
    // One call, one line: control characters in a message (a file name with a line break) are escaped.
    debug: (m) => {
      if (debugOn()) write('debug', m);
    },
    info: (m) => write('info', m),
    warn: (m) => write('warning', m),
    error: (m) => write('error', m),
  };
}
