/** The Logger the core writes to, on the extension's log output channel ("Atomic Coding"), one line per call. */
import type * as vscode from 'vscode';
import { logLine, type Logger } from '../util/log.js';

export function outputLogger(channel: vscode.LogOutputChannel): Logger {
  return {
    // One call, one line: control characters in a message (a file name with a line break) are escaped.
    debug: (m) => channel.debug(logLine(m)),
    info: (m) => channel.info(logLine(m)),
    warn: (m) => channel.warn(logLine(m)),
    error: (m) => channel.error(logLine(m)),
  };
}
