/** The Logger the core writes to, on the extension's log output channel ("Atomic Coding"). */
import type * as vscode from 'vscode';
import type { Logger } from '../util/log.js';

export function outputLogger(channel: vscode.LogOutputChannel): Logger {
  return {
    debug: (m) => channel.debug(m),
    info: (m) => channel.info(m),
    warn: (m) => channel.warn(m),
    error: (m) => channel.error(m),
  };
}
