/**
 * The status bar item: the server's state, the number of atoms and the last build's result at a
 * glance; a click opens the details (Atomic Coding: Show Status).
 */
import * as vscode from 'vscode';
import { Commands } from './commandIds.js';
import type { WorkspaceLifecycle } from '../lifecycle.js';

export class AtomStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('atomicCoding.status', vscode.StatusBarAlignment.Left, 50);
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly lifecycle: WorkspaceLifecycle) {
    this.item.name = 'Atomic Coding';
    this.item.command = Commands.showStatus;
    this.subscriptions = [lifecycle.onDidChangeState(() => this.update()), lifecycle.onDidChangeAtoms(() => this.update()), lifecycle.onDidBuild(() => this.update())];
    this.update();
  }

  /** The text shown, for tests and the UI run. */
  get text(): string {
    return this.item.text;
  }

  update(): void {
    const s = this.lifecycle;
    const tooltip = new vscode.MarkdownString(undefined, true);
    tooltip.appendMarkdown('**Atomic Coding**\n\n');
    this.item.backgroundColor = undefined;
    switch (s.state) {
      case 'idle':
        // Not started in this folder (nothing written here yet): no item, nothing spinning.
        this.item.hide();
        return;
      case 'starting':
        this.item.text = '$(sync~spin) Atomic Coding';
        tooltip.appendMarkdown('Opening the atom store and starting the MCP server\u2026');
        break;
      case 'failed':
        this.item.text = '$(error) Atomic Coding';
        this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
        tooltip.appendText(`Not running: ${s.error ?? 'unknown error'}`);
        break;
      case 'ready': {
        const count = s.atoms()?.length ?? 0;
        const build = s.lastBuild;
        const buildIcon = !build ? '' : build.status === 'success' ? ' $(check)' : ' $(warning)';
        this.item.text = `$(server-process) ${count} atom${count === 1 ? '' : 's'}${buildIcon}`;
        if (build?.status === 'error') this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
        tooltip.appendMarkdown(`MCP server: \`${s.host?.url}\`\n\n${count} atom${count === 1 ? '' : 's'} in \`${s.folder.fsPath}\`\n\n`);
        if (build) {
          tooltip.appendText(
            build.status === 'success'
              ? `Last build: ${build.atom_count} atom${build.atom_count === 1 ? '' : 's'} in ${build.duration_ms ?? '?'} ms`
              : `Last build failed: ${build.error_message ?? ''}`,
          );
        }
        break;
      }
    }
    tooltip.appendMarkdown('\n\nClick for details.');
    this.item.tooltip = tooltip;
    this.item.show();
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.item.dispose();
  }
}
