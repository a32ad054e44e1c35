/**
 * Registers a command so that a failure is logged and shown to the user with its reason, instead of
 * surfacing as VS Code's generic "command failed". The commands' own refusals (a missing dependency,
 * no such version) travel as thrown errors and end here too; commands whose refusals are the user's
 * answer rather than a fault register with the 'warn' level, shown as a warning.
 */
import * as vscode from 'vscode';
import type { Logger } from '../util/log.js';
import { commandName, type CommandId } from './commandIds.js';

export function registerReportingCommand<T>(
  id: CommandId,
  run: (this: T, ...args: never[]) => unknown,
  thisArg: T,
  log: Logger,
  level: 'error' | 'warn' = 'error',
): vscode.Disposable {
  return vscode.commands.registerCommand(id, async (...args: never[]) => {
    try {
      return await run.apply(thisArg, args);
    } catch (err) {
      const message = (err as Error).message ?? String(err);
      log[level](`${commandName(id)}: ${message}`);
      const show = level === 'warn' ? vscode.window.showWarningMessage : vscode.window.showErrorMessage;
      void show(`Atomic Coding: ${message}`);
      return undefined;
    }
  });
}
