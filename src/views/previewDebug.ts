/**
 * Debug Live Preview: VS Code's JavaScript debugger (js-debug, built into VS Code, launch type `chrome`)
 * on the loopback browser preview. The frame names latest.js by its address and latest.js.map by its
 * address (page.ts inlineBundleTag); the server serves the map with the atoms' files as file URLs
 * (previewPanel.ts readSourceMap), so a breakpoint in atoms/<name>.js binds, the call stack shows atom
 * files and lines, and stepping goes from atom to atom.
 *
 * A launch configuration of type `atomic-live-preview` (contributed in package.json) resolves to that
 * `chrome` configuration once the server is up; the command starts the same configuration.
 */
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import type { PreviewServer } from '../preview/previewServer.js';

export const LIVE_PREVIEW_DEBUG_TYPE = 'atomic-live-preview';

/** What a user (or a test) may set in the launch configuration; the rest is ours. */
export interface LivePreviewDebugOptions {
  runtimeExecutable?: string;
  runtimeArgs?: string[];
}

/** js-debug's `chrome` launch configuration for the preview at `url`, atoms under `folder`. */
export function chromeConfiguration(url: string, folder: vscode.Uri, options: LivePreviewDebugOptions, name = 'Debug Live Preview'): vscode.DebugConfiguration {
  const runtimeExecutable = options.runtimeExecutable ?? (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined);
  return {
    type: 'chrome',
    request: 'launch',
    name,
    url,
    webRoot: folder.fsPath,
    ...(runtimeExecutable ? { runtimeExecutable } : {}),
    runtimeArgs: ['--disable-background-networking', '--disable-component-update', '--no-first-run', ...(options.runtimeArgs ?? [])],
    sourceMaps: true,
    // The map comes from the loopback server, not from the folder: let js-debug use it.
    resolveSourceMapLocations: null,
    pauseForSourceMap: true,
    // A fresh profile for every session: nothing of the user's browser, nothing left behind to reuse.
    userDataDir: true,
  };
}

/** Registers the configuration provider and the command; `start` starts (or finds) the preview server. */
export function registerPreviewDebug(folder: () => vscode.Uri | undefined, start: () => Promise<PreviewServer>, commandId: string): vscode.Disposable[] {
  const resolve = async (config: vscode.DebugConfiguration, workspaceFolder?: vscode.WorkspaceFolder): Promise<vscode.DebugConfiguration | undefined> => {
    const root = workspaceFolder?.uri ?? folder();
    if (!root) {
      void vscode.window.showInformationMessage('Atomic Coding: open a folder first; its atoms are stored in .atomic/ inside it.');
      return undefined;
    }
    const server = await start();
    return chromeConfiguration(server.url, root, config as LivePreviewDebugOptions, typeof config.name === 'string' && config.name ? config.name : undefined);
  };
  return [
    vscode.debug.registerDebugConfigurationProvider(LIVE_PREVIEW_DEBUG_TYPE, {
      provideDebugConfigurations: () => [{ type: LIVE_PREVIEW_DEBUG_TYPE, request: 'launch', name: 'Debug Live Preview' }],
      resolveDebugConfiguration: (workspaceFolder, config) => resolve(config, workspaceFolder),
    }),
    vscode.commands.registerCommand(commandId, async (options?: LivePreviewDebugOptions) => {
      const root = folder();
      const target = root ? vscode.workspace.getWorkspaceFolder(root) : undefined;
      return vscode.debug.startDebugging(target, { type: LIVE_PREVIEW_DEBUG_TYPE, request: 'launch', name: 'Debug Live Preview', ...(options ?? {}) });
    }),
  ];
}
