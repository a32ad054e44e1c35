/**
 * Build records in the journal: an order equal to the previous build's is not written again,
 * and replaying the journal (after a crash, before any compaction) restores it in full.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { AtomStore } from '../../src/store/atomStore.js';
import type { BuildRecord } from '../../src/store/builds.js';
import { cube } from '../support/atoms.js';
import { tempDir } from '../support/tmp.js';
import { upsert } from '../support/storeWrites.js';

function build(order: string[], status: BuildRecord['status'] = 'success'): BuildRecord {
  return { status, bundle_path: 'latest.js', atom_count: order.length, order, error_message: null, duration_ms: 1, created_at: new Date().toISOString() };
}

test('an unchanged order is journaled once and replayed in full', async () => {
  const dir = tempDir();
  const writer = await AtomStore.open(dir, { compactAfterEntries: 1_000_000 });
  for (const d of cube) await upsert(writer, d);
  const order = ['math_clamp', 'physics_config', 'player_jump', 'game_loop'];
  await writer.recordBuild(build(order));
  await writer.recordBuild(build([...order]));
  await writer.recordBuild(build([...order]));
  assert.deepEqual(writer.lastBuild()?.order, order);

  const lines = readFileSync(writer.journalFile, 'utf8').trim().split('\n');
  const builds = lines.filter((l) => l.includes('"op":"build"'));
  assert.equal(builds.length, 3);
  assert.equal(builds.filter((l) => l.includes('"sameOrder":true')).length, 2);
  assert.ok(!builds[2]!.includes('player_jump'), 'the repeated order is not written again');

  // A second store replays the journal as a restart after a crash would (no compaction yet).
  const replayed = await AtomStore.open(dir, { noLock: true, compactAfterEntries: 1_000_000 });
  assert.deepEqual(replayed.lastBuild()?.order, order);
  assert.equal(replayed.lastBuild()?.atom_count, 4);
  // Closing compacts into atoms.db; the writer sees that as an outside change and reloads first.
  await replayed.close();

  // A different order is written out again.
  const reordered = [...order].reverse();
  await writer.recordBuild(build(reordered));
  assert.deepEqual(writer.lastBuild()?.order, reordered);
  await writer.close();
  const reopened = await AtomStore.open(dir);
  assert.deepEqual(reopened.lastBuild()?.order, reordered);
  await reopened.close();
});
