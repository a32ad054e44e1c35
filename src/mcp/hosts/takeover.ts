/**
 * One writer per workspace, when its server goes away. While VS Code runs the extension, its
 * in-process server owns `.atomic/` and announces itself in `.atomic/server.json` (trust.ts decides
 * whether to believe it). An agent that starts the command line with `--stdio` for the same workspace
 * then gets a bridge to it (relay.ts) instead of a second store, so VS Code and the agent edit the
 * same atoms at once. If that server dies, the next process takes over as the writer; and with no
 * server to bridge to at all, the stdio server opens the workspace itself.
 */
import { WorkspaceLockedError } from '../../store/lock.js';
import type { Logger } from '../../util/log.js';
import { AtomWorkspace } from '../../workspace.js';
import type { ToolDefinition } from '../tool.js';
import type { McpHttpHost } from './http.js';
import { runBridge } from './relay.js';
import { ServerFinder, type RemoteServer } from './trust.js';

/**
 * When the server a bridge talks to dies, the next process takes over: the first bridge to find
 * the workspace unlocked opens it and serves it over HTTP (writing server.json), and bridges to
 * itself; the other bridges find that new server in server.json. So one process writes, always.
 */
export class Takeover {
  private local: { workspace: AtomWorkspace; host: McpHttpHost } | undefined;

  constructor(
    private readonly finder: ServerFinder,
    private readonly log: Logger,
    private readonly tools: ToolDefinition[],
  ) {}

  async discover(): Promise<RemoteServer | undefined> {
    if (this.local) return { url: this.local.host.url, headers: { Authorization: `Bearer ${this.local.host.token}` } };
    const remote = await this.finder.find();
    if (remote) return remote;
    const dir = this.finder.dir;
    try {
      const workspace = await AtomWorkspace.open(dir, { log: this.log });
      // Loaded when first needed, as in cli.ts: a stdio server that never serves HTTP does without its stack.
      const { McpHttpHost } = await import('./http.js');
      const host = await McpHttpHost.start(workspace, this.log, { tools: this.tools });
      this.local = { workspace, host };
      this.log.info(`the server of ${dir} is gone: this process took over as its writer at ${host.url}`);
      return this.discover();
    } catch (err) {
      if (err instanceof WorkspaceLockedError) return this.finder.waitForServer(); // another process took over first
      this.log.error(`could not take over ${dir}: ${(err as Error).message}`);
      return undefined;
    }
  }

  async close(): Promise<void> {
    if (!this.local) return;
    await this.local.host.close();
    await this.local.workspace.close();
  }
}

/**
 * `serve --stdio` for a folder a trusted server already serves: bridges stdio to it (taking over if it
 * dies) until the agent closes stdin, and resolves true. False at once when there is no such server:
 * the caller then opens the workspace itself.
 */
export async function bridgeIfServed(dir: string, log: Logger, tools: ToolDefinition[]): Promise<boolean> {
  const finder = new ServerFinder(dir, log);
  const remote = await finder.findAtStart();
  if (!remote) return false;
  log.info(`${dir} is served by ${remote.url}: bridging stdio to it`);
  const takeover = new Takeover(finder, log, tools);
  try {
    await runBridge({ discover: () => takeover.discover(), log });
  } finally {
    await takeover.close();
  }
  return true;
}
