/**
 * Precision at rank 1 (issue 16), with the real embedding model over the game atoms and the app
 * atoms: identifier-like queries put the atom with that code first, "X, not Y" picks the right
 * sibling, and the similarity shown falls in the order of the answer.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { UseLiteProvider } from '../../src/store/embeddings/useLite.js';
import { SearchIndex } from '../../src/store/search/searchIndex.js';
import { GAME_ATOMS } from '../fixtures/game-atoms.js';
import { APP_ATOMS } from '../fixtures/search-app-atoms.js';
import { MemorySource } from '../fixtures/search-source.js';
import { tempDir } from '../support/tmp.js';

const source = new MemorySource(join(tempDir('atomic-search-rank-'), '.atomic'), [...GAME_ATOMS, ...APP_ATOMS]);
let index: SearchIndex;

before(async () => {
  index = new SearchIndex(source, new UseLiteProvider(), { backlogDelayMs: 0 });
  await index.whenIdle();
});

after(async () => {
  await index.close();
});

const first = async (query: string) => (await index.search(query)).hits[0]?.atom.name;

test('a distinctive API or abbreviation puts the atom that uses it first', async () => {
  assert.equal(await first('Math.imul'), 'seeded_random');
  assert.equal(await first('BFS'), 'grid_shortest_path');
  assert.equal(await first('Math.hypot'), 'circle_overlap');
});

test('"X, not Y" puts the sibling X first', async () => {
  assert.equal(await first('save the game, not load it'), 'save_game');
  assert.equal(await first('load the game, not save it'), 'load_game');
  assert.equal(await first('give back lost hit points, not damage'), 'heal_character');
});

test('the similarity shown falls from each result to the next, and the named atom has 1', async () => {
  for (const query of ['create a new monster in the level', 'localStorage.setItem', 'jump logic', 'store progress in the browser', 'math_clamp']) {
    const { hits } = await index.search(query, { limit: 10 });
    const shown = hits.map((h) => h.similarity!);
    for (let i = 1; i < shown.length; i++) assert.ok(shown[i]! <= shown[i - 1]!, `${query}: ${shown.join(', ')}`);
    for (const s of shown) assert.ok(s >= 0 && s <= 1, `${query}: ${s}`);
  }
  const { hits } = await index.search('math_clamp');
  assert.equal(hits[0]?.atom.name, 'math_clamp');
  assert.equal(hits[0]?.similarity, 1);
  assert.ok(hits[0]!.cosine !== null && hits[0]!.cosine < 1, 'the cosine stays available apart');
});

test('a name two atoms share puts the one the other calls first: "LERP" -> math_lerp (color_lerp calls it)', async () => {
  assert.equal(await first('LERP'), 'math_lerp');
  assert.equal(await first('lerp'), 'math_lerp');
});

test("round 0's reciprocal rank fusion stays reachable as mode 'fused-rrf' (the bench times it beside the product)", async () => {
  const { hits } = await index.search('math_clamp', { mode: 'fused-rrf' });
  assert.equal(hits[0]?.atom.name, 'math_clamp');
  assert.equal(hits[0]?.pinned, true);
});
