import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statKey } from '../../src/textTree/records.js';
import { hashText, hasHashText } from '../../src/textTree/format.js';
import { hasTextHash, textHash } from '../../src/util/textHash.js';
import { createHash } from 'node:crypto';

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

test('hasTextHash agrees with textHash, and matches nothing but the 32 digits textHash makes', () => {
  for (const text of ['', 'function math_clamp(x) {}\n', 'é ✓ \u2028', 'x'.repeat(3000)]) {
    const short = textHash(text);
    assert.ok(hasTextHash(text, short));
    assert.ok(!hasTextHash(`${text} `, short), 'another text');
    assert.ok(!hasTextHash(text, short.slice(0, 31)), 'a shorter prefix of the same digest');
    assert.ok(!hasTextHash(text, ''), 'no hash');
    assert.ok(!hasTextHash(text, short.toUpperCase()), 'not as textHash writes it');
    assert.ok(!hasTextHash(text, createHash('sha256').update(text, 'utf8').digest('hex')), 'the whole digest is not a stored hash');
    assert.ok(hasHashText(text, hashText(text)), "the text tree's records: hashText");
    assert.ok(!hasHashText(`${text} `, hashText(text)));
    assert.ok(!hasHashText(text, short), 'a textHash is not a hashText');
  }
});
