/**
 * When closing writes a snapshot (compaction.ts, `worthAtClose`): always for a small database
 * with anything in its journal; for a large one (exporting and fsyncing 150 MiB takes seconds)
 * only once the journal is long enough to slow the next open.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Compaction } from '../../src/store/compaction.js';
import type { Journal } from '../../src/store/journal.js';
import { silentLogger } from '../../src/util/log.js';

const MiB = 1024 * 1024;

function compaction(entries: number, journalBytes: number, unsaved = false): Compaction {
  const journal = { size: journalBytes } as unknown as Journal;
  const host = { exclusive: async <T>(work: () => Promise<T>) => work(), compactNow: async () => {}, isClosed: () => false };
  const c = new Compaction(journal, { compactAfterEntries: 1_000_000, compactAfterBytes: 1024 * MiB }, host, silentLogger);
  c.loaded(entries, unsaved);
  return c;
}

test('closing snapshots a small database whenever its journal holds anything', () => {
  assert.equal(compaction(0, 0).worthAtClose(1 * MiB), false, 'nothing to fold in');
  assert.equal(compaction(1, 200).worthAtClose(1 * MiB), true);
  assert.equal(compaction(1, 200).worthAtClose(15 * MiB), true);
});

test('closing leaves a short journal beside a large snapshot, and folds a long one in', () => {
  assert.equal(compaction(5, 20_000).worthAtClose(150 * MiB), false, 'five entries replay in moments');
  assert.equal(compaction(100, 20_000).worthAtClose(150 * MiB), true, 'many entries');
  assert.equal(compaction(3, 2 * MiB).worthAtClose(150 * MiB), true, 'a large journal');
});

test('closing always snapshots what only a snapshot keeps (seals of rows checked in full, a migration)', () => {
  assert.equal(compaction(0, 0, true).worthAtClose(150 * MiB), true, 'else the next open checks every row again');
  const c = compaction(0, 0, true);
  c.snapshotted();
  assert.equal(c.worthAtClose(150 * MiB), false);
});
