import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { statKey, TextRecords } from '../../src/textTree/records.js';
import { hashText } from '../../src/textTree/format.js';
import { textHash } from '../../src/util/textHash.js';
import { createHash } from 'node:crypto';
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

test('a stat key is size, mtime in nanoseconds and inode, once the mtime is settled', () => {
  const now = Date.now();
  const settled = { size: 120n, mtimeNs: BigInt(now - 5000) * 1_000_000n + 123n, ino: 9876543210n };
  assert.equal(statKey(settled, now), `120:${settled.mtimeNs}:9876543210`);
  assert.equal(statKey({ ...settled, mtimeNs: BigInt(now) * 1_000_000n }, now), undefined, 'a recent mtime cannot vouch for the bytes');
});

test('the short hashes are the leading hex digits of sha-256, as every earlier version wrote them', () => {
  for (const text of ['', 'function math_clamp(x) {}\n', 'é ✓ \u2028']) {
    const hex = createHash('sha256').update(text, 'utf8').digest('hex');
    assert.equal(hashText(text), hex.slice(0, 16));
    assert.equal(hashText(Buffer.from(text, 'utf8')), hex.slice(0, 16));
    assert.equal(textHash(text), hex.slice(0, 32));
  }
});
