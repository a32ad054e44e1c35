/** MCP over stdin/stdout for one client. stdout carries protocol messages only. */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Logger } from '../util/log.js';
import type { AtomWorkspace } from '../workspace.js';
import { createMcpServer, SessionRegistry } from './server.js';
import type { ToolDefinition } from './tool.js';
import { allTools } from './tools/index.js';

/** Serves until the client closes stdin; resolves then. `tools` defaults to every product tool. */
export async function serveStdio(workspace: AtomWorkspace, log: Logger, tools: ToolDefinition[] = allTools): Promise<void> {
  const sessions = new SessionRegistry();
  const server = createMcpServer({ workspace, log, sessions, tools });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  log.info('mcp: serving on stdio');
  await closed;
  await server.close().catch(() => {});
}
