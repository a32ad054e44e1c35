/** The user's cache of vectors (search/embeddings/vectorCache.ts) and search reading it at open. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AtomDraft } from '../../src/atoms/model.js';
import { embeddingText } from '../../src/atoms/signature.js';
import type { EmbeddingProvider } from '../../src/search/embeddings/provider.js';
import { CachingProvider, VectorCache } from '../../src/search/embeddings/vectorCache.js';
import { SearchIndex } from '../../src/search/searchIndex.js';
import { textHash } from '../../src/util/textHash.js';
import { MemorySource } from '../fixtures/search-source.js';
import { tempDir } from '../support/tmp.js';

const DIMENSIONS = 4;
const vectorOf = (text: string) => Float32Array.from({ length: DIMENSIONS }, (_, i) => (text.length % 7) + i * 0.125);

class CountingProvider implements EmbeddingProvider {
  readonly dimensions = DIMENSIONS;
  embedded: string[] = [];
  constructor(readonly modelId = 'counting-1') {}
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.embedded.push(...texts);
    return texts.map(vectorOf);
  }
  async dispose(): Promise<void> {}
}

test('a cached vector is read back exactly, by text hash and model', async () => {
  const folder = tempDir('atomic-vcache-');
  const cache = new VectorCache('model-a', DIMENSIONS, folder);
  const v = Float32Array.from([0.1, -0.2, 0.3000001, 1e-8]);
  await cache.put([{ textHash: textHash('hello'), vector: v }]);
  assert.deepEqual((await new VectorCache('model-a', DIMENSIONS, folder).get([textHash('hello'), textHash('other')])).get(textHash('hello')), v);
  assert.equal((await new VectorCache('model-b', DIMENSIONS, folder).get([textHash('hello')])).size, 0, 'another model has its own vectors');
  assert.deepEqual((await cache.get([textHash('hello')])).get(textHash('hello')), v, 'the writer reads its own writes');
});

test('a record cut short loses only itself; the next write lands whole', async () => {
  const folder = tempDir('atomic-vcache-cut-');
  const first = new VectorCache('m', DIMENSIONS, folder);
  await first.put([{ textHash: textHash('a'), vector: vectorOf('a') }]);
  appendFileSync(first.file, Buffer.alloc(7, 0xab)); // a crash mid-record
  const second = new VectorCache('m', DIMENSIONS, folder);
  await second.put([{ textHash: textHash('bb'), vector: vectorOf('bb') }]);
  const found = await new VectorCache('m', DIMENSIONS, folder).get([textHash('a'), textHash('bb')]);
  assert.deepEqual([...found.keys()].sort(), [textHash('a'), textHash('bb')].sort());
});

test('a link or a foreign file in the cache folder is not followed or trusted', async () => {
  const folder = tempDir('atomic-vcache-link-');
  const target = join(tempDir('atomic-vcache-target-'), 'victim');
  writeFileSync(target, 'keep me');
  const cache = new VectorCache('m', DIMENSIONS, folder);
  await cache.put([{ textHash: textHash('x'), vector: vectorOf('x') }]); // makes the folder
  const linked = new VectorCache('linked', DIMENSIONS, folder);
  symlinkSync(target, linked.file);
  await assert.rejects(linked.put([{ textHash: textHash('x'), vector: vectorOf('x') }]));
  assert.equal((await linked.get([textHash('x')])).size, 0);
  assert.equal(statSync(target).size, 'keep me'.length, 'the link target is untouched');
  writeFileSync(new VectorCache('garbage', DIMENSIONS, folder).file, 'not a cache file at all, just text'.repeat(10));
  assert.equal((await new VectorCache('garbage', DIMENSIONS, folder).get([textHash('x')])).size, 0);
});

test('the caching provider embeds only what the cache lacks', async () => {
  const inner = new CountingProvider();
  const provider = new CachingProvider(inner, new VectorCache(inner.modelId, DIMENSIONS, tempDir('atomic-vcache-p-')));
  assert.deepEqual(await provider.embed(['one', 'two']), [vectorOf('one'), vectorOf('two')]);
  assert.deepEqual(await provider.embed(['two', 'three', 'one']), [vectorOf('two'), vectorOf('three'), vectorOf('one')]);
  assert.deepEqual(inner.embedded, ['one', 'two', 'three']);
});

const drafts: AtomDraft[] = ['alpha', 'beta', 'gamma'].map((name) => ({ name: `util_${name}`, type: 'util', code: `function util_${name}() {\n  return '${name}';\n}\n` }));

test('a second clone of the same atoms takes every vector from the cache at open, without the model', async () => {
  const folder = tempDir('atomic-vcache-ws-');
  const first = new CountingProvider();
  const one = new SearchIndex(new MemorySource(join(tempDir('atomic-clone1-'), '.atomic'), drafts), first, { backlogDelayMs: 0, vectorCache: folder });
  await one.whenIdle();
  await one.close();
  assert.equal(first.embedded.length, 3);
  assert.equal(readdirSync(folder).length, 1);

  const second = new CountingProvider();
  const clone = new MemorySource(join(tempDir('atomic-clone2-'), '.atomic'), drafts);
  const two = new SearchIndex(clone, second, { backlogDelayMs: 60_000, vectorCache: folder });
  await two.open();
  assert.equal(two.pendingEmbeddings, 0, 'nothing left to embed');
  assert.equal(clone.embeddedCount, 3);
  assert.deepEqual(second.embedded, [], 'the model was not asked');
  assert.deepEqual(clone.getEmbedding('util_beta')?.vector, vectorOf(embeddingText(clone.get('util_beta')!)), 'the very vector');
  await two.close();
});

