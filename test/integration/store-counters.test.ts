/** The store's counters behind get_status: they must equal a walk over the atoms after every kind of change. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ATOM_TYPES } from '../../src/atoms/model.js';
import { AtomStore } from '../../src/store/atomStore.js';
import { cube, mathClamp, physicsConfig } from '../support/atoms.js';
import { tempDir } from '../support/tmp.js';
import { deleteAtom, upsert, upsertMany } from '../support/storeWrites.js';

function walked(store: AtomStore) {
  const byType = Object.fromEntries(ATOM_TYPES.map((t) => [t, store.all().filter((a) => a.type === t).length]));
  const edges = store.all().reduce((n, a) => n + a.dependencies.length, 0);
  return { byType, edges };
}

function assertCounters(store: AtomStore, expected: Record<string, number>): void {
  assert.deepEqual(store.countByType(), expected);
  assert.deepEqual({ byType: store.countByType(), edges: store.edges }, walked(store));
}

test('type counts and edges follow creates, type changes, batches, deletes and a reopen', async () => {
  const dir = tempDir();
  let store = await AtomStore.open(dir);
  assertCounters(store, { core: 0, feature: 0, util: 0, test: 0 });
  for (const d of cube) await upsert(store, d);
  assertCounters(store, { core: 1, feature: 1, util: 2, test: 0 });
  await upsert(store, { ...mathClamp, type: 'feature' });
  assertCounters(store, { core: 1, feature: 2, util: 1, test: 0 });
  await upsertMany(store, [{ ...mathClamp, type: 'util' }, { ...physicsConfig, description: 'unchanged type' }]);
  assertCounters(store, { core: 1, feature: 1, util: 2, test: 0 });
  await deleteAtom(store, 'game_loop');
  assertCounters(store, { core: 0, feature: 1, util: 2, test: 0 });
  await store.close();
  store = await AtomStore.open(dir);
  assertCounters(store, { core: 0, feature: 1, util: 2, test: 0 });
  assert.equal(store.embeddingCount, 0);
  await store.putEmbeddings([{ name: 'math_clamp', model: 'm', textHash: 'h', vector: new Float32Array([1, 0]) }]);
  assert.equal(store.embeddingCount, 1);
  await store.close();
});
