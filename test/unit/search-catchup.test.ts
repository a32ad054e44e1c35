/**
 * Search while a backlog of atoms waits for vectors (a fresh clone, a new model): the atoms that
 * have a vector already must not be ranked above the ones that do not just because they have one.
 * A fake provider keeps the backlog waiting (it never answers for an atom's text) and answers
 * queries at once, so the moment "some atoms have vectors, some not" holds still.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { AtomDraft } from '../../src/atoms/model.js';
import { embeddingText } from '../../src/atoms/signature.js';
import type { EmbeddingProvider } from '../../src/search/embeddings/provider.js';
import { SearchIndex } from '../../src/search/searchIndex.js';
import { textHash } from '../../src/util/textHash.js';
import { MemorySource } from '../fixtures/search-source.js';
import { tempDir } from '../support/tmp.js';

const DIMENSIONS = 8;
const unit = (axis: number) => {
  const v = new Float32Array(DIMENSIONS);
  v[axis] = 1;
  return v;
};

/** Queries (one line) are answered at once along axis 0; atoms' texts (several lines) wait until disposed. */
class BacklogProvider implements EmbeddingProvider {
  readonly modelId = 'fake-catch-up';
  readonly dimensions = DIMENSIONS;
  private readonly waiting: Array<(err: Error) => void> = [];
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.some((t) => t.includes('\n'))) return new Promise((_, reject) => this.waiting.push(reject));
    return texts.map(() => unit(0));
  }
  async dispose(): Promise<void> {
    for (const reject of this.waiting.splice(0)) reject(new Error('disposed'));
  }
}

const twin = (name: string): AtomDraft => ({
  name,
  type: 'util',
  description: 'Spreads the damage of an explosion over the nearby enemies.',
  code: `function ${name}(damage, enemies) {\n  return enemies.map((e) => ({ ...e, hp: e.hp - damage / enemies.length }));\n}\n`,
  inputs: [{ name: 'damage', type: 'number' }, { name: 'enemies', type: 'number[]' }],
  outputs: [{ name: 'enemies', type: 'number[]' }],
});

const others: AtomDraft[] = ['jump', 'walk', 'swim'].map((verb) => ({
  name: `player_${verb}`,
  type: 'util',
  description: `Makes the player ${verb}.`,
  code: `function player_${verb}(p) {\n  return { ...p, state: '${verb}' };\n}\n`,
}));

async function withBacklog(embeddedNames: string[], drafts: AtomDraft[]): Promise<{ index: SearchIndex; source: MemorySource }> {
  const source = new MemorySource(join(tempDir('atomic-catchup-'), '.atomic'), drafts);
  const provider = new BacklogProvider();
  // The atoms of embeddedNames have a current vector along the query's axis; the others wait for theirs.
  await source.putEmbeddings(
    embeddedNames.map((name) => ({ name, model: provider.modelId, textHash: textHash(embeddingText(source.get(name)!)), vector: unit(0) })),
  );
  const index = new SearchIndex(source, provider, { backlogDelayMs: 0, backlogWaitMs: 0 });
  await index.open();
  return { index, source };
}

test('while a backlog is embedded, an atom with a vector does not outrank its twin without one', async () => {
  // explosion_damage_a and _b are the same atom but for the name; only _b has its vector yet.
  const { index } = await withBacklog(['explosion_damage_b', 'player_walk'], [twin('explosion_damage_a'), twin('explosion_damage_b'), ...others]);
  try {
    const result = await index.search('spread the damage of an explosion over nearby enemies');
    assert.ok(result.unembedded !== undefined && result.unembedded > 0, 'the answer says some atoms were ranked by words only');
    const [first, second] = result.hits;
    assert.deepEqual(
      [first?.atom.name, second?.atom.name],
      ['explosion_damage_a', 'explosion_damage_b'],
      'equal words, equal rank (ties by name): the vector gives no advantage',
    );
    assert.equal(first!.similarity, second!.similarity);
  } finally {
    await index.close();
  }
});

test('while a backlog is embedded, a query naming an atom without a vector finds it first', async () => {
  const { index } = await withBacklog(
    ['explosion_damage_b', 'player_walk', 'player_swim'],
    [twin('explosion_damage_a'), twin('explosion_damage_b'), ...others],
  );
  try {
    for (const query of ['explosion damage a', 'explosion_damage_a', 'player jump', 'jump']) {
      const { hits } = await index.search(query);
      const expected = query.includes('explosion') ? 'explosion_damage_a' : 'player_jump';
      assert.equal(hits[0]?.atom.name, expected, `${query}: ${hits.map((h) => `${h.atom.name} ${h.similarity}`).join(', ')}`);
    }
  } finally {
    await index.close();
  }
});

/** Answers queries at once, and atoms' texts once `open()` is called: until then they wait. */
class GatedProvider implements EmbeddingProvider {
  readonly modelId = 'fake-gated';
  readonly dimensions = DIMENSIONS;
  readonly embedded: string[] = [];
  private gate: (() => void) | undefined;
  private readonly opened = new Promise<void>((resolve) => (this.gate = resolve));
  open(): void {
    this.gate!();
  }
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.some((t) => t.includes('\n'))) {
      await this.opened;
      this.embedded.push(...texts);
    }
    return texts.map(() => unit(0));
  }
  async dispose(): Promise<void> {
    this.open();
  }
}

/**
 * An index over `others` with a GatedProvider, opened; a wait for the vectors of atoms just written
 * lasts as long as the gate stays shut, or two minutes. `run` gets them; the index is closed after.
 */
async function withGate(run: (index: SearchIndex, source: MemorySource, provider: GatedProvider) => Promise<void>): Promise<void> {
  const source = new MemorySource(join(tempDir('atomic-catchup-'), '.atomic'), others);
  const provider = new GatedProvider();
  const index = new SearchIndex(source, provider, { backlogDelayMs: 0, backlogWaitMs: 0, readYourWritesWaitMs: 120_000 });
  try {
    await index.open();
    await run(index, source, provider);
  } finally {
    provider.open();
    await index.close();
  }
}

const written = (i: number): AtomDraft => ({
  name: `wave_step_${i}`,
  type: 'util',
  description: `Moves wave ${i} of enemies one step along its path.`,
  code: `function wave_step_${i}(x) {\n  return x + ${i};\n}\n`,
});

// The timeout only turns a hang (a search waiting for the shut gate) into a failure: the answer takes milliseconds.
test('a search right after many writes (an agent\'s build) answers without waiting for their vectors, and says so', { timeout: 60_000 }, () =>
  withGate(async (index, source, provider) => {
    for (let i = 0; i < 60; i++) source.upsert(written(i));
    const result = await index.search('wave_step_42');
    assert.equal(result.hits[0]?.atom.name, 'wave_step_42', 'found by its name');
    assert.ok(result.unembedded !== undefined && result.unembedded >= 60, `the answer says ${result.unembedded} atoms were ranked by words only`);
    assert.equal(provider.embedded.length, 0, 'answered before any of them was embedded');
  }),
);

test('a search right after a few writes waits for their vectors (read your writes)', () =>
  withGate(async (index, source, provider) => {
    for (let i = 0; i < 3; i++) source.upsert(written(i));
    let answered = false;
    const search = index.search('move a wave of enemies').then((r) => ((answered = true), r));
    // Many turns of the event loop: a search that did not wait would have answered by now.
    for (let turn = 0; turn < 50; turn++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(answered, false, 'the search waits while the vectors of the atoms just written are being made');
    provider.open();
    const result = await search;
    assert.equal(result.unembedded ?? 0, 0, 'every atom ranked by meaning too');
    for (let i = 0; i < 3; i++) assert.ok(source.getEmbedding(`wave_step_${i}`), `wave_step_${i} has its vector`);
  }),
);

test('the words of an atom just written, changed or deleted are what the next search sees, in the same turn', () =>
  withGate(async (index, source, provider) => {
    provider.open();
    await index.search('player'); // the full-text index is built
    const names = async (query: string) => (await index.search(query, { mode: 'lexical' })).hits.map((h) => h.atom.name);
    source.upsert({ ...written(7), description: 'Ripples the lagoon.' });
    assert.ok((await names('lagoon ripples')).includes('wave_step_7'), 'a new atom, by its description');
    source.upsert({ ...written(7), description: 'Freezes the glacier.' });
    const after = await names('glacier');
    assert.ok(after.includes('wave_step_7'), 'its new words');
    assert.ok(!(await names('lagoon ripples')).includes('wave_step_7'), 'not its old ones');
    source.delete('wave_step_7');
    assert.ok(!(await names('glacier')).includes('wave_step_7'), 'a deleted atom is gone');
  }),
);
