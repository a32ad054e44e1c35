/**
 * Makes the extension's MCP server visible to VS Code's own MCP client (Copilot agent mode) with no
 * configuration: an McpHttpServerDefinition carrying the server's URL and bearer token. When the server
 * restarts (new port or token) the provider fires onDidChangeMcpServerDefinitions so VS Code reconnects.
 */
import * as vscode from 'vscode';
import { VERSION } from '../version.js';
import type { WorkspaceLifecycle } from '../lifecycle.js';

export const MCP_PROVIDER_ID = 'atomicCoding.mcp';
export const MCP_SERVER_LABEL = 'Atomic Coding';

export interface McpProviderOptions {
  /**
   * Asked when VS Code connects while the workspace is not started (a folder without atoms): true when
   * the user allows starting it there (which writes .atomic/ and atoms/). False: the connection fails
   * with a message saying how to start it.
   */
  mayStart(): Promise<boolean>;
}

/**
 * The definition is listed whenever a folder is open, also before the server runs (an agent sees
 * "Atomic Coding" in its server list in any folder); the address is filled in when VS Code connects.
 */
const NOT_STARTED_URL = 'http://127.0.0.1/atomic-coding-not-started';

export function registerMcpProvider(lifecycle: WorkspaceLifecycle, options: McpProviderOptions): vscode.Disposable {
  const changed = new vscode.EventEmitter<void>();
  const definition = (): vscode.McpHttpServerDefinition[] => {
    const host = lifecycle.host;
    return [new vscode.McpHttpServerDefinition(MCP_SERVER_LABEL, vscode.Uri.parse(host?.url ?? NOT_STARTED_URL), host ? { Authorization: `Bearer ${host.token}` } : {}, VERSION)];
  };
  const registration = vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () => definition(),
    resolveMcpServerDefinition: async (server) => {
      // VS Code asks right before it connects: hand over the current address and token, which may be
      // newer than the ones it listed if the server restarted in between.
      if (lifecycle.state !== 'ready') {
        if (!(await options.mayStart())) {
          throw new Error('Atomic Coding is not started in this folder: allow it when asked, or run "Atomic Coding: Start Atomic Coding Here"');
        }
        await lifecycle.start();
      }
      const host = lifecycle.host;
      if (!host) throw new Error(`the Atomic Coding server is not running: ${lifecycle.error ?? 'no workspace folder is open'}`);
      if (server instanceof vscode.McpHttpServerDefinition) {
        server.uri = vscode.Uri.parse(host.url);
        server.headers = { ...server.headers, Authorization: `Bearer ${host.token}` };
      }
      return server;
    },
  });
  const subscription = lifecycle.onDidChangeServer(() => changed.fire());
  return vscode.Disposable.from(registration, subscription, changed);
}
