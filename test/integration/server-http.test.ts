import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, connectHttp, startServer, type RunningServer } from '../support/server.js';
import { cube, gameLoop, mathClamp, physicsConfig, playerJump } from '../support/atoms.js';
import { tempDir } from '../support/tmp.js';

let server: RunningServer;
let client: Client;
const workspace = tempDir();

before(async () => {
  server = await startServer(workspace);
  client = await connectHttp(server.url, server.token);
});

after(async () => {
  await client?.close();
  const code = await server?.stop();
  assert.equal(code, 0, `the server exits cleanly on SIGTERM:\n${server?.stderr()}`);
});

function raw(
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: url.port, path, method: init.method ?? 'GET', headers: init.headers },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
      },
    );
    req.on('error', reject);
    if (init.body) req.write(init.body);
    req.end();
  });
}

const dbFiles = () => readFileSync(join(workspace, '.atomic', 'atoms.db')).toString('base64') + readFileSync(join(workspace, '.atomic', 'atoms.journal')).toString('base64');

test('health answers without a token, on /health and on a plain GET of the endpoint', async () => {
  const expected = { status: 'ok', server: 'atomic-coding-mcp', version: JSON.parse(readFileSync('package.json', 'utf8')).version };
  assert.deepEqual(JSON.parse((await raw('/health')).body), expected);
  assert.deepEqual(JSON.parse((await raw('/mcp')).body), expected);
});

test('the endpoint wants the token: none or a wrong one gets 401', async () => {
  const init = { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: '{}' };
  const none = await raw('/mcp', init);
  assert.equal(none.status, 401);
  assert.match(none.body, /Authorization: Bearer/);
  assert.equal((await raw('/mcp', { ...init, headers: { ...init.headers, Authorization: 'Bearer nope' } })).status, 401);
  assert.equal((await raw('/mcp', { ...init, headers: { ...init.headers, Authorization: `Basic ${server.token}` } })).status, 401);
});

test('a non-loopback Host or Origin gets 403, even with the token', async () => {
  const headers = { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' };
  assert.equal((await raw('/mcp', { method: 'POST', headers: { ...headers, Host: 'evil.example.com' }, body: '{}' })).status, 403);
  assert.equal((await raw('/mcp', { method: 'POST', headers: { ...headers, Origin: 'http://evil.example.com' }, body: '{}' })).status, 403);
  assert.equal((await raw('/health', { headers: { Host: 'attacker.test:80' } })).status, 403);
  assert.notEqual((await raw('/mcp', { method: 'POST', headers: { ...headers, Origin: 'http://localhost:5173' }, body: '{}' })).status, 403);
});

test('oversized bodies get 413 and broken JSON gets a parse error', async () => {
  const headers = { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  assert.equal((await raw('/mcp', { method: 'POST', headers, body: Buffer.alloc(5 * 1024 * 1024, 32) })).status, 413);
  const broken = await raw('/mcp', { method: 'POST', headers, body: '{"jsonrpc":"2.0",' });
  assert.equal(broken.status, 400);
  assert.equal(JSON.parse(broken.body).error.code, -32700);
});

test('server.json tells local clients where and how, readable by its owner only', () => {
  const file = join(workspace, '.atomic', 'server.json');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const info = JSON.parse(readFileSync(file, 'utf8'));
  assert.equal(info.url, server.url);
  assert.equal(info.pid, server.process.pid);
  // Nothing of .atomic/ is committed (issue 18): server.json with it.
  assert.match(readFileSync(join(workspace, '.atomic', '.gitignore'), 'utf8'), /^\*$/m);
});

test('the contract tools are listed with titles, descriptions and true annotations', async () => {
  const { tools } = await client.listTools();
  const byName = new Map(tools.map((t) => [t.name, t]));
  for (const name of ['get_code_structure', 'read_atoms', 'upsert_atom', 'delete_atom']) {
    const tool = byName.get(name);
    assert.ok(tool, `${name} is listed`);
    assert.ok(tool.title && tool.description && tool.description.length > 40, `${name} has a title and a useful description`);
    assert.equal(tool.annotations?.openWorldHint, false);
  }
  assert.equal(byName.get('get_code_structure')!.annotations?.readOnlyHint, true);
  assert.equal(byName.get('read_atoms')!.annotations?.readOnlyHint, true);
  assert.equal(byName.get('upsert_atom')!.annotations?.readOnlyHint, false);
  assert.equal(byName.get('delete_atom')!.annotations?.destructiveHint, true);
  assert.deepEqual(byName.get('read_atoms')!.inputSchema.required, ['names']);
  assert.ok(tools.length <= 12, 'at most twelve tools in all (test_atoms is the twelfth)');
});

test('upsert_atom saves with the contract output and rebuilds latest.js', async () => {
  const r = await call(client, 'upsert_atom', { ...physicsConfig });
  assert.equal(r.isError, false);
  // The contract's answer, then (only in a session's first write) where the bundle is written.
  assert.deepEqual(r.text.split('\n'), [
    'Atom "physics_config" saved (util). Signature: () => { gravity: number, jump_force: number, max_speed: number }. Dependencies: []. Rebuild triggered.',
    `Bundle: ${join(realpathSync(workspace), '.atomic', 'latest.js')} (rewritten after every change).`,
  ]);
  const jump = await call(client, 'upsert_atom', { ...playerJump });
  assert.equal(
    jump.text,
    'Atom "player_jump" saved (feature). Signature: (velocity_y: number, is_grounded: boolean, force_multiplier: number?) => number. Dependencies: [physics_config]. Rebuild triggered.',
  );
  const bundle = readFileSync(join(workspace, '.atomic', 'latest.js'), 'utf8');
  assert.match(bundle, /\/\/ Order: physics_config -> player_jump\n/);
});

test('every refusal is an isError result starting "Error: " and changes nothing', async () => {
  // The writes of the test before are still being followed in the background (their vectors are
  // stored when the model has them): a search waits for those, then the files must hold still.
  await call(client, 'semantic_search', { query: 'jump' });
  let before = dbFiles();
  for (let quiet = 0, polls = 0; quiet < 3 && polls < 100; polls++) {
    await new Promise((r) => setTimeout(r, 100));
    const now = dbFiles();
    quiet = now === before ? quiet + 1 : 0;
    before = now;
  }
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ ...mathClamp, code: `function math_clamp() { return "${'é'.repeat(1100)}"; }` }, /^Error: code is 2236 bytes \(limit: 2048\)/],
    [{ ...gameLoop }, /^Error: dependencies not found: math_clamp\./],
    [{ ...mathClamp, inputs: [{ name: 'value', type: 'Vector3' }] }, /^Error: new row violates check constraint "chk_inputs_valid": input "value" has type "Vector3"; allowed types: number, string, boolean, number\[\], string\[\], boolean\[\], void/],
    [{ ...physicsConfig, dependencies: ['player_jump'] }, /^Error: dependency cycle: physics_config -> player_jump -> physics_config/],
    [{ ...physicsConfig, dependencies: ['physics_config'] }, /^Error: an atom cannot depend on itself: physics_config -> physics_config/],
    [{ ...mathClamp, code: 'function math_clamp(a {\n}' }, /^Error: code does not parse as JavaScript at line 1, column \d+/],
    [{ ...mathClamp, code: 'var x = 1;' }, /^Error: code must be one top-level function declaration named "math_clamp"/],
    [{ ...mathClamp, name: 'MathClamp' }, /^Error: name "MathClamp" is not snake_case/],
    [{ ...mathClamp, type: 'helper' }, /^Error: invalid arguments for upsert_atom: type must be one of "core", "feature", "util"/],
    [{ ...mathClamp, code: 42 }, /^Error: invalid arguments for upsert_atom: code must be a string, not a number/],
    [{ ...mathClamp, colour: 'red' }, /^Error: invalid arguments for upsert_atom: unknown argument "colour"/],
    [{ type: 'util', code: 'function a() {}' }, /^Error: invalid arguments for upsert_atom: name is required/],
  ];
  for (const [args, expected] of cases) {
    const r = await call(client, 'upsert_atom', args);
    assert.equal(r.isError, true, `refused: ${JSON.stringify(args).slice(0, 80)}`);
    assert.match(r.text, expected);
  }
  assert.equal(dbFiles(), before, 'the database is byte-for-byte unchanged');
});

test('get_code_structure returns the contract JSON, filtered by type on request', async () => {
  await call(client, 'upsert_atom', { ...mathClamp });
  await call(client, 'upsert_atom', { ...gameLoop });
  const all = JSON.parse((await call(client, 'get_code_structure')).text);
  assert.deepEqual(all.map((a: { name: string }) => a.name), ['game_loop', 'math_clamp', 'physics_config', 'player_jump']);
  assert.deepEqual(all[3], {
    name: 'player_jump',
    type: 'feature',
    inputs: [
      { name: 'velocity_y', type: 'number', description: 'Current Y velocity' },
      { name: 'is_grounded', type: 'boolean', description: 'Whether entity is on ground' },
      { name: 'force_multiplier', type: 'number', optional: true },
    ],
    outputs: [{ name: 'new_velocity_y', type: 'number', description: 'Y velocity after jump' }],
    depends_on: ['physics_config'],
  });
  const utils = JSON.parse((await call(client, 'get_code_structure', { type_filter: 'util' })).text);
  assert.deepEqual(utils.map((a: { name: string }) => a.name), ['math_clamp', 'physics_config']);
  assert.match((await call(client, 'get_code_structure', { type_filter: 'widget' })).text, /^Error: invalid arguments/);
});

test('read_atoms returns code blocks with the contract header', async () => {
  const r = await call(client, 'read_atoms', { names: ['player_jump', 'physics_config'] });
  assert.equal(
    r.text,
    [
      '// === player_jump (feature) v1 ===',
      '// Applies upward force when entity is grounded',
      '// Signature: (velocity_y: number, is_grounded: boolean, force_multiplier: number?) => number',
      '// Depends on: [physics_config]',
      playerJump.code,
      '',
      '// === physics_config (util) v1 ===',
      '// Returns physics constants',
      '// Signature: () => { gravity: number, jump_force: number, max_speed: number }',
      '// Depends on: []',
      physicsConfig.code,
    ].join('\n'),
  );
  const missing = await call(client, 'read_atoms', { names: ['player_jump', 'ghost', 'phantom'] });
  assert.deepEqual(missing, { isError: true, text: 'Error: No atoms found with names: ghost, phantom' });
  assert.equal((await call(client, 'read_atoms', { names: [] })).isError, true);
});

test('versions go up by one on every update', async () => {
  await call(client, 'upsert_atom', { ...mathClamp, description: 'Clamp, updated' });
  assert.match((await call(client, 'read_atoms', { names: ['math_clamp'] })).text, /^\/\/ === math_clamp \(util\) v2 ===/);
});

test('delete_atom: blocked while used, not found, then deleted with a rebuild', async () => {
  assert.deepEqual(await call(client, 'delete_atom', { name: 'physics_config' }), {
    isError: true,
    text: 'Error: Cannot delete "physics_config": used by [player_jump]. Delete or update the dependents first.',
  });
  assert.match((await call(client, 'delete_atom', { name: 'ghost' })).text, /^Error: Atom "ghost" not found/);
  assert.deepEqual(await call(client, 'delete_atom', { name: 'game_loop' }), {
    isError: false,
    // The contract's line, then the boot atom it took away (the only core atom).
    text: 'Atom "game_loop" deleted. Rebuild triggered.\nBoot: none (was game_loop)',
  });
  const bundle = readFileSync(join(workspace, '.atomic', 'latest.js'), 'utf8');
  assert.doesNotMatch(bundle, /game_loop/);
  assert.match(bundle, /\/\/ Atoms: 3\n/);
});

test('several clients at once see each other\'s writes', async () => {
  const others = await Promise.all([connectHttp(server.url, server.token, 'a'), connectHttp(server.url, server.token, 'b')]);
  await Promise.all(
    others.map((c, i) => call(c, 'upsert_atom', { name: `helper_${i}`, type: 'util', code: `function helper_${i}() { return ${i}; }` })),
  );
  const names = JSON.parse((await call(client, 'get_code_structure')).text).map((a: { name: string }) => a.name);
  assert.ok(names.includes('helper_0') && names.includes('helper_1'));
  await Promise.all(others.map((c) => c.close()));
});

test('the server listens on loopback only', async () => {
  const port = Number(new URL(server.url).port);
  const external = Object.values(networkInterfaces())
    .flat()
    .filter((a) => a && !a.internal && a.family === 'IPv4')
    .map((a) => a!.address);
  for (const address of external) {
    const reached = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: address, port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
      socket.setTimeout(2000, () => {
        socket.destroy();
        resolve(false);
      });
    });
    assert.equal(reached, false, `port ${port} must not answer on ${address}`);
  }
});

test('the token never appears in the logs', () => {
  assert.ok(server.stderr().length > 0);
  assert.ok(!server.stderr().includes(server.token));
});

test('an unknown tool is a clear protocol error, and the server stays up', async () => {
  await assert.rejects(client.callTool({ name: 'drop_database', arguments: {} }), /Unknown tool "drop_database". Available tools: get_code_structure/);
  assert.equal((await call(client, 'get_code_structure', { type_filter: 'core' })).isError, false);
  void cube;
});
