/** MCP over stdin/stdout for one client. stdout carries protocol messages only. */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Logger } from '../util/log.js';
import type { AtomWorkspace } from '../workspace.js';
import { createMcpServer, SessionRegistry } from './server.js';

/** Serves until the client closes stdin; resolves then. */
export async function serveStdio(workspace: AtomWorkspace, log: Logger): Promise<void> {
  const sessions = new SessionRegistry();
  const server = createMcpServer({ workspace, log, sessions });
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
