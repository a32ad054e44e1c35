/**
 * The MCP server in this process: a workspace opened from source (no build), the server that
 * the CLI and the extension create for every session (createMcpServer), and the official SDK
 * client, linked by the SDK's in-memory transport. Tool behaviour and argument checking are
 * tested here; what only a process shows (stdio purity, HTTP auth, crashes, one writer, the
 * bundled dist/ files) is tested through test/support/server.ts.
 *
 * Every message is passed through JSON on its way, as on a real wire, so a test sees what an
 * agent would: no `undefined`, no NaN, no shared objects between client and server.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer, SessionRegistry } from '../../src/mcp/server.js';
import type { ToolDefinition } from '../../src/mcp/tool.js';
import { KeywordOnlyProvider } from '../../src/search/embeddings/keyword.js';
import { silentLogger, type Logger } from '../../src/util/log.js';
import { AtomWorkspace, type WorkspaceOptions } from '../../src/workspace.js';
import { call, type TextResult } from './client.js';
import { tempDir } from './tmp.js';

/** No model (the keyword-only provider, which refuses every embed): semantic_search ranks by words only. */
export const wordsOnly = new KeywordOnlyProvider();

export interface InProcessOptions extends WorkspaceOptions {
  /** The workspace folder; default a fresh tempDir(). */
  folder?: string;
  /** The tools served; default every tool, as the CLI serves them. */
  tools?: ToolDefinition[];
  /** The first client's name (clientInfo). */
  clientName?: string;
}

export interface InProcessServer {
  folder: string;
  workspace: AtomWorkspace;
  /** The first session's client. */
  client: Client;
  /** Calls a tool through the first client and returns its text (an error result is returned, not thrown). */
  call(tool: string, args?: Record<string, unknown>): Promise<TextResult>;
  /** Another session on the same workspace, as a second agent would have (closed by close()). */
  connect(name?: string): Promise<Client>;
  /** Closes every client, then the workspace (the store's lock is released). */
  close(): Promise<void>;
}

/** A transport that sends each message as its JSON text would arrive, never the sender's own object. */
class JsonWire implements Transport {
  constructor(private readonly inner: Transport) {}
  get onmessage() {
    return this.inner.onmessage;
  }
  set onmessage(handler) {
    this.inner.onmessage = handler;
  }
  get onclose() {
    return this.inner.onclose;
  }
  set onclose(handler) {
    this.inner.onclose = handler;
  }
  get onerror() {
    return this.inner.onerror;
  }
  set onerror(handler) {
    this.inner.onerror = handler;
  }
  start(): Promise<void> {
    return this.inner.start();
  }
  close(): Promise<void> {
    return this.inner.close();
  }
  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(JSON.parse(JSON.stringify(message)) as JSONRPCMessage, options);
  }
}

/**
 * Opens a workspace (by default in a fresh temp folder, with the shipped embedding model as the
 * CLI has it; pass `embeddings: wordsOnly` to load no model) and connects one client to it.
 */
export async function openInProcess(options: InProcessOptions = {}): Promise<InProcessServer> {
  const { folder = tempDir('atomic-inproc-'), tools, clientName = 'in-process-test', ...workspaceOptions } = options;
  const log: Logger = workspaceOptions.log ?? silentLogger;
  const workspace = await AtomWorkspace.open(folder, { ...workspaceOptions, log });
  const sessions = new SessionRegistry();
  const clients: Client[] = [];

  async function connect(name = 'in-process-client'): Promise<Client> {
    const server = createMcpServer({ workspace, log, sessions, tools });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(new JsonWire(serverSide));
    const client = new Client({ name, version: '1.0.0' });
    await client.connect(new JsonWire(clientSide));
    clients.push(client);
    return client;
  }

  let client: Client;
  try {
    client = await connect(clientName);
  } catch (err) {
    await workspace.close();
    throw err;
  }
  let closed: Promise<void> | undefined;
  return {
    folder,
    workspace,
    client,
    call: (tool, args = {}) => call(client, tool, args),
    connect,
    close() {
      closed ??= (async () => {
        // Closing a client closes its linked server session too (its resource subscriptions end).
        await Promise.all(clients.map((c) => c.close()));
        // Let the search index finish opening first, as a long-running server would have.
        await workspace.search.open().catch(() => {});
        await workspace.close();
      })();
      return closed;
    },
  };
}
