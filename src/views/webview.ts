/**
 * What the host side of the webview panels (the graph, the preview) shares, so neither panel borrows
 * from the other. The messages they exchange with their pages are the protocol in
 * src/protocol/webviewMessages.ts, which the pages import too; this file is host-only (it names vscode).
 */
import { randomBytes } from 'node:crypto';
import type * as vscode from 'vscode';
import type { WorkspaceLifecycle } from '../lifecycle.js';
import type { Logger } from '../util/log.js';

/** What the graph and preview panels use. They exist only in a window with a folder. */
export interface PanelDeps {
  lifecycle: WorkspaceLifecycle;
  extensionUri: vscode.Uri;
  log: Logger;
}

/** A fresh nonce for a webview page's Content-Security-Policy (144 random bits, URL-safe base64). */
export function makeNonce(): string {
  return randomBytes(18).toString('base64url');
}
