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

export function registerMcpProvider(lifecycle: WorkspaceLifecycle): vscode.Disposable {
  const changed = new vscode.EventEmitter<void>();
  const definition = (): vscode.McpHttpServerDefinition[] => {
    const host = lifecycle.host;
    if (!host) return [];
    return [new vscode.McpHttpServerDefinition(MCP_SERVER_LABEL, vscode.Uri.parse(host.url), { Authorization: `Bearer ${host.token}` }, VERSION)];
  };
  const registration = vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () => definition(),
    resolveMcpServerDefinition: async (server) => {
      // VS Code asks right before it connects: hand over the current address and token, which may be
      // newer than the ones it listed if the server restarted in between.
      if (lifecycle.state !== 'ready') await lifecycle.start();
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
