/**
 * The headless entry: the same MCP server as the extension's, for other agents, scripts and
 * tests. `atomic-coding serve --workspace DIR [--port N] [--stdio]`.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { AtomError } from './atoms/errors.js';
import { embeddedBefore, parseCliArgs } from './cliArgs.js';
import type { McpHttpHost } from './mcp/hosts/http.js';
import { bridgeIfServed } from './mcp/hosts/takeover.js';
import { serveStdio } from './mcp/hosts/stdio.js';
import { benchTools } from './mcp/tools/bench.js';
import { allTools } from './mcp/tools/index.js';
import { WorkspaceLockedError } from './store/lock.js';
import { logLine, stderrLogger, type Logger, type LogLevel } from './util/log.js';
import { nextTurn } from './util/turn.js';
import { VERSION } from './version.js';
import { AtomWorkspace } from './workspace.js';
import { KeywordOnlyProvider } from './search/embeddings/keyword.js';
import { UseLiteProvider } from './search/embeddings/useLite.js';
import { junitXml } from './verify/junit.js';

const USAGE = `Usage: atomic-coding serve [--workspace DIR] [--atoms-folder DIR] [--port N] [--stdio] [--log-level debug|info|warn|error]
       atomic-coding test [--workspace DIR] [--atoms-folder DIR] [--junit FILE]

Serves the atoms of a workspace over MCP.
  --workspace DIR   the workspace folder (default: the current folder)
  --atoms-folder D  where the atoms live as files for git, one <name>.js each, relative to the
                    workspace and inside it (default: atoms); .atomic/ holds the index and history
  --port N          HTTP port on 127.0.0.1 (default 0: a free port)
  --stdio           speak MCP on stdin/stdout instead of HTTP (logs go to stderr); if a server
                    for the workspace is running (VS Code), bridge to it instead of opening the store
                    (only to a live server of yours on loopback that proves it serves this folder)
  --log-level L     how much to log on stderr (default info)
  --version, --help

test runs every atom's examples and every test atom (type test) once, prints what failed and a
summary, and exits 1 when anything failed (2 for bad arguments): a team's CI can gate a merge on the
atoms in git.
  --junit FILE      also write the results as JUnit XML to FILE`;

/**
 * Hidden flag for `npm run bench` (test/bench/): `--bench-tools` adds two tools that do almost
 * nothing (bench_noop, bench_echo_size) beside the product's, so a tool's round trip can be
 * compared with the physical limit on the same server and transport. Off by default, and left
 * out of the usage text: agents should never see these tools. With --stdio it never bridges,
 * since the point is to measure this process.
 */

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseCliArgs(argv);
  if (values.version) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const command = positionals[0] ?? 'serve';
  if (values.help || (command !== 'serve' && command !== 'test') || positionals.length > 1) {
    (values.help ? process.stdout : process.stderr).write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const level = (values['log-level'] ?? 'info') as LogLevel;
  if (!['debug', 'info', 'warn', 'error', 'silent'].includes(level)) return fail(`--log-level must be debug, info, warn or error`);
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) return fail(`--port must be a whole number from 0 to 65535`);
  const log = stderrLogger(level);
  const dir = resolve(values.workspace ?? process.cwd());
  if (command === 'test') return testCommand(dir, values['atoms-folder'], values.junit, stderrLogger(values['log-level'] ? level : 'warn'));
  const tools = values['bench-tools'] ? [...allTools, ...benchTools] : allTools;

  // One writer per workspace: when VS Code (or another `serve`) already serves this folder, talk to it.
  // A server.json that is not provably that server's is reported and ignored (see inspectServerInfo).
  if (values.stdio && !values['bench-tools'] && (await bridgeIfServed(dir, log, tools))) return 0;

  // An agent's server: its first call is most often a search, whose query waits for the model's
  // process (a second or more to load). In a workspace embedded before, that process loads now,
  // on another core, while the store opens; it ends when idle as after any request. dist/cli.js
  // started it before this module loaded (cliEntry.ts): warm() takes that one.
  const embeddings = new UseLiteProvider();
  if (embeddedBefore(dir)) embeddings.warm();
  // Over stdio, after the transport is listening (serveStdio below): the open works in slices,
  // and the client's first requests are answered between them.
  const opening = (values.stdio ? nextTurn() : Promise.resolve()).then(() =>
    AtomWorkspace.open(dir, { log, textTree: { folder: values['atoms-folder'] }, embeddings }),
  );
  const refused = (err: unknown): number => {
    if (err instanceof WorkspaceLockedError || err instanceof AtomError) return fail(err.message);
    throw err;
  };

  if (values.stdio) {
    // The client gets its tools while a large workspace still opens; calls wait for the open.
    // A client ends a stdio server by closing stdin, then SIGTERM: either way it closes cleanly
    // (a clean close lets the next open skip the text tree's full comparison).
    await serveStdio(opening, log, tools, stopSignal(log));
    let workspace: AtomWorkspace;
    try {
      workspace = await opening;
    } catch (err) {
      return refused(err);
    }
    await workspace.close();
    return 0;
  }

  let workspace: AtomWorkspace;
  try {
    workspace = await opening;
  } catch (err) {
    return refused(err);
  }

  let host: McpHttpHost;
  try {
    // Loaded only here: HTTP's stack (Hono's Node adapter, Node's http2 and fetch classes) took ~0.1 s
    // of every start's module loading, a stdio server's too.
    const { McpHttpHost } = await import('./mcp/hosts/http.js');
    host = await McpHttpHost.start(workspace, log, { port, tools });
  } catch (err) {
    await workspace.close();
    const code = (err as NodeJS.ErrnoException).code;
    return fail(code === 'EADDRINUSE' ? `port ${port} is in use: pick another with --port, or 0 for a free one` : (err as Error).message);
  }
  process.stdout.write(`Atomic Coding MCP server listening on ${host.url}\n`);
  log.info(`workspace ${dir}: ${workspace.atoms.size} atoms; token and address in ${workspace.atoms.atomicDir}/server.json`);
  await stopSignal(log);
  await host.close();
  await workspace.close();
  return 0;
}

/** `atomic-coding test`: the checks once, a summary on stdout, JUnit XML on request; 1 when any failed. */
async function testCommand(dir: string, atomsFolder: string | undefined, junit: string | undefined, log: Logger): Promise<number> {
  let workspace: AtomWorkspace;
  try {
    // Words only: the checks need no search, and no model process is started.
    workspace = await AtomWorkspace.open(dir, { log, textTree: { folder: atomsFolder }, embeddings: new KeywordOnlyProvider() });
  } catch (err) {
    if (err instanceof WorkspaceLockedError || err instanceof AtomError) return fail(err.message);
    throw err;
  }
  try {
    // The files are what is checked: a store opened from this machine's .atomic/ answers before the files
    // changed since are compared and taken (in the background), so the checks wait for that. Without it a
    // file edited after the last run could be checked as it was (seen once, on a busy machine).
    await workspace.textTree?.reconciled();
    const results = await workspace.verification.run();
    const failed = results.filter((r) => !r.ok);
    for (const r of failed) process.stdout.write(`FAIL ${r.kind === 'test' ? r.atom : `${r.atom} ${r.label}`}: ${logLine(r.message ?? 'failed')}\n`);
    const atoms = new Set(results.map((r) => r.atom)).size;
    process.stdout.write(`${results.length - failed.length} passed, ${failed.length} failed\n`);
    log.info(`checks of ${atoms} atoms in ${dir}`);
    if (junit) writeFileSync(resolve(junit), junitXml(results));
    return failed.length > 0 ? 1 : 0;
  } finally {
    await workspace.close();
  }
}

/** Settles at the first SIGINT or SIGTERM; a second one ends the process at once. */
function stopSignal(log: Logger): Promise<void> {
  return new Promise<void>((done) => {
    const stop = (signal: string) => {
      log.info(`${signal}: shutting down`);
      process.once(signal, () => process.exit(1));
      done();
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}

function fail(message: string): number {
  process.stderr.write(`atomic-coding: ${logLine(message)}\n`);
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`atomic-coding: ${logLine(String((err as Error).stack ?? err))}\n`);
    process.exit(1);
  },
);
