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
  /** js-debug's log of the session (breakpoints, scripts, source maps), for finding out why one does not bind. */
  trace?: boolean;
}

/**
 * Arguments the browser needs where the extension host runs: headless on Linux without a display (a
 * code-server or SSH host: Chromium would exit with "Missing X server"), and without Chromium's own
 * sandbox when the host runs as root (Chromium refuses to start as root otherwise; the page it opens is
 * the loopback preview of this folder's own atoms).
 */
export function hostBrowserArgs(env: NodeJS.ProcessEnv = process.env, platform = process.platform, uid = process.getuid?.()): string[] {
  if (platform !== 'linux') return [];
  const args: string[] = [];
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) args.push('--headless=new');
  if (uid === 0) args.push('--no-sandbox');
  return args;
}

/** js-debug's `chrome` launch configuration for the preview at `url`, atoms under `folder`. */
export function chromeConfiguration(url: string, folder: vscode.Uri, options: LivePreviewDebugOptions, name = 'Debug Live Preview'): vscode.DebugConfiguration {
  const runtimeExecutable = options.runtimeExecutable ?? (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined);
  const given = options.runtimeArgs ?? [];
  const hostArgs = hostBrowserArgs().filter((a) => !given.some((g) => g.split('=')[0] === a.split('=')[0]));
  return {
    type: 'chrome',
    request: 'launch',
    name,
    url,
    webRoot: folder.fsPath,
    // The browser runs beside the extension host, where the preview listens on 127.0.0.1: in a remote
    // window (code-server, SSH) js-debug would otherwise start it on the user's side, through a companion
    // extension, where that address is another machine (or, in code-server's browser UI, nowhere).
    browserLaunchLocation: 'workspace',
    ...(runtimeExecutable ? { runtimeExecutable } : {}),
    runtimeArgs: ['--disable-background-networking', '--disable-component-update', '--no-first-run', ...hostArgs, ...given],
    sourceMaps: true,
    // The map comes from the loopback server, not from the folder: let js-debug use it.
    resolveSourceMapLocations: null,
    pauseForSourceMap: true,
    // A fresh profile for every session: nothing of the user's browser, nothing left behind to reuse.
    userDataDir: true,
    ...(options.trace ? { trace: true } : {}),
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
