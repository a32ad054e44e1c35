/**
 * Every agent reads tools/list at the start of every conversation, so its size is a cost paid again and
 * again (issue 14: it was 13.9 KB before icons and apps). It stays within 12,000 bytes of JSON, with
 * every tool still described and its input fully listed (upsert_atoms points to upsert_atom's fields).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openInProcess, wordsOnly, type InProcessServer } from '../support/inProcess.js';

let server: InProcessServer;
before(async () => {
  server = await openInProcess({ embeddings: wordsOnly });
});
after(() => server.close());

test('tools/list is at most 12,000 bytes and still says what each tool takes', async () => {
  const { tools } = await server.client.listTools();
  const bytes = Buffer.byteLength(JSON.stringify({ tools }), 'utf8');
  assert.ok(bytes <= 12_000, `tools/list is ${bytes} bytes`);
  for (const tool of tools) {
    assert.ok(tool.description && tool.description.length >= 40, `${tool.name} is described`);
    assert.ok(tool.icons?.length, `${tool.name} has its icon`);
  }
  const upsert = tools.find((t) => t.name === 'upsert_atom')!.inputSchema as { properties: Record<string, { items?: { properties?: object } }> };
  assert.deepEqual(Object.keys(upsert.properties).sort(), ['code', 'dependencies', 'description', 'examples', 'inputs', 'name', 'outputs', 'type']);
  assert.deepEqual(Object.keys(upsert.properties.inputs!.items!.properties!).sort(), ['description', 'name', 'optional', 'type']);
  const batch = tools.find((t) => t.name === 'upsert_atoms')!;
  assert.match(JSON.stringify(batch.inputSchema), /upsert_atom's arguments/);
});

test("upsert_atoms still checks each atom as strictly as upsert_atom, whatever its listing says", async () => {
  const r = await server.call('upsert_atoms', { atoms: [{ name: 'a', type: 'util', code: 'function a() {}', inputs: [{ name: 'x', type: 'int' }] }] });
  assert.equal(r.isError, true);
  assert.match(r.text, /atoms\[0\].inputs\[0\].type must be one of/);
  const extra = await server.call('upsert_atoms', { atoms: [{ name: 'a', type: 'util', code: 'function a() {}', colour: 'red' }] });
  assert.equal(extra.isError, true);
  assert.match(extra.text, /colour/);
});

test('get_code_structure summary: a line per atom with signature, edges and the first line of its description', async () => {
  await server.call('upsert_atom', { name: 'physics_config', type: 'util', code: 'function physics_config() { return 1; }', outputs: [{ name: 'g', type: 'number' }], description: 'Gravity and jump force.\nMore detail.' });
  await server.call('upsert_atom', { name: 'player_jump', type: 'feature', code: 'function player_jump(v) { return v - physics_config(); }', inputs: [{ name: 'v', type: 'number' }], outputs: [{ name: 'v2', type: 'number' }], dependencies: ['physics_config'] });
  const r = await server.call('get_code_structure', { detail: 'summary' });
  assert.ok(!r.isError, r.text);
  const lines = r.text.split('\n');
  assert.equal(lines[0], '2 atoms (name type signature -> dependencies: description):');
  assert.ok(lines.includes('physics_config util () => number: Gravity and jump force.'), r.text);
  assert.ok(lines.includes('player_jump feature (v: number) => number -> physics_config'), r.text);
});
