/**
 * SearchIndex with the real embedding model (USE-lite in its worker thread) over the labelled
 * game atoms: what an agent relies on, and how the index recovers from what happens on disk.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { embeddingText } from '../../src/atoms/signature.js';
import { textHash } from '../../src/util/textHash.js';
import { USE_LITE_MODEL_ID, UseLiteProvider } from '../../src/search/embeddings/useLite.js';
import type { EmbeddingProvider } from '../../src/search/embeddings/provider.js';
import { SearchIndex, type IndexProgress } from '../../src/search/searchIndex.js';
import { LEGACY_INDEX_FILES } from '../../src/search/vectorIndex.js';
import { counterAtoms, GAME_ATOMS } from '../fixtures/game-atoms.js';
import { MemorySource } from '../fixtures/search-source.js';
import { tempDir } from '../support/tmp.js';

const root = tempDir('atomic-search-');
const source = new MemorySource(join(root, '.atomic'), GAME_ATOMS);
let index: SearchIndex;

before(async () => {
  index = new SearchIndex(source, new UseLiteProvider(), { backlogDelayMs: 0 });
  await index.whenIdle();
});

after(async () => {
  await index.close();
});

const names = async (query: string, options: Parameters<SearchIndex['search']>[1] = {}) =>
  (await index.search(query, options)).hits.map((h) => h.atom.name);

test('every atom is embedded with the model id and the hash of its text, and indexed', () => {
  assert.equal(source.allEmbeddings().length, GAME_ATOMS.length);
  for (const atom of source.all()) {
    const row = source.getEmbedding(atom.name)!;
    assert.equal(row.model, USE_LITE_MODEL_ID);
    assert.equal(row.textHash, textHash(embeddingText(atom)));
    assert.equal(row.vector.length, 512);
  }
  assert.ok(!existsSync(join(source.atomicDir, 'vectors')), 'the vectors are kept in the database only');
});

test('"make the character go up" finds player_jump', async () => {
  const { hits } = await index.search('make the character go up');
  assert.ok(hits.slice(0, 5).some((h) => h.atom.name === 'player_jump'), hits.map((h) => h.atom.name).join(', '));
});

test('an atom name comes first, with its cosine as similarity', async () => {
  for (const query of ['math_clamp', 'player_jump', 'aabbOverlap']) {
    const { hits } = await index.search(query);
    assert.equal(hits[0]?.atom.name, query === 'aabbOverlap' ? 'aabb_overlap' : query);
    assert.ok(hits[0]!.pinned);
    assert.ok(hits[0]!.similarity !== null && hits[0]!.similarity > 0 && hits[0]!.similarity <= 1);
  }
});

test('results follow limit and type_filter', async () => {
  assert.equal((await names('jump logic', { limit: 2 })).length, 2);
  const cores = await names('velocity', { type: 'core', limit: 20 });
  assert.ok(cores.length > 0);
  for (const n of cores) assert.equal(source.get(n)!.type, 'core', n);
  assert.ok(!(await names('math_clamp', { type: 'feature', limit: 20 })).includes('math_clamp'));
});

test('atoms only meaning finds are cut below similarity 0.3', async () => {
  const uncut = await index.search('gravity pulls the velocity down each frame', { mode: 'semantic', limit: 50, threshold: -1 });
  assert.ok(uncut.hits.some((h) => h.similarity! < 0.3), 'some atoms are less similar than 0.3');
  const cut = await index.search('gravity pulls the velocity down each frame', { mode: 'semantic', limit: 50 });
  assert.ok(cut.hits.length > 0 && cut.hits.length < uncut.hits.length);
  for (const h of cut.hits) assert.ok(h.similarity! >= 0.3, `${h.atom.name} ${h.similarity}`);
});

test('a search right after an upsert sees the new atom, by words and by meaning', async () => {
  source.upsert({
    name: 'wall_slide',
    type: 'feature',
    description: 'Slows the fall while the player presses against a wall',
    inputs: [{ name: 'velocity_y', type: 'number' }, { name: 'touching_wall', type: 'boolean' }],
    outputs: [{ name: 'velocity_y', type: 'number' }],
    code: 'function wall_slide(velocity_y, touching_wall) {\n  return touching_wall ? Math.min(velocity_y, 120) : velocity_y;\n}\n',
  });
  const { hits } = await index.search('wall_slide');
  assert.equal(hits[0]?.atom.name, 'wall_slide');
  assert.notEqual(hits[0]?.similarity, null, 'its vector is there too');
  const semantic = await index.search('slide down a wall slowly', { mode: 'semantic', limit: 5, threshold: -1 });
  assert.ok(semantic.hits.some((h) => h.atom.name === 'wall_slide'));
  assert.equal(source.getEmbedding('wall_slide')?.textHash, textHash(embeddingText(source.get('wall_slide')!)));

  source.delete('wall_slide');
  assert.ok(!(await names('wall_slide', { limit: 20 })).includes('wall_slide'));
  assert.ok(!(await index.search('slide down a wall slowly', { mode: 'semantic', limit: 50, threshold: -1 })).hits.some((h) => h.atom.name === 'wall_slide'));
});

test('an edit re-embeds that atom only', async () => {
  const before = source.embeddedCount;
  const clamp = GAME_ATOMS.find((a) => a.name === 'math_clamp')!;
  source.upsert({ ...clamp, description: 'Keeps a number inside a window between min and max' });
  await index.search('window');
  assert.equal(source.embeddedCount, before + 1);
  assert.equal(source.getEmbedding('math_clamp')?.textHash, textHash(embeddingText(source.get('math_clamp')!)));
  source.upsert(clamp);
  await index.whenIdle();
});

test('a reopened index is filled from the database without re-embedding, and an old vector file is removed', async () => {
  await index.close();
  const folder = join(source.atomicDir, 'vectors');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, LEGACY_INDEX_FILES[0]!), 'a copy of the vectors from an earlier version');
  const before = source.embeddedCount;
  const progress: IndexProgress[] = [];
  index = new SearchIndex(source, new UseLiteProvider(), { backlogDelayMs: 0 });
  index.onProgress((p) => progress.push(p));
  await index.whenIdle();
  assert.equal(source.embeddedCount, before, 'vectors come from the database');
  assert.ok(!existsSync(folder), 'the old copy is gone');
  const last = progress.filter((p) => p.phase === 'indexing').at(-1);
  assert.deepEqual(last && { done: last.done, total: last.total }, { done: source.all().length, total: source.all().length });
  assert.equal((await index.search('math_clamp')).hits[0]?.atom.name, 'math_clamp');
  assert.ok((await names('make the character go up')).includes('player_jump'));
});

test('vectors of another model or of other text are stale and re-embedded, the rest kept', async () => {
  await index.close();
  const rows = source.allEmbeddings();
  const jump = rows.find((r) => r.name === 'player_jump')!;
  const gravity = rows.find((r) => r.name === 'gravity_apply')!;
  source.reload(
    GAME_ATOMS,
    rows.map((r) =>
      r === jump ? { ...r, model: 'some-other-model' } : r === gravity ? { ...r, textHash: 'not-the-text' } : r,
    ),
  );
  const before = source.embeddedCount;
  const progress: IndexProgress[] = [];
  index = new SearchIndex(source, new UseLiteProvider(), { backlogDelayMs: 0 });
  index.onProgress((p) => progress.push(p));
  await index.whenIdle();
  assert.equal(source.embeddedCount, before + 2);
  assert.equal(source.getEmbedding('player_jump')?.model, USE_LITE_MODEL_ID);
  assert.equal(source.getEmbedding('gravity_apply')?.textHash, textHash(embeddingText(source.get('gravity_apply')!)));
  assert.deepEqual(progress.filter((p) => p.phase === 'embedding').at(-1), { phase: 'embedding', done: 2, total: 2 });
});

test('the model starts lazily: nothing is embedded before a search or an edit needs it', async () => {
  const dir = tempDir('atomic-lazy-');
  const fresh = new MemorySource(join(dir, '.atomic'), GAME_ATOMS.slice(0, 3));
  const lazy = new SearchIndex(fresh, new UseLiteProvider(), { backlogDelayMs: 60_000 });
  await lazy.open();
  assert.equal(fresh.embeddedCount, 0);
  assert.equal(lazy.pendingEmbeddings, 3);
  await lazy.search('clamp');
  await lazy.whenIdle();
  assert.equal(fresh.embeddedCount, 3);
  await lazy.close();
});

test('with coldQueryWaitMs, the first search does not wait for the model to start: words rank it and it says so; the next uses meaning', async () => {
  const dir = tempDir('atomic-cold-');
  const fresh = new MemorySource(join(dir, '.atomic'), GAME_ATOMS);
  for (const atom of source.all()) {
    const row = source.getEmbedding(atom.name);
    if (row) await fresh.putEmbeddings([row]);
  }
  const cold = new SearchIndex(fresh, new UseLiteProvider(), { backlogDelayMs: 60_000, coldQueryWaitMs: 1 });
  await cold.open();
  assert.equal(cold.pendingEmbeddings, 0, 'every atom has its vector: only the query needs the model');
  const first = await cold.search('player_jump');
  assert.equal(first.modelStarting, true);
  assert.equal(first.hits[0]?.atom.name, 'player_jump', 'a query naming an atom finds it first by its name');
  assert.ok(first.hits.every((h) => h.similarity === null), 'no score pretends meaning was used');
  // The model went on starting; once it has answered, searches use meaning again.
  let later = await cold.search('make the character go up');
  for (let waited = 0; later.modelStarting && waited < 60_000; waited += 200) {
    await new Promise((r) => setTimeout(r, 200));
    later = await cold.search('make the character go up');
  }
  assert.equal(later.modelStarting, undefined);
  assert.ok(later.hits.every((h) => h.similarity !== null), 'scored with meaning');
  assert.ok(later.hits.slice(0, 5).some((h) => h.atom.name === 'player_jump'), later.hits.map((h) => h.atom.name).join(', '));
  await cold.close();
});

test('a backlog found at open is embedded in the background, with no search asking', async () => {
  const dir = tempDir('atomic-backlog-');
  const fresh = new MemorySource(join(dir, '.atomic'), GAME_ATOMS.slice(0, 3));
  const background = new SearchIndex(fresh, new UseLiteProvider(), { backlogDelayMs: 200 });
  await background.open();
  assert.equal(background.pendingEmbeddings, 3);
  // Waiting is bounded; the model's first load takes a few seconds on a busy machine.
  for (let waited = 0; fresh.embeddedCount < 3 && waited < 60_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
  assert.equal(fresh.embeddedCount, 3);
  assert.equal(background.pendingEmbeddings, 0);
  await background.close();
});

test('the first search finishes a small backlog before answering, so meaning ranks every atom', async () => {
  const dir = tempDir('atomic-first-');
  // A small backlog (up to 40 atoms is waited for), with the atom the query is about in it.
  const small = [...GAME_ATOMS.filter((a) => a.name !== 'player_jump').slice(0, 19), GAME_ATOMS.find((a) => a.name === 'player_jump')!];
  const fresh = new MemorySource(join(dir, '.atomic'), small);
  // The backlog would not start on its own for a minute; the search must not wait for that.
  const first = new SearchIndex(fresh, new UseLiteProvider(), { backlogDelayMs: 60_000, backlogWaitMs: 120_000 });
  await first.open();
  assert.equal(first.pendingEmbeddings, small.length);
  const result = await first.search('make the character go up');
  assert.equal(result.unembedded, undefined, 'nothing was left to words alone');
  assert.equal(first.pendingEmbeddings, 0);
  assert.ok(result.hits.every((h) => h.similarity !== null), 'every hit has a similarity');
  assert.ok(result.hits.slice(0, 5).some((h) => h.atom.name === 'player_jump'), result.hits.map((h) => h.atom.name).join(', '));
  await first.close();
});

test('a large backlog is not waited for: the answer counts the atoms only their words could rank', async () => {
  const dir = tempDir('atomic-large-backlog-');
  const many = counterAtoms(60);
  const fresh = new MemorySource(join(dir, '.atomic'), [...GAME_ATOMS, ...many]);
  const large = new SearchIndex(fresh, new UseLiteProvider(), { backlogDelayMs: 60_000 });
  await large.open();
  const result = await large.search('clamp a value');
  assert.ok(result.unembedded !== undefined && result.unembedded > 0 && result.unembedded <= GAME_ATOMS.length + many.length, `unembedded: ${result.unembedded}`);
  assert.ok(result.hits.some((h) => h.atom.name === 'math_clamp'), 'the words still find math_clamp');
  await large.close();
});

test('while a backlog waits, a query whose words find atoms with no vector yet is answered without waiting for the model', { timeout: 120_000 }, async () => {
  const dir = tempDir('atomic-catch-up-');
  const fresh = new MemorySource(join(dir, '.atomic'), [...GAME_ATOMS, ...counterAtoms(60)]);
  // The real model, its answers held until the test lets them through: a search that waited for the
  // query's vector would never answer (and the test would end at its timeout).
  const model = new UseLiteProvider();
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const gated: EmbeddingProvider = {
    modelId: model.modelId,
    dimensions: model.dimensions,
    embed: async (texts) => {
      const vectors = await model.embed(texts);
      await held;
      return vectors;
    },
    dispose: () => model.dispose(),
  };
  const catchingUp = new SearchIndex(fresh, gated, { backlogDelayMs: 60_000 });
  try {
    await catchingUp.open();
    const result = await catchingUp.search('clamp a value', { limit: 10 });
    assert.equal(result.hits[0]?.atom.name, 'math_clamp', 'the words rank it');
    assert.ok(result.unembedded !== undefined && result.unembedded > 0, `the answer counts the atoms without a vector: ${result.unembedded}`);
    assert.ok(result.hits.every((h) => h.similarity === null), 'no score pretends meaning was used');
  } finally {
    release();
    await catchingUp.close();
    await model.dispose();
  }
});

test('a fresh clone (no atom has a vector) asks the model nothing before its first search answers by words', async () => {
  const dir = tempDir('atomic-words-first-');
  const fresh = new MemorySource(join(dir, '.atomic'), [...GAME_ATOMS, ...counterAtoms(60)]);
  // A stand-in for the model that answers at once and records what it was asked, and when.
  const events: string[] = [];
  const asked: string[] = [];
  const recording: EmbeddingProvider = {
    modelId: 'recording',
    dimensions: 8,
    embed: async (texts) => {
      events.push('model asked');
      asked.push(...texts);
      return texts.map((_, i) => Float32Array.from({ length: 8 }, (_v, k) => ((i + k) % 8) + 1));
    },
    warm: () => void events.push('model warmed'),
    dispose: async () => {},
  };
  const index = new SearchIndex(fresh, recording, { backlogDelayMs: 0 });
  try {
    const query = 'clamp a value between limits';
    index.warm(); // a person opened Search Atoms
    const first = await index.search(query);
    events.push('first answer');
    assert.equal(first.hits[0]?.atom.name, 'math_clamp', 'the words rank it');
    assert.ok(first.unembedded !== undefined && first.unembedded > 0, `the answer counts the atoms without a vector: ${first.unembedded}`);
    // No query's meaning could rank an atom with no vector: its vector was not asked for, and the
    // catch-up's model waited for the words index the answer needed (on two cores its cold start took a core from it).
    assert.equal(events[0], 'first answer', events.slice(0, 3).join(', '));
    await index.whenIdle();
    assert.ok(!asked.includes(query), 'the query was never embedded');
    assert.equal(fresh.embeddedCount, GAME_ATOMS.length + 60, 'then every atom was embedded');
  } finally {
    await index.close();
  }
});

test('a vectors folder of an earlier version that cannot be cleaned up leaves search whole and ends nothing', async () => {
  const dir = tempDir('atomic-noindex-');
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    const blocker = join(dir, 'not-a-folder');
    writeFileSync(blocker, 'a file where the vectors folder should be');
    const fresh = new MemorySource(join(dir, '.atomic'), GAME_ATOMS.slice(0, 5));
    const blocked = new SearchIndex(fresh, new UseLiteProvider(), { vectorsDir: join(blocker, 'vectors'), backlogDelayMs: 0 });
    await blocked.whenIdle();
    assert.equal((await blocked.search(GAME_ATOMS[0]!.name)).hits[0]?.atom.name, GAME_ATOMS[0]!.name);
    const byMeaning = await blocked.search(GAME_ATOMS[0]!.description!);
    assert.ok(byMeaning.hits.some((h) => h.similarity !== null), 'meaning is there');
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(unhandled, [], 'no rejection went unhandled');
    await blocked.close();
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});

test('a reload of the database is followed: gone atoms vanish, new ones are found', async () => {
  const kept = GAME_ATOMS.filter((a) => a.name !== 'coin_collect');
  const added = { ...GAME_ATOMS.find((a) => a.name === 'coin_collect')!, name: 'gem_collect', code: 'function gem_collect(score, coin_value, touching) {\n  return touching ? score + coin_value * 5 : score;\n}\n' };
  source.reload([...kept, added], source.allEmbeddings());
  const found = await names('gem_collect', { limit: 20 });
  assert.equal(found[0], 'gem_collect');
  assert.ok(!(await names('coin_collect', { limit: 20 })).includes('coin_collect'));
  await index.whenIdle();
  assert.equal(source.getEmbedding('gem_collect')?.model, USE_LITE_MODEL_ID, 'the new atom is embedded');
  source.reload(GAME_ATOMS, source.allEmbeddings());
  await index.whenIdle();
});

test('without a working model, search still answers by words and says so', async () => {
  const dir = tempDir('atomic-nomodel-');
  const broken = new SearchIndex(new MemorySource(join(dir, '.atomic'), GAME_ATOMS), new UseLiteProvider({ modelDir: join(dir, 'no-model') }), {
    backlogDelayMs: 0,
  });
  // The first answer does not wait for the model: no atom has a vector yet, so the words rank them all.
  const first = await broken.search('math_clamp');
  assert.equal(first.hits[0]?.atom.name, 'math_clamp');
  assert.equal(first.hits[0]?.similarity, null);
  assert.ok(first.semanticUnavailable !== undefined || first.unembedded === GAME_ATOMS.length, JSON.stringify({ ...first, hits: undefined }));
  // Once the model has failed (its process reports it), every answer says why meaning is missing.
  let result = first;
  for (let i = 0; i < 100 && result.semanticUnavailable === undefined; i++) {
    await new Promise((r) => setTimeout(r, 50));
    result = await broken.search('math_clamp');
  }
  assert.equal(result.hits[0]?.atom.name, 'math_clamp');
  assert.equal(result.hits[0]?.similarity, null);
  assert.match(result.semanticUnavailable ?? '', /embedding/);
  await broken.close();
});
