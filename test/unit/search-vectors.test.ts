import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AtomicFileStorage } from '../../src/store/search/atomicStorage.js';
import { INDEX_FILE, VectorIndex, type VectorMeta } from '../../src/store/search/vectorIndex.js';

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'atomic-vectors-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const meta = (type: VectorMeta['type'] = 'util'): VectorMeta => ({ type, model: 'm1', textHash: 'h' });
const unit = (...xs: number[]) => {
  const n = Math.hypot(...xs);
  return Float32Array.from(xs.map((x) => x / n));
};

test('a missing index is created, and changes are seen by queries before they are saved', async () => {
  const folder = join(tempDir(), 'vectors');
  const index = new VectorIndex(folder, { flushDelayMs: 60_000 });
  assert.equal(await index.open(), 'created');
  index.upsert('a', unit(1, 0, 0), meta());
  index.upsert('b', unit(0, 1, 0), meta('core'));
  const hits = await index.query(unit(1, 0.1, 0), 2);
  assert.deepEqual(hits.map((h) => h.name), ['a', 'b']);
  assert.ok(Math.abs(hits[0]!.similarity - 0.995) < 0.001);
  const onDisk = JSON.parse(readFileSync(join(folder, INDEX_FILE), 'utf8')) as { items: unknown[] };
  assert.equal(onDisk.items.length, 0, 'not saved yet: writes are coalesced');
  await index.flush();
  const saved = JSON.parse(readFileSync(join(folder, INDEX_FILE), 'utf8')) as { items: Array<{ id: string }> };
  assert.deepEqual(saved.items.map((i) => i.id).sort(), ['a', 'b']);
});

test('the type filter and deletes apply to saved and pending items alike', async () => {
  const folder = join(tempDir(), 'vectors');
  const index = new VectorIndex(folder, { flushDelayMs: 60_000 });
  await index.open();
  index.upsert('a', unit(1, 0), meta('util'));
  index.upsert('b', unit(1, 0.2), meta('core'));
  await index.flush();
  index.upsert('c', unit(1, 0.1), meta('core'));
  assert.deepEqual((await index.query(unit(1, 0), 5, 'core')).map((h) => h.name), ['c', 'b']);
  index.delete('b');
  assert.deepEqual((await index.query(unit(1, 0), 5)).map((h) => h.name), ['a', 'c']);
  await index.flush();
  assert.deepEqual((await index.query(unit(1, 0), 5)).map((h) => h.name), ['a', 'c']);
  assert.equal(index.meta('b'), undefined);
});

test('a saved index is loaded back with its metadata', async () => {
  const folder = join(tempDir(), 'vectors');
  const first = new VectorIndex(folder);
  await first.open();
  first.upsert('a', unit(1, 2, 3), { type: 'feature', model: 'm1', textHash: 'abc' });
  await first.dispose();
  const second = new VectorIndex(folder);
  assert.equal(await second.open(), 'loaded');
  assert.deepEqual(second.meta('a'), { type: 'feature', model: 'm1', textHash: 'abc' });
  const v = await second.vector('a');
  assert.ok(v && Math.abs(v[2]! - unit(1, 2, 3)[2]!) < 1e-5);
});

test('an unreadable index (empty, truncated, not JSON) is replaced by an empty one', async () => {
  for (const content of ['', '{"version":1,"items":[{"id":"a","vec', 'garbage']) {
    const folder = join(tempDir(), 'vectors');
    const first = new VectorIndex(folder);
    await first.open();
    first.upsert('a', unit(1, 0), meta());
    await first.dispose();
    writeFileSync(join(folder, INDEX_FILE), content);
    const second = new VectorIndex(folder);
    assert.equal(await second.open(), 'recreated', JSON.stringify(content));
    assert.equal(second.size, 0);
    second.upsert('b', unit(0, 1), meta());
    await second.flush();
    assert.deepEqual((await second.query(unit(0, 1), 5)).map((h) => h.name), ['b']);
  }
});

test('atomic storage replaces files whole and leaves no temp files behind', async () => {
  const dir = tempDir();
  const storage = new AtomicFileStorage();
  const file = join(dir, 'index.json');
  await storage.createFile(file, 'first');
  await assert.rejects(storage.createFile(file, 'again'), /already exists/);
  await storage.upsertFile(file, Buffer.from('second'));
  assert.equal(readFileSync(file, 'utf8'), 'second');
  assert.deepEqual(readdirSync(dir), ['index.json']);
});
