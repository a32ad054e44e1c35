/**
 * One write path: latest.js follows the store's change event, not the workspace's write methods,
 * so a write that reached the store some other way still rebuilds it; and what views and tools
 * get of the store (`workspace.atoms`) has no write method to reach.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BuildRecord } from '../../src/store/builds.js';
import type { AtomStore } from '../../src/store/atomStore.js';
import type { EmbeddingProvider } from '../../src/search/embeddings/provider.js';
import { AtomWorkspace } from '../../src/workspace.js';
import { gameLoop, mathClamp, physicsConfig, playerJump } from '../support/atoms.js';
import { tempDir } from '../support/tmp.js';
import { deleteAtom, upsert, upsertMany } from '../support/storeWrites.js';

/** Words only: these tests never need the model. */
const noModel: EmbeddingProvider = {
  modelId: 'none',
  dimensions: 1,
  embed: () => Promise.reject(new Error('no model in this test')),
  dispose: async () => {},
};

/** The store the workspace keeps to itself, reached past TypeScript as a careless caller would. */
function privateStore(ws: AtomWorkspace): AtomStore {
  return (ws as unknown as { store: AtomStore }).store;
}

async function openWithBundle(): Promise<{ ws: AtomWorkspace; bundle: string; builds: BuildRecord[] }> {
  const dir = tempDir();
  const ws = await AtomWorkspace.open(dir, { embeddings: noModel });
  await ws.upsert(mathClamp);
  const builds: BuildRecord[] = [];
  ws.builder.onDidBuild((b) => builds.push(b));
  return { ws, bundle: join(dir, '.atomic', 'latest.js'), builds };
}

test('a write made directly through the store rebuilds latest.js: the build hangs off the change event', async () => {
  const { ws, bundle, builds } = await openWithBundle();
  assert.doesNotMatch(readFileSync(bundle, 'utf8'), /function physics_config/);

  await upsert(privateStore(ws), physicsConfig);
  await ws.close(); // lets the build the change asked for finish first

  assert.match(readFileSync(bundle, 'utf8'), /function physics_config/, 'latest.js has the atom written past the workspace');
  assert.deepEqual(builds.map((b) => [b.status, b.order]), [['success', ['math_clamp', 'physics_config']]]);
});

test('a batch written directly through the store is built once, with every atom of it', async () => {
  const { ws, bundle, builds } = await openWithBundle();

  await upsertMany(privateStore(ws), [physicsConfig, playerJump, gameLoop]);
  await ws.close();

  assert.match(readFileSync(bundle, 'utf8'), /function game_loop/);
  assert.equal(builds.length, 1, 'one build for one committed batch');
  assert.deepEqual(builds[0]!.order, ['math_clamp', 'physics_config', 'player_jump', 'game_loop']);
});

test('a delete made directly through the store rebuilds latest.js without the atom', async () => {
  const { ws, bundle } = await openWithBundle();
  await ws.upsert(physicsConfig);

  await deleteAtom(privateStore(ws), 'physics_config');
  await ws.close();

  const text = readFileSync(bundle, 'utf8');
  assert.match(text, /function math_clamp/);
  assert.doesNotMatch(text, /function physics_config/);
});

test('workspace.atoms reads the atoms and offers no write method, not even through a cast', async () => {
  const { ws } = await openWithBundle();
  try {
    assert.equal(ws.atoms.get('math_clamp')?.version, 1);
    assert.deepEqual(ws.atoms.all().map((a) => a.name), ['math_clamp']);
    assert.equal(ws.atoms.lastBuild()?.status, 'success');
    const reader = ws.atoms as unknown as Record<string, unknown>;
    for (const writer of ['upsert', 'upsertMany', 'delete', 'recordBuild', 'putEmbeddings', 'compact', 'close']) {
      assert.equal(reader[writer], undefined, `workspace.atoms.${writer}`);
    }
    // A write through the workspace shows in the view at once.
    await ws.upsert(physicsConfig);
    assert.equal(ws.atoms.size, 2);
  } finally {
    await ws.close();
  }
});
