/**
 * The MCP server for one client session: tools from `tools/`, argument checking, and the
 * contract's error shape. Every transport (HTTP session, stdio) gets its own instance over the
 * same workspace; `SessionRegistry` lets the host notify all of them.
 */
import { bundleLine, bundleOf } from './tools/getStatus.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  McpError,
  SetLevelRequestSchema,
  type CallToolResult,
  type LoggingLevel,
} from '@modelcontextprotocol/sdk/types.js';
import { AtomError } from '../atoms/errors.js';
import { BOOT_RULE } from '../atoms/boot.js';
import { SERVER_NAME, VERSION } from '../version.js';
import type { Logger } from '../util/log.js';
import type { AtomWorkspace } from '../workspace.js';
import { parseArguments } from './arguments.js';
import { getPrompt, listPrompts } from './prompts.js';
import { SERVER_ICONS } from './icons.js';
import { resourceLinks } from './links.js';
import { registerResources, RESOURCE_CAPABILITIES } from './resources.js';
import { describeTool, type ToolContext, type ToolDefinition } from './tool.js';
import { allTools } from './tools/index.js';
import { noteWork } from '../util/idleMemory.js';

export const INSTRUCTIONS = `Atomic Coding: the code of this workspace lives as atoms, small JavaScript functions (at most 2,048 bytes each) with a snake_case name, a type (core, feature, util; test for scenarios, never bundled), typed inputs and outputs (number, string, boolean, number[], string[], boolean[], void) and declared dependencies. After every change the atoms are bundled, dependencies first, into latest.js.
Work like this: get_code_structure to see the map; read_atoms to read code before changing it; upsert_atom to create or change one atom (the code is exactly one function declaration named like the atom; its dependencies are the atoms it calls: undeclared calls are added and the answer says so); delete_atom to remove one nothing depends on. Keep atoms small: split anything near 2 KB into helpers.
The bundle boots (calls) ${BOOT_RULE}, as soon as latest.js loads: load it at the end of <body>, or have the boot atom wait for DOMContentLoaded, if it needs the page's canvas. Create the entry point (main or game_loop) early: a lone core atom boots, with no arguments.
State: ports are primitives only, so keep shared state in one atom such as app_state(key, value) => string (or game_state(key, value) => number), which reads a value or writes it when given, over an object kept on the function itself (app_state.store), declared as a dependency by the atoms that use it. Records: a record's fields live in that store under "<kind>:<id>:<field>" keys, read by one small accessor per field you use (card_title(id) => string), with a list atom returning the ids (card_ids() => string[]); save and load the store with localStorage in one atom each.
Pages: atoms are not globals (the bundle wraps them in a closure), so inline handlers (onclick="add_card()") cannot reach them. Build the DOM in atoms (createElement, textContent) and wire events once in main, with one delegated listener that reads data-action and data-id attributes and calls the atoms.
Prove each change: give util atoms examples (upsert_atom's examples: [{"args": [5, 0, 3], "returns": 3}], or "throws": "text"), and each feature a test atom (type test, no inputs) that calls it, sets up state and fails with assert(condition, message). They run after every change that reaches them; the write's answer ends with "Examples: 3 passed." or what failed (expected, got), and test_atoms runs them on demand.
Also: semantic_search when you do not know a name; rename_atom to rename one and its callers; upsert_atoms to change several atoms together (a new helper and its callers); query_graph for the impact of a change before making it; run_atom to test an atom in a sandbox before relying on it; atom_history to undo a change or bring back a deleted atom; get_status to check the last build.`;

/** The live sessions of one server process, so a change can be announced to all of them. */
export class SessionRegistry {
  private readonly servers = new Set<Server>();
  private readonly liveness = new WeakMap<Server, () => boolean>();

  add(server: Server): void {
    this.servers.add(server);
  }

  remove(server: Server): void {
    this.servers.delete(server);
  }

  get size(): number {
    return this.servers.size;
  }

  /**
   * Says how to tell whether `server`'s client is still there (the HTTP host: a stream open or a recent
   * request); without it, a registered session counts as connected until it closes.
   */
  setLiveness(server: Server, isLive: () => boolean): void {
    this.liveness.set(server, isLive);
  }

  /** The sessions whose client is still there: what get_status counts as connected clients. */
  connected(): number {
    let n = 0;
    for (const server of this.servers) if (this.liveness.get(server)?.() ?? true) n++;
    return n;
  }

  /** Calls `send` for every connected session; a session that has gone away is skipped. */
  broadcast(send: (server: Server) => Promise<void>): void {
    for (const server of this.servers) send(server).catch(() => {});
  }
}

/**
 * The workspace a server serves, or its opening: a server may answer initialize and tools/list
 * while a large workspace still opens (the tools do not depend on it); every call that reads or
 * writes atoms waits for it.
 */
export type WorkspaceOpening = AtomWorkspace | Promise<AtomWorkspace>;

export interface ServerDeps {
  workspace: WorkspaceOpening;
  log: Logger;
  sessions: SessionRegistry;
  tools?: ToolDefinition[];
}

export function createMcpServer({ workspace, log, sessions, tools = allTools }: ServerDeps): Server {
  const server = new Server(
    { name: SERVER_NAME, title: 'Atomic Coding', version: VERSION, icons: SERVER_ICONS },
    {
      capabilities: { tools: { listChanged: true }, resources: RESOURCE_CAPABILITIES, prompts: {}, completions: {}, logging: {} },
      instructions: INSTRUCTIONS,
    },
  );
  const byName = new Map(tools.map((t) => [t.name, t]));
  const listed = tools.map(describeTool);
  // A workspace that fails to open: each call says why; the transport's owner decides what else to do.
  const opening = Promise.resolve(workspace).catch((err: Error) => {
    throw err instanceof AtomError ? err : new AtomError('storage', `The workspace could not be opened: ${err.message}`);
  });
  opening.catch(() => {});
  const contextOf = (ws: AtomWorkspace): ToolContext => ({ workspace: ws, connectedClients: () => sessions.connected(), serverVersion: VERSION });
  /** Whether this session's answers have said where the bundle is written (the first write's answer does). */
  let bundleTold = false;
  let level: LoggingLevel = 'info';
  /**
   * The writes this session asked for, in the order they arrived. A client may send its next
   * request before the answer to the last (a pipelined stdio client, parallel tool calls): a call
   * waits for the writes that arrived before it, so a search sent after an upsert finds the atom
   * and two writes land in the order they were sent. Reads never wait for one another.
   */
  let writes: Promise<unknown> = Promise.resolve();

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listed }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name, arguments: raw } = request.params;
    const tool = byName.get(name);
    if (!tool) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${name}". Available tools: ${[...byName.keys()].join(', ')}`);
    }
    const started = performance.now();
    try {
      const args = parseArguments(tool, raw);
      const earlier = writes;
      const running = earlier.then(async () => {
        const ws = await opening;
        noteWork(ws.log); // after which the heap may be given back, once the process is quiet (util/idleMemory.ts)
        const out = await tool.run(args, contextOf(ws));
        // The first write of a session says where latest.js goes, so an agent need not guess or search for it.
        if (tool.annotations.readOnlyHint || bundleTold || (typeof out !== 'string' && out.isError)) return out;
        bundleTold = true;
        const line = bundleLine(bundleOf(ws));
        return typeof out === 'string' ? `${out}\n${line}` : { ...out, text: `${out.text}\n${line}` };
      });
      if (!tool.annotations.readOnlyHint) writes = running.catch(() => {});
      const output = await running;
      log.debug(`tool ${name} ok in ${(performance.now() - started).toFixed(1)} ms`);
      // The contract's text first and unchanged; links to the atoms it names after it (links.ts).
      const links = resourceLinks(name, args as Record<string, unknown>);
      return typeof output === 'string'
        ? { content: [{ type: 'text', text: output }, ...links] }
        : {
            content: [{ type: 'text', text: output.text }, ...links],
            ...(output.structured ? { structuredContent: output.structured } : {}),
            ...(output.isError ? { isError: true } : {}),
          };
    } catch (err) {
      if (err instanceof AtomError) {
        log.info(`tool ${name} refused: ${err.message}`);
        return errorResult(err.message);
      }
      log.error(`tool ${name} failed: ${(err as Error).stack ?? err}`);
      return errorResult(`${name} failed unexpectedly: ${(err as Error).message}. Nothing was changed; see the server log.`);
    }
  });

  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: listPrompts() }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => getPrompt(request.params.name, request.params.arguments));

  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    level = request.params.level;
    log.debug(`client log level set to ${level}`);
    return {};
  });

  const resources = registerResources(server, opening);
  sessions.add(server);
  server.onclose = () => {
    resources.dispose();
    sessions.remove(server);
  };
  return server;
}

export function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: `Error: ${message}` }], isError: true };
}
