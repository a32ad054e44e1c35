import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AtomicFileStorage } from '../../src/store/search/atomicStorage.js';
import { fromHalf, toHalf } from '../../src/store/embeddings/float16.js';
import { BinaryIndexCodec } from '../../src/store/search/binaryCodec.js';
import { INDEX_FILE, VectorIndex, type VectorMeta } from '../../src/store/search/vectorIndex.js';
import { tempDir } from '../support/tmp.js';


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
  const onDisk = () => new BinaryIndexCodec().deserializeIndex(readFileSync(join(folder, INDEX_FILE)));
  assert.equal(onDisk().items.length, 0, 'not saved yet: writes are coalesced');
  await index.flush();
  assert.deepEqual(onDisk().items.map((i) => i.id).sort(), ['a', 'b']);
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
  assert.ok(v && Math.abs(v[2]! - unit(1, 2, 3)[2]!) < 1e-3, 'kept as binary16: to about 1 part in 2,000');
});

test('an unreadable index (empty, truncated, not ours) is replaced by an empty one', async () => {
  const whole = (folder: string) => readFileSync(join(folder, INDEX_FILE));
  const damages: Array<(file: Buffer) => Buffer | string> = [
    () => '',
    (file) => file.subarray(0, file.length - 3), // cut in the vectors
    (file) => file.subarray(0, 20), // cut in the header
    () => '{"version":1,"items":[]}', // the JSON of earlier versions, under the new name
    () => 'garbage',
  ];
  for (const damage of damages) {
    const folder = join(tempDir(), 'vectors');
    const first = new VectorIndex(folder);
    await first.open();
    first.upsert('a', unit(1, 0), meta());
    await first.dispose();
    const content = damage(whole(folder));
    writeFileSync(join(folder, INDEX_FILE), content);
    const second = new VectorIndex(folder);
    assert.equal(await second.open(), 'recreated', String(damage));
    assert.equal(second.size, 0);
    second.upsert('b', unit(0, 1), meta());
    await second.flush();
    assert.deepEqual((await second.query(unit(0, 1), 5)).map((h) => h.name), ['b']);
  }
});

test('the index of earlier versions (index.json) is removed, not read: the database refills the index', async () => {
  const folder = join(tempDir(), 'vectors');
  const first = new VectorIndex(folder);
  await first.open();
  first.upsert('a', unit(1, 0), meta());
  await first.dispose();
  writeFileSync(join(folder, 'index.json'), '{"version":1,"metadata_config":{},"items":[]}');
  const second = new VectorIndex(folder);
  assert.equal(await second.open(), 'loaded');
  assert.deepEqual(readdirSync(folder), [INDEX_FILE]);
  assert.equal(second.size, 1);
});

test('the binary codec round-trips ids, metadata, norms and vectors of any length, as binary16', () => {
  const codec = new BinaryIndexCodec();
  const data = {
    version: 1,
    metadata_config: {},
    items: [
      { id: 'first é', metadata: { type: 'util', model: 'm', textHash: 'h1' }, vector: [0.25, -0.5, 1 / 3], norm: 0.7 },
      { id: 'empty', metadata: { type: 'core', model: 'm', textHash: 'h2' }, vector: [], norm: 0 },
      { id: 'long', metadata: { type: 'feature', model: 'm', textHash: 'h3' }, vector: Array.from({ length: 512 }, (_, i) => Math.sin(i)), norm: 1 },
    ],
  };
  const bytes = codec.serializeIndex(data);
  assert.equal(bytes.toString('latin1', 0, 4), 'ACV2');
  const back = codec.deserializeIndex(Buffer.concat([Buffer.alloc(1), bytes]).subarray(1)); // an odd offset, as a pooled read gives
  const withoutVector = ({ id, metadata, norm }: { id: string; metadata: unknown; norm: number }) => ({ id, metadata, norm });
  assert.deepEqual(back.items.map(withoutVector), data.items.map(withoutVector));
  back.items.forEach((item, k) => {
    assert.equal(item.vector.length, data.items[k]!.vector.length);
    item.vector.forEach((x, i) => assert.equal(x, fromHalf(toHalf(data.items[k]!.vector[i]!))));
  });
  const headerEnd = (8 + bytes.readUInt32LE(4) + 3) & ~3;
  assert.equal(bytes.length, headerEnd + 515 * 2, 'after the header, each value takes 2 bytes');
  assert.throws(() => codec.deserializeIndex(bytes.subarray(0, bytes.length - 4)), /expected/);
  assert.throws(() => codec.deserializeIndex(Buffer.from('{"version":1}')), /no ACV2 header/);
});

test('a vector file of the float32 layout (ACV1) is still read', () => {
  const header = Buffer.from(JSON.stringify({ version: 1, metadata_config: {}, items: [{ id: 'a', metadata: { type: 'util' }, norm: 1, n: 2 }] }));
  const start = (8 + header.length + 3) & ~3;
  const bytes = Buffer.alloc(start + 8);
  bytes.write('ACV1', 0, 'latin1');
  bytes.writeUInt32LE(header.length, 4);
  header.copy(bytes, 8);
  bytes.writeFloatLE(0.1, start);
  bytes.writeFloatLE(-2.5, start + 4);
  const back = new BinaryIndexCodec().deserializeIndex(bytes);
  assert.deepEqual([...back.items[0]!.vector], [Math.fround(0.1), -2.5]);
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
