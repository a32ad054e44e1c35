/**
 * The resources (structure, bundle, one atom), completion of atom names, and change notifications
 * to subscribed sessions, through the official SDK client against the server in process
 * (test/support/inProcess.ts).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { mathClamp, physicsConfig, playerJump } from '../support/atoms.js';
import { call, resourceText as textOf } from '../support/client.js';
import { openInProcess, type InProcessServer } from '../support/inProcess.js';
import { tempDir } from '../support/tmp.js';

let server: InProcessServer;
let client: Client;
const workspace = tempDir();

before(async () => {
  server = await openInProcess({ folder: workspace });
  client = server.client;
  for (const a of [physicsConfig, playerJump]) await call(client, 'upsert_atom', { ...a });
});
after(async () => {
  await server?.close();
});

test('resources: the structure, the bundle and the atom template', async () => {
  const { resources } = await client.listResources();
  assert.deepEqual(resources.map((r) => r.uri), ['atoms://structure', 'atoms://bundle']);
  const { resourceTemplates } = await client.listResourceTemplates();
  assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate), ['atom://{name}']);
  const structure = await client.readResource({ uri: 'atoms://structure' });
  assert.deepEqual(JSON.parse(textOf(structure)).map((a: { name: string }) => a.name), ['physics_config', 'player_jump']);
  const bundle = await client.readResource({ uri: 'atoms://bundle' });
  assert.match(textOf(bundle), /^\/\/ === Atomic Coding Bundle ===/);
  const atom = await client.readResource({ uri: 'atom://player_jump' });
  assert.match(textOf(atom), /^\/\/ === player_jump \(feature\) v1 ===/);
  await assert.rejects(client.readResource({ uri: 'atom://ghost' }), /Atom "ghost" not found/);
});

test('atom names complete in the template', async () => {
  const result = await client.complete({ ref: { type: 'ref/resource', uri: 'atom://{name}' }, argument: { name: 'name', value: 'ph' } });
  assert.deepEqual(result.completion.values, ['physics_config']);
});

test('subscribers hear about changes; no list_changed as atoms come and go, the list (structure, bundle) being the same', async () => {
  const other = await server.connect('listener');
  const updated: string[] = [];
  let listChanged = 0;
  other.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
  other.setNotificationHandler(ResourceListChangedNotificationSchema, () => void listChanged++);
  await other.subscribeResource({ uri: 'atom://physics_config' });
  await other.subscribeResource({ uri: 'atoms://bundle' });
  const before = await other.listResources();
  await call(client, 'upsert_atom', { ...physicsConfig, description: 'Physics constants, tuned' });
  await call(client, 'upsert_atom', { ...mathClamp });
  await call(client, 'upsert_atom', { ...mathClamp, name: 'math_clamp_again', code: mathClamp.code.replace('math_clamp', 'math_clamp_again') });
  await call(client, 'delete_atom', { name: 'math_clamp_again' });
  const deadline = Date.now() + 5000;
  while (updated.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  // Every notification of those writes was sent before a round trip after them answers.
  assert.deepEqual(await other.listResources(), before, 'atoms come and go through the template: the list stays as it was');
  assert.ok(updated.includes('atom://physics_config'), `updated: ${updated}`);
  assert.ok(updated.includes('atoms://bundle'));
  assert.equal(listChanged, 0, 'no list_changed: the list did not change');
  await other.close();
});

test('a batch of new atoms is told once: one update of the structure, whatever the batch holds, and no list_changed', async () => {
  const other = await server.connect('batch listener');
  const updated: string[] = [];
  let listChanged = 0;
  other.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
  other.setNotificationHandler(ResourceListChangedNotificationSchema, () => void listChanged++);
  await other.subscribeResource({ uri: 'atoms://structure' });
  const atoms = Array.from({ length: 20 }, (_, i) => ({ name: `batch_helper_${i}`, type: 'util', code: `function batch_helper_${i}() { return ${i}; }` }));
  await call(client, 'upsert_atoms', { atoms });
  // Every notification of the batch is sent before the next turn's: a round trip after it sees them all.
  const deadline = Date.now() + 5000;
  while (updated.length < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await other.listResources();
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(listChanged, 0, 'no list_changed: the list of resources did not change');
  assert.deepEqual(updated, ['atoms://structure'], 'one update of the structure for the batch');
  await other.close();
});
