import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { call, connectHttp, startServer, type RunningServer } from '../support/server.js';
import { mathClamp, physicsConfig, playerJump } from '../support/atoms.js';
import { tempDir } from '../support/tmp.js';

/** The text of a read's first content (the text variant of the union). */
const textOf = (r: { contents: ({ text: string } | { blob: string })[] }) => ('text' in r.contents[0]! ? r.contents[0].text : '');

let server: RunningServer;
let client: Client;
const workspace = tempDir();

before(async () => {
  server = await startServer(workspace);
  client = await connectHttp(server.url, server.token);
  for (const a of [physicsConfig, playerJump]) await call(client, 'upsert_atom', { ...a });
});
after(async () => {
  await client?.close();
  await server?.stop();
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

test('subscribers hear about changes; every session hears atoms come and go', async () => {
  const other = await connectHttp(server.url, server.token, 'listener');
  const updated: string[] = [];
  let listChanged = 0;
  other.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
  other.setNotificationHandler(ResourceListChangedNotificationSchema, () => void listChanged++);
  await other.subscribeResource({ uri: 'atom://physics_config' });
  await other.subscribeResource({ uri: 'atoms://bundle' });
  await call(client, 'upsert_atom', { ...physicsConfig, description: 'Physics constants, tuned' });
  await call(client, 'upsert_atom', { ...mathClamp });
  const deadline = Date.now() + 5000;
  while ((listChanged < 1 || updated.length < 2) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.ok(updated.includes('atom://physics_config'), `updated: ${updated}`);
  assert.ok(updated.includes('atoms://bundle'));
  assert.ok(listChanged >= 1, 'a new atom announces list_changed');
  await other.close();
});
