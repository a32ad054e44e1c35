// Runs the official MCP conformance suite's generic server scenarios against our HTTP server.
//
// The suite's client cannot send our bearer token, so it talks to a small loopback proxy that
// adds the Authorization header and passes everything else (Host and Origin included) through
// untouched: the server keeps its gate, and the DNS-rebinding scenario still reaches it.
// The suite needs Node >= 22: the project's own Node 24 (scripts/toolchain.mjs).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request, createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installNode } from './toolchain.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SCENARIOS = [
  'server-initialize',
  'ping',
  'logging-set-level',
  'tools-list',
  'resources-list',
  'prompts-list',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];

/** The conformance suite needs Node 22+; `npm test` already runs on the project's Node 24 (scripts/toolchain.mjs). */
function modernNode() {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  return join(installNode(), 'node');
}

function startServer(workspace) {
  const child = spawn(process.execPath, [join(root, 'dist', 'cli.js'), 'serve', '--workspace', workspace, '--port', '0', '--log-level', 'warn'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      const m = /listening on (http:\/\/\S+)/.exec(String(d));
      if (m) resolve({ child, url: new URL(m[1]) });
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

function startProxy(target, token) {
  const proxy = createServer((req, res) => {
    const upstream = request(
      { host: '127.0.0.1', port: target.port, path: req.url, method: req.method, headers: { ...req.headers, authorization: `Bearer ${token}` } },
      (up) => {
        res.writeHead(up.statusCode, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  return new Promise((resolve) => proxy.listen(0, '127.0.0.1', () => resolve(proxy)));
}

async function main() {
  const workspace = mkdtempSync(join(tmpdir(), 'atomic-conformance-'));
  const out = mkdtempSync(join(tmpdir(), 'atomic-conformance-out-'));
  const { child, url } = await startServer(workspace);
  const token = JSON.parse(readFileSync(join(workspace, '.atomic', 'server.json'), 'utf8')).token;
  const proxy = await startProxy(url, token);
  const proxied = `http://localhost:${proxy.address().port}/mcp`;
  const node = modernNode();
  const suite = join(root, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
  let passed = 0;
  let failed = 0;
  const failures = [];
  for (const scenario of SCENARIOS) {
    const result = await new Promise((resolve) => {
      const run = spawn(node, [suite, 'server', '--url', proxied, '--scenario', scenario, '-o', join(out, scenario)], { stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      run.stdout.on('data', (d) => (text += d));
      run.stderr.on('data', (d) => (text += d));
      run.once('exit', (code) => resolve({ code, text }));
    });
    const total = /Passed: (\d+)\/\d+, (\d+) failed/.exec(result.text);
    const ok = result.code === 0 && total !== null && Number(total[2]) === 0;
    if (ok) passed++;
    else {
      failed++;
      failures.push(`${scenario}:\n${result.text}`);
    }
    process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${scenario}${total ? ` (${total[1]} checks passed, ${total[2]} failed)` : ''}\n`);
  }
  proxy.close();
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  rmSync(workspace, { recursive: true, force: true });
  for (const f of failures) process.stderr.write(`\n${f}\n`);
  process.stdout.write(`conformance: ${passed} passed, ${failed} failed\n`);
  process.exitCode = failed === 0 ? 0 : 1;
}

await main();
