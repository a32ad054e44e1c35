/** MCP over stdin/stdout for one client. stdout carries protocol messages only. */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Logger } from '../../util/log.js';
import { createMcpServer, SessionRegistry, type WorkspaceOpening } from '../server.js';
import type { ToolDefinition } from '../tool.js';
import { allTools } from '../tools/index.js';

/** How long a closed stdin waits for answers still being computed before the server stops. */
const DRAIN_MS = 30_000;

/**
 * Serves until the client closes stdin; resolves then, once every request already received has
 * been answered (a client may write its last request and close stdin at once: its answer must
 * still be written). `tools` defaults to every product tool.
 *
 * `workspace` may still be opening: initialize and tools/list are answered at once, tool calls
 * wait for it. Should it fail to open, the server stops (the caller reports why).
 */
export async function serveStdio(
  workspace: WorkspaceOpening,
  log: Logger,
  tools: ToolDefinition[] = allTools,
  /** Stops serving as a closed stdin does (a SIGTERM: the client's way to end a stdio server). */
  until?: Promise<void>,
): Promise<void> {
  const sessions = new SessionRegistry();
  const server = createMcpServer({ workspace, log, sessions, tools });
  const transport = new StdioServerTransport();
  let transportClosed = false;
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => {
      transportClosed = true;
      resolve();
    };
    process.stdin.once('end', () => resolve());
    void until?.then(resolve);
  });
  await server.connect(transport);
  Promise.resolve(workspace).catch(() => void transport.close());
  const inFlight = trackRequests(transport);
  log.info('mcp: serving on stdio');
  await closed;
  if (!transportClosed) await inFlight.drained(DRAIN_MS);
  await server.close().catch(() => {});
}

/** Counts requests received and not yet answered, by wrapping the transport's two directions. */
function trackRequests(transport: StdioServerTransport) {
  const open = new Set<string | number>();
  let wake: (() => void) | undefined;
  const receive = transport.onmessage;
  transport.onmessage = (message) => {
    if ('method' in message && 'id' in message) open.add(message.id);
    receive?.(message);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message) => {
    try {
      return await send(message);
    } finally {
      if (!('method' in message) && 'id' in message && message.id !== undefined && open.delete(message.id) && open.size === 0) wake?.();
    }
  };
  return {
    drained(timeoutMs: number): Promise<void> {
      if (open.size === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    },
  };
}
