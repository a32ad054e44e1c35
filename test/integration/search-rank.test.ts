/**
 * Precision at rank 1 (issue 16), with the real embedding model over the game atoms and the app
 * atoms: identifier-like queries put the atom with that code first, "X, not Y" picks the right
 * sibling, and the similarity shown falls in the order of the answer.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { UseLiteProvider } from '../../src/search/embeddings/useLite.js';
import { SearchIndex } from '../../src/search/searchIndex.js';
import { searchRrf } from '../bench/rrf.js';
import { GAME_ATOMS } from '../fixtures/game-atoms.js';
import { APP_ATOMS, atom, port } from '../fixtures/search-app-atoms.js';
import { MemorySource } from '../fixtures/search-source.js';
import { TEXT_ATOMS } from '../fixtures/search-text-atoms.js';
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

/** Runs `check` on a search index of its own over `drafts`, with the real model, and closes it. */
async function withIndex(prefix: string, drafts: ConstructorParameters<typeof MemorySource>[1], check: (index: SearchIndex) => Promise<void>): Promise<void> {
  const own = new SearchIndex(new MemorySource(join(tempDir(prefix), '.atomic'), drafts), new UseLiteProvider(), { backlogDelayMs: 0 });
  try {
    await own.whenIdle();
    await check(own);
  } finally {
    await own.close();
  }
}

test('a distinctive API or abbreviation puts the atom that uses it first', async () => {
  assert.equal(await first('Math.imul'), 'seeded_random');
  assert.equal(await first('BFS'), 'grid_shortest_path');
  assert.equal(await first('Math.hypot'), 'circle_overlap');
  // Only grid_shortest_path constructs a Map; key_bindings has "map" among its words.
  assert.equal(await first('new Map'), 'grid_shortest_path');
});

test('a fragment copied from code puts the atom whose code holds it first, spaces as they come', async () => {
  // Three atoms with the same words in their code; only one holds the fragment as written.
  const queue = (name: string, description: string, body: string) =>
    atom(name, 'util', description, [port('items:number[]'), port('head:number')], [port('n:number')], [], `function ${name}(items, head) {\n${body}\n}`);
  const queues = [
    queue('queue_reset_head', 'Moves the read position back to the start', '  head = 0;\n  return items.length + head;'),
    queue('queue_clear', 'Empties a queue', '  const n = items.length;\n  items.length = 0;\n  return n + head * 0;'),
    queue('queue_remaining', 'How many items are left to read', '  return items.length - head > 0 ? items.length - head : 0;'),
  ];
  await withIndex('atomic-search-literal-', queues, async (literalIndex) => {
    for (const query of ['items.length = 0', 'items.length=0;']) {
      assert.equal((await literalIndex.search(query)).hits[0]?.atom.name, 'queue_clear', query);
    }
    const { hits } = await literalIndex.search('items.length = 0', { type: 'feature' });
    assert.deepEqual(hits, [], 'the type filter holds for what the scan finds');
  });
  assert.equal(await first('acc[row[field]] ??= []'), 'group_by');
});

test('of two siblings that convert opposite ways, the one converting the way the query asks comes first', async () => {
  // Both names hold both sides' words, so words alone tie them; the sides' meaning decides.
  await withIndex('atomic-search-direction-', TEXT_ATOMS, async (directionIndex) => {
    const asked: Array<[string, string]> = [
      ['snake_case into camelCase', 'snake_to_camel'],
      ['camelCase into snake_case', 'camel_to_snake'],
      ['line and column from an offset', 'offset_to_line_col'],
      ['an offset from line and column', 'line_col_to_offset'],
      ['hex colour from red green blue', 'rgb_to_hex'],
      ['red green blue from a hex colour', 'hex_to_rgb'],
      ['epoch seconds into a date', 'from_unix_timestamp'],
      ['a date into epoch seconds', 'to_unix_timestamp'],
    ];
    for (const [query, expected] of asked) assert.equal((await directionIndex.search(query)).hits[0]?.atom.name, expected, query);
  });
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

test("round 0's reciprocal rank fusion stays reachable (test/bench/rrf.ts: the bench times it beside the product)", async () => {
  const { hits } = await searchRrf(index, source, 'math_clamp');
  assert.equal(hits[0]?.atom.name, 'math_clamp');
  assert.equal(hits[0]?.pinned, true);
});
