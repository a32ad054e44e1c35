/**
 * What the extension-host test files share: the extension under test, activated and ready, a
 * report line for the run's results file, and waiting for what VS Code does after a command returns.
 */
import * as assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import * as vscode from 'vscode';
import type { AtomicCodingApi } from '../../../src/extension.js';

export const EXTENSION_ID = 'atomic-coding.atomic-coding';

/** The extension's API once its store and server have started (activating it if needed). */
export async function readyExtension(): Promise<{ api: AtomicCodingApi; extension: vscode.Extension<AtomicCodingApi>; readyMs: number }> {
  const extension = vscode.extensions.getExtension<AtomicCodingApi>(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is installed`);
  const api = extension.isActive ? extension.exports : await extension.activate();
  // The suite's folder starts empty, so Atomic Coding waits to be asked (a-citizen.test.ts checks that).
  if (api.lifecycle?.state === 'idle') await vscode.commands.executeCommand('atomicCoding.startHere');
  const readyMs = await api.ready;
  return { api, extension, readyMs };
}

/** A line for the log and for the run's results file (ATOMIC_E2E_RESULTS), which the launcher prints. */
export function report(line: string): void {
  console.log(`[e2e] ${line}`);
  const file = process.env.ATOMIC_E2E_RESULTS;
  if (file) appendFileSync(file, line + '\n');
}

/** Waits for a condition driven by events elsewhere (file system, MCP, webviews); fails with `what` after `ms`. */
export async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, ms = 30_000): Promise<T> {
  for (const end = Date.now() + ms; ; ) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
