/**
 * Registers `atomicCoding.<id>` so that a failure is logged and shown to the user with its reason,
 * instead of surfacing as VS Code's generic "command failed". The commands' own refusals (a missing
 * dependency, no such version) travel as thrown errors and end here too.
 */
import * as vscode from 'vscode';
import type { Logger } from '../util/log.js';

export function registerReportingCommand<T>(
  id: string,
  run: (this: T, ...args: never[]) => unknown,
  thisArg: T,
  log: Logger,
  level: 'error' | 'warn' = 'error',
): vscode.Disposable {
  return vscode.commands.registerCommand(`atomicCoding.${id}`, async (...args: never[]) => {
    try {
      return await run.apply(thisArg, args);
    } catch (err) {
      const message = (err as Error).message ?? String(err);
      log[level](`${id}: ${message}`);
      void vscode.window.showErrorMessage(`Atomic Coding: ${message}`);
      return undefined;
    }
  });
}
