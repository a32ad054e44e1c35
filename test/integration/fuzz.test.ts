/**
 * Thousands of malformed requests and tool calls against the real HTTP server: each gets a
 * clear error, the server never crashes, and the database stays byte-for-byte the same.
 * Deterministic (seeded), bounded in count, loopback only.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { Agent } from 'node:http';
import { call, connectHttp, startServer, type RunningServer } from '../support/server.js';
import { cube, mathClamp, physicsConfig, playerJump } from '../support/atoms.js';
import { tempDir } from '../support/tmp.js';
import { seededRandom } from '../support/random.js';

const TOOL_CASES = 2400;
const PROTOCOL_CASES = 600;

let server: RunningServer;
const workspace = tempDir();
const agent = new Agent({ keepAlive: true, maxSockets: 4 });
let sessionId = '';

interface Reply {
  status: number;
  body: string;
}

function post(body: string | Buffer, headers: Record<string, string> = {}): Promise<Reply> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: '127.0.0.1',
        port: url.port,
        path: '/mcp',
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          Authorization: `Bearer ${server.token}`,
          ...(sessionId ? { 'Mcp-Session-Id': sessionId } : {}),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => {
          if (res.headers['mcp-session-id'] && !sessionId) sessionId = String(res.headers['mcp-session-id']);
          resolve({ status: res.statusCode!, body: text });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The JSON-RPC messages in a reply (plain JSON or SSE `data:` lines). */
function messages(reply: Reply): { result?: { isError?: boolean; content?: { text: string }[] }; error?: { message: string } }[] {
  const text = reply.body.trim();
  if (!text) return [];
  if (text.startsWith('{') || text.startsWith('[')) {
    const v = JSON.parse(text);
    return Array.isArray(v) ? v : [v];
  }
  return text
    .split('\n')
    .filter((l) => l.startsWith('data: ') && l.length > 6)
    .map((l) => JSON.parse(l.slice(6)));
}

const dbBytes = () =>
  Buffer.concat([readFileSync(join(workspace, '.atomic', 'atoms.db')), readFileSync(join(workspace, '.atomic', 'atoms.journal'))]);

before(async () => {
  server = await startServer(workspace);
  const client = await connectHttp(server.url, server.token);
  for (const a of cube) await call(client, 'upsert_atom', { ...a });
  // Let background work (embeddings of the seeded atoms) finish before taking the snapshot.
  await call(client, 'semantic_search', { query: 'jump' }).catch(() => undefined);
  await client.close();
  const init = await post(
    JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fuzz', version: '0' } } }),
  );
  assert.equal(init.status, 200);
  await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
});

after(async () => {
  agent.destroy();
  await server?.stop();
});

const nasty = ['../x', '..\\..\\etc\\passwd', '__proto__', 'constructor', 'prototype', 'A', '', ' ', 'a'.repeat(5000), 'name\u0000', 'ünïcode', 'DROP TABLE atoms', '$(rm -rf /)', 'x'.repeat(129)];
const wrongTypes = [null, 0, -1, 1.5, true, [], {}, [1, 2], { a: 1 }, 'x'.repeat(100_000), NaN];

function pick<T>(r: () => number, list: readonly T[]): T {
  return list[Math.floor(r() * list.length)]!;
}

function deep(depth: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = { v };
  return v;
}

/** A tool call that must be refused: each case breaks at least one rule. */
function badCall(r: () => number): { name: string; arguments: unknown } {
  const kind = Math.floor(r() * 16);
  const base = { ...pick(r, [mathClamp, physicsConfig, playerJump]) } as Record<string, unknown>;
  switch (kind) {
    case 0:
      return { name: 'upsert_atom', arguments: { ...base, name: pick(r, nasty) } };
    case 1:
      return { name: 'upsert_atom', arguments: { ...base, [pick(r, ['name', 'code', 'type'])]: pick(r, wrongTypes) } };
    case 2: {
      const args = { ...base };
      delete args[pick(r, ['name', 'code', 'type'])];
      return { name: 'upsert_atom', arguments: args };
    }
    case 3:
      return { name: 'upsert_atom', arguments: { ...base, [pick(r, ['extra', 'constructor', 'version', 'id'])]: 1 } };
    case 4:
      return { name: 'upsert_atom', arguments: { ...base, code: `function ${String(base.name)}() { return "${'x'.repeat(2049)}"; }` } };
    case 5:
      return { name: 'upsert_atom', arguments: { ...base, code: pick(r, ['function (', `function ${String(base.name)}( {`, '}{', 'return 1', '\u0000', 'function x() {}', `class ${String(base.name)} {}`, `function ${String(base.name)}() {} eval("1")`]) } };
    case 6:
      return { name: 'upsert_atom', arguments: { ...physicsConfig, dependencies: ['player_jump'] } }; // cycle
    case 7:
      return { name: 'upsert_atom', arguments: { ...base, dependencies: [pick(r, ['ghost', 'nope_x', base.name as string]), ...(r() < 0.5 ? ['../x'] : [])] } };
    case 8:
      return { name: 'upsert_atom', arguments: { ...base, inputs: [{ name: 'p', type: pick(r, ['Vector3', 'object', 'int', 'number[][]', '', null]) }] } };
    case 9:
      return { name: 'upsert_atom', arguments: { ...base, outputs: pick(r, wrongTypes.filter((w) => !Array.isArray(w) || (w as unknown[]).length > 0)) } };
    case 10:
      return { name: 'upsert_atom', arguments: { ...base, type: pick(r, ['helper', 'CORE', '', null, 1]) } };
    case 11:
      return { name: 'delete_atom', arguments: { name: pick(r, ['physics_config', 'math_clamp', 'player_jump', ...nasty, 'ghost']) } };
    case 12:
      return { name: 'read_atoms', arguments: { names: pick(r, [[], ['ghost'], 'math_clamp', [1, 2], [deep(3)], Array(101).fill('math_clamp'), null]) } };
    case 13:
      return { name: pick(r, ['drop_all', '', 'UPSERT_ATOM', '__proto__', 'upsert_atom ', 'x'.repeat(300)]), arguments: {} };
    case 14:
      return { name: 'get_code_structure', arguments: { type_filter: pick(r, ['widget', 1, null, ['core']]) } };
    default:
      return { name: 'upsert_atom', arguments: pick(r, [null, [], 'args', 42, deep(2000)]) };
  }
}

/** A protocol-level message that must be refused. */
function badMessage(r: () => number): { body: string | Buffer; headers?: Record<string, string> } {
  switch (Math.floor(r() * 12)) {
    case 0:
      return { body: '{"jsonrpc":"2.0","id":1,' };
    case 1:
      return { body: JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'tools/list' }) };
    case 2:
      return { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: pick(r, ['tools/destroy', 'admin/exec', '', 'resources/write', 'x'.repeat(1000)]) }) };
    case 3:
      return { body: JSON.stringify({ jsonrpc: '2.0', id: { a: 1 }, method: 'tools/list' }) };
    case 4:
      return { body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]) }; // invalid UTF-8
    case 5:
      return { body: '['.repeat(100_000) + ']'.repeat(100_000) };
    case 6:
      return { body: JSON.stringify([{ nonsense: true }, 5, 'x']) };
    case 7:
      return { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: 'not-an-object' }) };
    case 8:
      return { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), headers: { 'Mcp-Session-Id': 'not-a-session' } };
    case 9:
      return { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: pick(r, ['file:///etc/passwd', 'atom://../../x', 'atom://__proto__', 'http://example.com']) } }) };
    case 10:
      return { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), headers: { 'Content-Type': 'text/plain' } };
    default:
      return { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { nonsense: deep(50) } }), headers: { 'Mcp-Session-Id': '' } };
  }
}

test(`${TOOL_CASES} malformed tool calls are each refused with a clear error`, async () => {
  const before = dbBytes();
  const r = seededRandom(0xa70c);
  let refused = 0;
  for (let i = 0; i < TOOL_CASES; i++) {
    const c = badCall(r);
    const reply = await post(JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: c }));
    const [m] = messages(reply);
    const label = `case ${i}: ${JSON.stringify(c).slice(0, 160)} … ${JSON.stringify(c).slice(-200)}`;
    assert.ok(m, `${label}: got no message (HTTP ${reply.status})`);
    if (m.error) {
      assert.ok(m.error.message.length > 10, `${label}: error says why`);
    } else {
      assert.equal(m.result?.isError, true, `${label}: must be refused, got ${JSON.stringify(m.result).slice(0, 200)}`);
      const text = m.result!.content![0]!.text;
      assert.match(text, /^Error: \S/, label);
      assert.doesNotMatch(text, /failed unexpectedly/, `${label}: an unexpected failure is a bug: ${text}`);
    }
    refused++;
  }
  assert.deepEqual(dbBytes(), before, 'the database is byte-for-byte unchanged');
  process.stderr.write(`fuzz: ${refused} tool calls refused, 0 crashes, database unchanged\n`);
});

test('a "__proto__" key in the arguments has no effect: nothing is inherited, nothing polluted', async () => {
  const text = JSON.stringify({ ...mathClamp }).replace(/^\{/, '{"__proto__":{"dependencies":["ghost"],"polluted":1},');
  const reply = await post(`{"jsonrpc":"2.0","id":99999,"method":"tools/call","params":{"name":"upsert_atom","arguments":${text}}}`);
  const [m] = messages(reply);
  const out = m!.result?.content?.[0]?.text ?? m!.error?.message ?? '';
  // Either refused, or the key was dropped before it reached the tool: never "Dependencies: [ghost]".
  assert.doesNotMatch(out, /ghost/);
  const read = messages(await post(JSON.stringify({ jsonrpc: '2.0', id: 100000, method: 'tools/call', params: { name: 'read_atoms', arguments: { names: ['math_clamp'] } } })));
  assert.match(read[0]!.result!.content![0]!.text, /\/\/ Depends on: \[\]/);
});

test(`${PROTOCOL_CASES} broken protocol messages get errors, and the server stays up`, async () => {
  const before = dbBytes();
  const r = seededRandom(0xbeef);
  for (let i = 0; i < PROTOCOL_CASES; i++) {
    const { body, headers } = badMessage(r);
    const reply = await post(body, headers);
    const ok = reply.status >= 400 || messages(reply).every((m) => m.error !== undefined || m.result?.isError === true);
    assert.ok(ok, `message ${i} (${String(body).slice(0, 80)}): HTTP ${reply.status} ${reply.body.slice(0, 200)}`);
  }
  const health = await fetch(server.url.replace('/mcp', '/health'));
  assert.equal(health.status, 200);
  assert.equal(server.process.exitCode, null, 'the server is still running');
  assert.deepEqual(dbBytes(), before);
  assert.doesNotMatch(server.stderr(), /uncaught|unhandled/i);
  process.stderr.write(`fuzz: ${PROTOCOL_CASES} broken protocol messages answered with errors\n`);
});
