/**
 * The headless entry: the same MCP server as the extension's, for other agents, scripts and
 * tests. `atomic-coding serve --workspace DIR [--port N] [--stdio]`.
 */
import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';
import { AtomError } from './atoms/errors.js';
import { McpHttpHost } from './mcp/http.js';
import { discoverServer, runBridge, type RemoteServer } from './mcp/bridge.js';
import { serveStdio } from './mcp/stdio.js';
import { benchTools } from './mcp/tools/bench.js';
import { allTools } from './mcp/tools/index.js';
import type { ToolDefinition } from './mcp/tool.js';
import { isProcessAlive, readLock, WorkspaceLockedError } from './store/lock.js';
import { stderrLogger, type Logger, type LogLevel } from './util/log.js';
import { VERSION } from './version.js';
import { AtomWorkspace } from './workspace.js';

const USAGE = `Usage: atomic-coding serve [--workspace DIR] [--port N] [--stdio] [--log-level debug|info|warn|error]

Serves the atoms of a workspace over MCP.
  --workspace DIR   the workspace folder (default: the current folder); atoms live in DIR/.atomic/
  --port N          HTTP port on 127.0.0.1 (default 0: a free port)
  --stdio           speak MCP on stdin/stdout instead of HTTP (logs go to stderr); if a server
                    for the workspace is running (VS Code), bridge to it instead of opening the store
  --log-level L     how much to log on stderr (default info)
  --version, --help`;

/**
 * Hidden flag for `npm run bench` (test/bench/): `--bench-tools` adds two tools that do almost
 * nothing (bench_noop, bench_echo_size) beside the product's, so a tool's round trip can be
 * compared with the physical limit on the same server and transport. Off by default, and left
 * out of the usage text: agents should never see these tools. With --stdio it never bridges,
 * since the point is to measure this process.
 */

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      workspace: { type: 'string', short: 'w' },
      port: { type: 'string', short: 'p' },
      stdio: { type: 'boolean' },
      'log-level': { type: 'string' },
      'bench-tools': { type: 'boolean' },
      version: { type: 'boolean', short: 'v' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.version) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const command = positionals[0] ?? 'serve';
  if (values.help || command !== 'serve' || positionals.length > 1) {
    (values.help ? process.stdout : process.stderr).write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const level = (values['log-level'] ?? 'info') as LogLevel;
  if (!['debug', 'info', 'warn', 'error', 'silent'].includes(level)) return fail(`--log-level must be debug, info, warn or error`);
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) return fail(`--port must be a whole number from 0 to 65535`);
  const log = stderrLogger(level);
  const dir = resolve(values.workspace ?? process.cwd());
  const tools = values['bench-tools'] ? [...allTools, ...benchTools] : allTools;

  if (values.stdio && !values['bench-tools']) {
    // One writer per workspace: when VS Code (or another `serve`) already serves this folder, talk to it.
    const remote = (await discoverServer(dir)) ?? (lockedByLiveProcess(dir) ? await waitForServer(dir) : undefined);
    if (remote) {
      log.info(`${dir} is served by ${remote.url}: bridging stdio to it`);
      const takeover = new Takeover(dir, log, tools);
      try {
        await runBridge({ discover: () => takeover.discover(), log });
      } finally {
        await takeover.close();
      }
      return 0;
    }
  }

  let workspace: AtomWorkspace;
  try {
    workspace = await AtomWorkspace.open(dir, { log });
  } catch (err) {
    if (err instanceof WorkspaceLockedError) return fail(err.message);
    if (err instanceof AtomError) return fail(err.message);
    throw err;
  }

  if (values.stdio) {
    await serveStdio(workspace, log, tools);
    await workspace.close();
    return 0;
  }

  let host: McpHttpHost;
  try {
    host = await McpHttpHost.start(workspace, log, { port, tools });
  } catch (err) {
    await workspace.close();
    const code = (err as NodeJS.ErrnoException).code;
    return fail(code === 'EADDRINUSE' ? `port ${port} is in use: pick another with --port, or 0 for a free one` : (err as Error).message);
  }
  process.stdout.write(`Atomic Coding MCP server listening on ${host.url}\n`);
  log.info(`workspace ${dir}: ${workspace.store.size} atoms; token and address in ${workspace.store.atomicDir}/server.json`);
  await new Promise<void>((done) => {
    const stop = (signal: string) => {
      log.info(`${signal}: shutting down`);
      done();
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  await host.close();
  await workspace.close();
  return 0;
}

/**
 * When the server a bridge talks to dies, the next process takes over: the first bridge to find
 * the workspace unlocked opens it and serves it over HTTP (writing server.json), and bridges to
 * itself; the other bridges find that new server in server.json. So one process writes, always.
 */
class Takeover {
  private local: { workspace: AtomWorkspace; host: McpHttpHost } | undefined;

  constructor(
    private readonly dir: string,
    private readonly log: Logger,
    private readonly tools: ToolDefinition[],
  ) {}

  async discover(): Promise<RemoteServer | undefined> {
    if (this.local) return { url: this.local.host.url, headers: { Authorization: `Bearer ${this.local.host.token}` } };
    const remote = await discoverServer(this.dir);
    if (remote) return remote;
    try {
      const workspace = await AtomWorkspace.open(this.dir, { log: this.log });
      const host = await McpHttpHost.start(workspace, this.log, { tools: this.tools });
      this.local = { workspace, host };
      this.log.info(`the server of ${this.dir} is gone: this process took over as its writer at ${host.url}`);
      return this.discover();
    } catch (err) {
      if (err instanceof WorkspaceLockedError) return waitForServer(this.dir); // another process took over first
      this.log.error(`could not take over ${this.dir}: ${(err as Error).message}`);
      return undefined;
    }
  }

  async close(): Promise<void> {
    if (!this.local) return;
    await this.local.host.close();
    await this.local.workspace.close();
  }
}

/** True when another live process holds the workspace lock (it may still be starting its server). */
function lockedByLiveProcess(dir: string): boolean {
  const owner = readLock(join(dir, '.atomic', 'lock'));
  return owner !== undefined && owner.pid !== process.pid && isProcessAlive(owner.pid);
}

/** Waits up to five seconds for the lock holder to announce its server in server.json. */
async function waitForServer(dir: string): Promise<RemoteServer | undefined> {
  for (let i = 0; i < 50; i++) {
    const remote = await discoverServer(dir);
    if (remote) return remote;
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
}

function fail(message: string): number {
  process.stderr.write(`atomic-coding: ${message}\n`);
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`atomic-coding: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
