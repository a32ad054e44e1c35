/**
 * Starting servers for the benchmarks and timing tool calls through the official SDK client.
 *
 * Our server is the shipped one (dist/cli.js) with the hidden `--bench-tools` flag, so the
 * no-op tools run on the same server and transport as the real ones. Calls are timed in
 * interleaved rounds (no-op, tool, no-op, tool, ...): a burst of load from another process on
 * this shared machine slows both sides of a ratio alike.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { stdioServer } from '../../src/agents/agentConfig.js';

export const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');

/** A server's command line, before the arguments a bench adds after `serve --stdio`. */
export interface Launch {
  command: string;
  args: readonly string[];
}

/**
 * How an agent's configuration starts `cli` (agentConfig.ts's stdioServer: NODE_FLAGS, and on Linux
 * /usr/bin/env with glibc's huge pages), with this process's node; `serve --stdio` last.
 */
export function agentLaunch(cli: string): Launch {
  const { command, args } = stdioServer(process.execPath, cli, null);
  return { command, args };
}

/** A command line as a bench's notes show it: node and the build's cli.js by their short names. */
export function launchText(launch: Launch, cli: string): string {
  return [launch.command, ...launch.args].map((a) => (a === process.execPath ? 'node' : a === cli ? 'cli.js' : a)).join(' ');
}

/** `node <flags> <cli> serve --stdio`: a build started with these Node options and nothing else. */
export function plainLaunch(cli: string, flags: readonly string[]): Launch {
  return { command: process.execPath, args: [...flags, cli, 'serve', '--stdio'] };
}

export type Transport = 'stdio' | 'http';

/** Largest stdio message the bench client accepts (the SDK's default is 10 MiB). */
export const STDIO_MAX_MESSAGE = 512 * 1024 * 1024;
/** The SDK client's default limit, reported beside answers that exceed it. */
export const SDK_DEFAULT_STDIO_MAX = 10 * 1024 * 1024;

export interface Connected {
  client: Client;
  /** The server's process id (for its memory). */
  pid: number;
  /** Milliseconds from spawning the server to its first answer (initialize + tools/list). */
  startMs: number;
  tools: string[];
  /** What the server wrote on stderr so far (for diagnosing a crash). */
  stderr(): string;
  /** Each listed tool's input JSON Schema, by name. */
  schemas: Map<string, Record<string, unknown>>;
  close(): Promise<void>;
}

function requireBuild(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first (npm run bench does)`);
}

/** Our server on `workspace`, with the bench tools, over stdio or HTTP. */
export async function startOurs(workspace: string, transport: Transport): Promise<Connected> {
  requireBuild();
  const started = performance.now();
  if (transport === 'stdio') {
    return connectStdio(process.execPath, [CLI, 'serve', '--stdio', '--bench-tools', '--log-level', 'warn', '--workspace', workspace], {}, started);
  }
  const { child, client, exited, stderr } = await serveHttp(CLI, ['--bench-tools'], workspace);
  const listed = (await client.listTools()).tools;
  const startMs = performance.now() - started;
  return {
    client,
    pid: child.pid!,
    startMs,
    stderr,
    tools: listed.map((t) => t.name),
    schemas: new Map(listed.map((t) => [t.name, t.inputSchema as Record<string, unknown>])),
    async close() {
      await client.close().catch(() => {});
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * `cli serve` over loopback HTTP on a free port (`args` go before the workspace; `nodeArgs`, Node's
 * and V8's options, before the script), connected with its token: the child, the client, when it
 * exited and what it wrote to stderr.
 */
export async function serveHttp(cli: string, args: string[], workspace: string, env: Record<string, string> = {}, nodeArgs: readonly string[] = []) {
  const child = spawn(process.execPath, [...nodeArgs, cli, 'serve', ...args, '--log-level', 'warn', '--port', '0', '--workspace', workspace], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let errText = '';
  child.stderr!.on('data', (d: Buffer) => (errText += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start within 120 s:\n${errText}`)), 120_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /listening on (http:\/\/\S+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    void exited.then(() => reject(new Error(`server exited:\n${errText}`)));
  });
  const { token } = JSON.parse(readFileSync(join(workspace, '.atomic', 'server.json'), 'utf8')) as { token: string };
  const client = new Client({ name: 'atomic-bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return { child, client, exited, stderr: () => errText };
}

/** Any MCP server over stdio (ours, or the alternative it is compared with). */
export async function connectStdio(command: string, args: string[], env: Record<string, string>, started = performance.now()): Promise<Connected> {
  // The SDK client refuses a stdio message over 10 MiB by default (it closes the connection);
  // some answers at 10,000 items are bigger, and the point here is to time them.
  const transport = new StdioClientTransport({
    command,
    args,
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
    maxBufferSize: STDIO_MAX_MESSAGE,
  });
  let errText = '';
  transport.stderr?.on('data', (d: Buffer) => (errText += d.toString()));
  const client = new Client({ name: 'atomic-bench', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (err) {
    throw new Error(`${command} ${args.join(' ')} did not start: ${(err as Error).message}\n${errText}`, { cause: err });
  }
  const listed = (await client.listTools()).tools;
  const startMs = performance.now() - started;
  return {
    client,
    pid: transport.pid ?? 0,
    startMs,
    stderr: () => errText,
    tools: listed.map((t) => t.name),
    schemas: new Map(listed.map((t) => [t.name, t.inputSchema as Record<string, unknown>])),
    async close() {
      await client.close().catch(() => {});
    },
  };
}

export interface CallOutcome {
  ms: number;
  text: string;
  isError: boolean;
}

/** One timed tool call; the answer's text is kept (its size matters for a fair floor). */
export async function timedCall(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallOutcome> {
  const started = performance.now();
  const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 })) as {
    content: { type: string; text?: string }[];
    isError?: boolean;
  };
  const ms = performance.now() - started;
  return { ms, text: result.content.map((c) => c.text ?? '').join(''), isError: result.isError === true };
}

export interface Paired {
  tool: number[];
  base: number[];
  /** Answer length of the tool's last call (UTF-8 bytes). */
  answerBytes: number;
}

/**
 * Calls `tool` `iterations` times, each right after a call of the baseline, after `warmup`
 * untimed rounds. `args(i)` gives each call's arguments (so writes can differ every time).
 */
export async function paired(
  client: Client,
  tool: { name: string; args: (i: number) => Record<string, unknown>; before?: (i: number) => Promise<void> },
  baseline: { name: string; args: Record<string, unknown> },
  iterations: number,
  warmup = 3,
): Promise<Paired> {
  const out: Paired = { tool: [], base: [], answerBytes: 0 };
  for (let i = 0; i < warmup + iterations; i++) {
    const b = await timedCall(client, baseline.name, baseline.args);
    await tool.before?.(i);
    const t = await timedCall(client, tool.name, tool.args(i));
    if (t.isError) throw new Error(`${tool.name} failed: ${t.text}`);
    if (b.isError) throw new Error(`${baseline.name} failed: ${b.text}`);
    out.answerBytes = Buffer.byteLength(t.text);
    if (i >= warmup) {
      out.tool.push(t.ms);
      out.base.push(b.ms);
    }
  }
  return out;
}

/** A memory figure (kB) of a process's /proc status, in bytes, or NaN where that is not available. */
function procStatusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1];
    return kb ? Number(kb) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Resident memory of a process in bytes (Linux /proc), or NaN where that is not available. */
export function residentBytes(pid: number): number {
  return procStatusBytes(pid, 'VmRSS');
}

/** Peak resident memory (VmHWM) of a process in bytes, or NaN. */
export function peakResidentBytes(pid: number): number {
  return procStatusBytes(pid, 'VmHWM');
}
