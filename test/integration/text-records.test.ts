/**
 * The text tree's records file (textTree/records.ts) on disk: appended lines, a rewrite, a reopen.
 * (Moved from test/unit, which touches no disk.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TextRecords } from '../../src/textTree/records.js';
import { tempDir } from '../support/tmp.js';

test('records read back as they were set, with and without a stat, after a rewrite and a reopen', async () => {
  const file = join(tempDir(), 'text-tree');
  const records = new TextRecords(file, 'atoms');
  records.set('math_clamp', { file: 'aaaaaaaaaaaaaaaa', atom: 'bbbbbbbbbbbbbbbb' });
  records.set('physics_step', { file: 'cccccccccccccccc', atom: 'dddddddddddddddd', stat: '12:1700000000000000000:42' });
  records.set('gone_soon', { file: 'eeeeeeeeeeeeeeee', atom: 'ffffffffffffffff' });
  records.delete('gone_soon');
  assert.deepEqual(records.get('math_clamp'), { file: 'aaaaaaaaaaaaaaaa', atom: 'bbbbbbbbbbbbbbbb' });
  assert.deepEqual(records.get('physics_step'), { file: 'cccccccccccccccc', atom: 'dddddddddddddddd', stat: '12:1700000000000000000:42' });
  assert.equal(records.get('gone_soon'), undefined);
  const lines = readFileSync(file, 'utf8').split('\n').length;
  records.set('math_clamp', { file: 'aaaaaaaaaaaaaaaa', atom: 'bbbbbbbbbbbbbbbb' });
  assert.equal(readFileSync(file, 'utf8').split('\n').length, lines, 'the same record again appends nothing');

  // Appended lines, read back as a killed process leaves them (no rewrite, no close).
  const appended = new TextRecords(file, 'atoms');
  assert.deepEqual([...appended.names()].sort(), ['math_clamp', 'physics_step']);
  assert.deepEqual(appended.get('physics_step'), records.get('physics_step'));
  assert.equal(appended.wasClosedCleanly, false);

  await records.compact(true);
  records.close();
  const reopened = new TextRecords(file, 'atoms');
  assert.equal(reopened.wasClosedCleanly, true);
  assert.deepEqual(reopened.get('math_clamp'), { file: 'aaaaaaaaaaaaaaaa', atom: 'bbbbbbbbbbbbbbbb' });
  assert.deepEqual(reopened.get('physics_step'), { file: 'cccccccccccccccc', atom: 'dddddddddddddddd', stat: '12:1700000000000000000:42' });
  reopened.close();
});
