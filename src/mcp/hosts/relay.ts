/**
 * The stdio-to-HTTP relay: every JSON-RPC message from the agent's stdin goes to the running server
 * over Streamable HTTP (with its token), and every answer and notification comes back on stdout.
 *
 * If the server goes away (VS Code restarted it, with a new port and token), the relay asks for the
 * server again (`discover`: server.json read again, or a take-over), replays the agent's initialize
 * handshake to the new server and carries on; if no server is there any more, requests get a
 * JSON-RPC error that says what to do.
 */
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../util/log.js';
import type { RemoteServer } from './trust.js';

export interface BridgeOptions {
  /** Finds the live server (reads server.json and checks it answers); undefined when there is none. */
  discover(): Promise<RemoteServer | undefined>;
  log: Logger;
  /** The agent's side; default: this process's stdin/stdout. */
  local?: Transport;
  /** Makes the HTTP side (tests may count connections); default: Streamable HTTP. */
  connect?: (server: RemoteServer) => Transport;
}

type Message = JSONRPCMessage & { id?: string | number; method?: string; result?: { protocolVersion?: string } };

const defaultConnect = (server: RemoteServer): Transport =>
  new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers } });

/**
 * Runs the bridge until the agent closes stdin (or the local transport closes). Resolves then.
 * Rejects only when no server can be reached at start.
 */
export async function runBridge(options: BridgeOptions): Promise<void> {
  const { log } = options;
  const connect = options.connect ?? defaultConnect;
  const local = options.local ?? new StdioServerTransport();
  if (!options.local) {
    // MCP clients usually stop a stdio server with a signal: end the HTTP session on the way out, so
    // the server does not keep it open until its idle timeout.
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(signal, () => void local.close());
  }
  const first = await options.discover();
  if (!first) throw new Error('no running Atomic Coding server to bridge to');

  let initialize: Message | undefined;
  let initialized: Message | undefined;
  let replaying: string | number | undefined;
  let remote: Transport;

  const open = async (server: RemoteServer): Promise<Transport> => {
    const transport = connect(server);
    transport.onmessage = (raw) => {
      const message = raw as Message;
      if (initialize && message.id === initialize.id && message.result?.protocolVersion) {
        (transport as Partial<StreamableHTTPClientTransport>).setProtocolVersion?.(message.result.protocolVersion);
      }
      if (replaying !== undefined && message.id === replaying) {
        replaying = undefined; // the agent already has its initialize result from the first server
        return;
      }
      local.send(raw).catch((err) => log.warn(`bridge: could not write to the agent: ${(err as Error).message}`));
    };
    transport.onerror = (err) => log.debug(`bridge: HTTP side: ${err.message}`);
    await transport.start();
    log.info(`bridge: forwarding stdio to ${server.url}`);
    return transport;
  };

  /** After a failure: find the server again (it may have restarted) and replay the handshake. */
  const reconnect = async (): Promise<boolean> => {
    const server = await options.discover();
    if (!server) return false;
    await remote.close().catch(() => {});
    remote = await open(server);
    if (initialize) {
      replaying = initialize.id;
      await remote.send(initialize);
      for (let i = 0; i < 100 && replaying !== undefined; i++) await new Promise((r) => setTimeout(r, 20));
      if (initialized) await remote.send(initialized);
    }
    return true;
  };

  remote = await open(first);
  let chain = Promise.resolve();
  const forward = async (message: Message): Promise<void> => {
    if (message.method === 'initialize') initialize = message;
    if (message.method === 'notifications/initialized') initialized = message;
    try {
      await remote.send(message);
      return;
    } catch (err) {
      log.warn(`bridge: the server did not take a message (${(err as Error).message}); looking for it again`);
    }
    try {
      if (await reconnect()) {
        await remote.send(message);
        return;
      }
    } catch (err) {
      log.warn(`bridge: reconnecting failed: ${(err as Error).message}`);
    }
    if (message.id !== undefined && message.method) {
      await local.send({
        jsonrpc: '2.0',
        id: message.id,
        error: {
          code: -32000,
          message:
            'The Atomic Coding server in VS Code is not reachable any more (VS Code closed or the server stopped). Restart this MCP server: it then opens the workspace itself.',
        },
      });
    }
  };

  await new Promise<void>((resolve) => {
    // Messages are forwarded one at a time, in order, as the protocol expects of a single stream.
    local.onmessage = (message: JSONRPCMessage) => {
      chain = chain.then(() => forward(message as Message)).catch((err) => log.error(`bridge: ${(err as Error).message}`));
    };
    local.onclose = () => {
      chain
        .then(() => (remote as Partial<StreamableHTTPClientTransport>).terminateSession?.())
        .catch(() => {})
        .then(() => remote.close())
        .catch(() => {})
        .finally(resolve);
    };
    local.onerror = (err) => log.warn(`bridge: stdio: ${err.message}`);
    local.start().catch((err) => {
      log.error(`bridge: stdio failed to start: ${(err as Error).message}`);
      resolve();
    });
  });
}
