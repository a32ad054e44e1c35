/**
 * Starting the real server (dist/cli.js, as shipped) and connecting the official SDK client to it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export { call, connectHttp, resourceText, type TextResult } from './client.js';

export const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');

function requireBuild(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first (npm test does)`);
}

export interface RunningServer {
  url: string;
  token: string;
  process: ChildProcess;
  stderr: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `atomic-coding serve` over HTTP and resolves once it prints its address. */
export async function startServer(workspace: string, extraArgs: string[] = []): Promise<RunningServer> {
  requireBuild();
  const child = spawn(process.execPath, [CLI, 'serve', '--workspace', workspace, '--port', '0', ...extraArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errText = '';
  child.stderr!.on('data', (d: Buffer) => (errText += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start within 20 s:\n${errText}`)), 20_000);
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const m = /listening on (http:\/\/\S+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    void exited.then((code) => reject(new Error(`server exited with ${code}:\n${errText}`)));
  });
  const info = JSON.parse(readFileSync(join(workspace, '.atomic', 'server.json'), 'utf8')) as { token: string };
  return {
    url,
    token: info.token,
    process: child,
    stderr: () => errText,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

export async function connectStdio(workspace: string): Promise<{ client: Client; stderr: () => string }> {
  requireBuild();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', '--stdio', '--workspace', workspace],
    stderr: 'pipe',
  });
  let errText = '';
  transport.stderr?.on('data', (d: Buffer) => (errText += d.toString()));
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => errText };
}

/**
 * A stdio server driven by hand, without the SDK client, for checks on the raw stream: sends the
 * initialize handshake and then `requests` (id 2, 3, …, one JSON-RPC request per
 * `{ method, params }`), waits up to `timeoutMs` for the last answer, ends stdin and waits for the
 * exit. Returns every line written to stdout and the exit code.
 */
export async function rawStdioSession(
  workspace: string,
  requests: { method: string; params?: object }[],
  timeoutMs = 20_000,
): Promise<{ lines: string[]; out: string; exitCode: number | null }> {
  requireBuild();
  const child = spawn(process.execPath, [CLI, 'serve', '--stdio', '--workspace', workspace, '--log-level', 'debug'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const send = (m: object) => child.stdin.write(JSON.stringify(m) + '\n');
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  requests.forEach((r, i) => send({ jsonrpc: '2.0', id: i + 2, ...r }));
  const last = `"id":${requests.length + 1}`;
  const deadline = Date.now() + timeoutMs;
  while (!out.includes(last) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  child.stdin.end();
  const exitCode = await exited;
  return { lines: out.split('\n').filter((l) => l.length > 0), out, exitCode };
}
