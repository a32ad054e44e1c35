/**
 * Issue 6 through the official SDK client against the shipped server: the tool list's shape,
 * query_graph, get_status and get_code_structure's detail level.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { WorkspaceStatus } from '../../src/mcp/tools/getStatus.js';
import { call, connectHttp, startServer, type RunningServer } from '../support/server.js';
import { cube } from '../support/atoms.js';
import { tempDir } from '../support/tmp.js';

let server: RunningServer;
let client: Client;
const workspace = tempDir();
const unusedHelper = {
  name: 'unused_helper',
  type: 'util',
  code: 'function unused_helper(a) {\n  return a * 2;\n}',
  inputs: [{ name: 'a', type: 'number' }],
  outputs: [{ name: 'doubled', type: 'number' }],
};

before(async () => {
  server = await startServer(workspace);
  client = await connectHttp(server.url, server.token);
  const seeded = await call(client, 'upsert_atoms', { atoms: [...cube, unusedHelper] });
  assert.equal(seeded.isError, false, seeded.text);
});

after(async () => {
  await client?.close();
  await server?.stop();
});

/**
 * What the tools wrote: the snapshot and every journal operation except embeddings, which the
 * search index stores in the background after changes whatever tool runs meanwhile.
 */
function writes(): string {
  const journal = readFileSync(join(workspace, '.atomic', 'atoms.journal'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .flatMap((line) => (JSON.parse(line.slice(0, line.lastIndexOf('\t'))) as { ops: { op: string }[] }).ops)
    .filter((op) => op.op !== 'emb');
  return readFileSync(join(workspace, '.atomic', 'atoms.db')).toString('base64') + JSON.stringify(journal);
}

test('the tool list stays small and every tool is described, titled, annotated and snake_case', async () => {
  const { tools } = await client.listTools();
  assert.ok(tools.length <= 12, `at most twelve tools (got ${tools.length}: ${tools.map((t) => t.name).join(', ')})`);
  for (const name of ['get_code_structure', 'read_atoms', 'upsert_atom', 'delete_atom', 'query_graph', 'get_status', 'atom_history', 'run_atom', 'upsert_atoms']) {
    assert.ok(tools.some((t) => t.name === name), `${name} is listed`);
  }
  for (const tool of tools) {
    assert.match(tool.name, /^[a-z][a-z0-9_]{2,30}$/, `${tool.name} is short snake_case`);
    assert.ok(tool.title && tool.title.length > 3, `${tool.name} has a title`);
    assert.ok(tool.description && /use|when/i.test(tool.description), `${tool.name} says when to use it`);
    const a = tool.annotations!;
    // destructiveHint and idempotentHint mean something only for a tool that writes (MCP's ToolAnnotations).
    const hints = a.readOnlyHint ? (['readOnlyHint', 'openWorldHint'] as const) : (['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const);
    for (const hint of hints) {
      assert.equal(typeof a[hint], 'boolean', `${tool.name} sets ${hint}`);
    }
    assert.equal(a.openWorldHint, false, `${tool.name} touches only this workspace`);
    if (a.readOnlyHint) assert.notEqual(a.destructiveHint, true, `${tool.name}: read-only tools are not destructive`);
  }
});

test('tools that claim to be read-only leave the database untouched', async () => {
  const { tools } = await client.listTools();
  const args: Record<string, Record<string, unknown>> = {
    get_code_structure: { detail: 'minimal' },
    read_atoms: { names: ['game_loop'] },
    semantic_search: { query: 'jump' },
    query_graph: { operation: 'impact', name: 'physics_config' },
    get_status: {},
    run_atom: { name: 'player_jump', args: [0, true] },
    test_atoms: {},
  };
  const readOnly = tools.filter((t) => t.annotations?.readOnlyHint);
  assert.ok(readOnly.length >= 5);
  for (const tool of readOnly) {
    assert.ok(args[tool.name], `test arguments for ${tool.name}`);
    const before = writes();
    const result = await call(client, tool.name, args[tool.name]);
    assert.equal(result.isError, false, `${tool.name}: ${result.text}`);
    assert.equal(writes(), before, `${tool.name} changed nothing on disk`);
  }
});

test('query_graph: direct and transitive dependencies, with signatures and distances', async () => {
  const direct = await call(client, 'query_graph', { operation: 'dependencies', name: 'game_loop' });
  assert.equal(
    direct.text,
    'game_loop depends on 2 atoms (directly):\n' +
      '  math_clamp [util] (value: number, min: number, max: number) => number\n' +
      '  player_jump [feature] (velocity_y: number, is_grounded: boolean, force_multiplier: number?) => number',
  );
  const all = await call(client, 'query_graph', { operation: 'dependencies', name: 'game_loop', transitive: true });
  assert.match(all.text, /^game_loop depends on 3 atoms \(transitively; number = distance\):/);
  assert.match(all.text, /\n {2}2 physics_config \[util\] \(\) => \{ gravity: number, jump_force: number, max_speed: number \}$/);
  assert.equal((await call(client, 'query_graph', { operation: 'dependencies', name: 'physics_config' })).text, 'physics_config depends on no atom.');
});

test('query_graph: dependents and the impact of a change', async () => {
  const users = await call(client, 'query_graph', { operation: 'dependents', name: 'physics_config', transitive: true });
  assert.match(users.text, /^2 atoms depend on physics_config \(transitively; number = distance\):\n {2}1 player_jump \[feature\].*\n {2}2 game_loop \[core\] \(\) => void$/);
  const impact = await call(client, 'query_graph', { operation: 'impact', name: 'physics_config' });
  assert.match(impact.text, /^Changing physics_config may change 2 atoms \(1 direct, 1 indirect; number = distance\)\.\nEntry points affected: game_loop\./);
  assert.match((await call(client, 'query_graph', { operation: 'impact', name: 'unused_helper' })).text, /affects no other atom/);
});

test('query_graph: paths in both directions and between unconnected atoms', async () => {
  const path = await call(client, 'query_graph', { operation: 'path', name: 'game_loop', to: 'physics_config' });
  assert.match(path.text, /^game_loop reaches physics_config in 2 steps: game_loop -> player_jump -> physics_config\n/);
  const reverse = await call(client, 'query_graph', { operation: 'path', name: 'physics_config', to: 'game_loop' });
  assert.equal(reverse.text, 'physics_config does not reach game_loop, but game_loop reaches physics_config: game_loop -> player_jump -> physics_config');
  const none = await call(client, 'query_graph', { operation: 'path', name: 'math_clamp', to: 'physics_config' });
  assert.match(none.text, /not connected/);
});

test('query_graph: cycles, unused atoms and entry points', async () => {
  assert.equal((await call(client, 'query_graph', { operation: 'cycles' })).text, 'No dependency cycles.');
  const unused = await call(client, 'query_graph', { operation: 'unused' });
  assert.match(unused.text, /^1 atom nothing depends on/);
  assert.match(unused.text, /unused_helper \[util\] \(a: number\) => number/);
  assert.doesNotMatch(unused.text, /math_clamp|game_loop/);
  const entries = await call(client, 'query_graph', { operation: 'entry_points' });
  assert.match(entries.text, /^1 entry point \(core atoms nothing depends on\); the bundle boots game_loop:\n {2}game_loop \[core\]/);
});

test('query_graph: answers follow every change, even right after the same question', async () => {
  const ask = async (args: Record<string, unknown>) => (await call(client, 'query_graph', args)).text;
  assert.match(await ask({ operation: 'dependents', name: 'unused_helper' }), /^No atom depends on unused_helper\.$/);
  const user = { name: 'helper_user', type: 'core', code: 'function helper_user() {\n  return unused_helper(1);\n}', dependencies: ['unused_helper'] };
  assert.equal((await call(client, 'upsert_atom', user)).isError, false);
  try {
    assert.match(await ask({ operation: 'dependents', name: 'unused_helper' }), /^1 atom depends on unused_helper \(directly\):\n {2}helper_user \[core\]/);
    assert.match(await ask({ operation: 'entry_points' }), /^2 entry points/);
    assert.doesNotMatch(await ask({ operation: 'unused' }), /unused_helper/);
    // A type change alone (same edges) moves an atom out of the entry points.
    assert.equal((await call(client, 'upsert_atom', { ...user, type: 'feature' })).isError, false);
    assert.match(await ask({ operation: 'entry_points' }), /^1 entry point /);
    assert.match(await ask({ operation: 'unused' }), /helper_user \[feature\]/);
  } finally {
    assert.equal((await call(client, 'delete_atom', { name: 'helper_user' })).isError, false);
  }
  assert.match(await ask({ operation: 'dependents', name: 'unused_helper' }), /^No atom depends on unused_helper\.$/);
  assert.match(await ask({ operation: 'entry_points' }), /^1 entry point /);
});

test('query_graph: refusals say what is missing', async () => {
  const noName = await call(client, 'query_graph', { operation: 'impact' });
  assert.equal(noName.isError, true);
  assert.match(noName.text, /^Error: query_graph operation "impact" needs name/);
  const unknown = await call(client, 'query_graph', { operation: 'dependents', name: 'nope' });
  assert.match(unknown.text, /^Error: Atom "nope" not found/);
  const badOp = await call(client, 'query_graph', { operation: 'everything' });
  assert.match(badOp.text, /^Error: invalid arguments for query_graph: operation must be one of/);
});

test('query_graph: limit cuts long lists but keeps the count', async () => {
  const limited = await call(client, 'query_graph', { operation: 'dependencies', name: 'game_loop', transitive: true, limit: 1 });
  assert.match(limited.text, /depends on 3 atoms/);
  assert.match(limited.text, /… 2 more \(raise limit to see them\)$/);
});

test('get_status: counts, build, embeddings, version and connected clients', async () => {
  const second = await connectHttp(server.url, server.token, 'second-client');
  try {
    const result = (await client.callTool({ name: 'get_status', arguments: {} })) as unknown as {
      content: { text: string }[];
      structuredContent: WorkspaceStatus;
    };
    const s = result.structuredContent;
    assert.deepEqual(s.atoms, { total: 5, by_type: { core: 1, feature: 1, util: 3, test: 0 } });
    assert.equal(s.edges, 3);
    assert.ok(s.database.bytes > 0);
    assert.equal(s.last_build?.status, 'success');
    assert.equal(s.last_build?.order_length, 5);
    assert.equal(s.last_build?.error, null);
    assert.ok(!Number.isNaN(Date.parse(s.last_build?.at ?? '')));
    assert.equal(s.embeddings.provider.length > 0, true);
    assert.equal(typeof s.embeddings.fresh, 'boolean');
    assert.equal(s.server.version, JSON.parse(readFileSync('package.json', 'utf8')).version);
    assert.equal(s.server.connected_clients, 2);
    const text = result.content[0]!.text;
    assert.match(text, /^Atoms: 5 \(core 1, feature 1, util 3, test 0\); dependency edges: 3\./);
    assert.match(text, /Last build: success at .*, 5 atoms in order/);
    assert.match(text, /2 clients connected/);
  } finally {
    await second.close();
  }
});

test('get_code_structure: minimal detail is names, types and edges only; full stays the default', async () => {
  const minimal = await call(client, 'get_code_structure', { detail: 'minimal' });
  assert.equal(
    minimal.text,
    [
      '5 atoms (name type -> dependencies):',
      'game_loop core -> math_clamp, player_jump',
      'math_clamp util',
      'physics_config util',
      'player_jump feature -> physics_config',
      'unused_helper util',
    ].join('\n'),
  );
  const full = await call(client, 'get_code_structure');
  const parsed = JSON.parse(full.text) as { name: string; inputs: unknown[] }[];
  assert.equal(parsed.length, 5);
  assert.ok(parsed.every((a) => Array.isArray(a.inputs)));
  assert.ok(minimal.text.length < full.text.length / 4, 'minimal is a fraction of the full map');
  const filtered = await call(client, 'get_code_structure', { detail: 'minimal', type_filter: 'core' });
  assert.equal(filtered.text, '1 atom (name type -> dependencies):\ngame_loop core -> math_clamp, player_jump');
});
