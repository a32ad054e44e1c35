/**
 * The full-text index is built in one load, in slices with turns between (SearchIndex.buildLexical):
 * what the store announces meanwhile must neither touch the half-built index nor be lost, and a
 * search waiting for the build answers from the atoms as they are. The slices are of time (20 ms),
 * and a quiet machine built all 1,601 atoms in one, so the change never came midway: here the
 * build yields after every atom (lexicalSliceMs: 0).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { AtomDraft } from '../../src/atoms/model.js';
import { KeywordOnlyProvider } from '../../src/search/embeddings/keyword.js';
import { SearchIndex } from '../../src/search/searchIndex.js';
import { MemorySource } from '../fixtures/search-source.js';
import { tempDir } from '../support/tmp.js';

const filler = (i: number): AtomDraft => ({
  name: `filler_${i}`,
  type: 'util',
  code: `function filler_${i}(x) {\n  return x + ${i};\n}\n`,
  description: `Adds ${i} to a number`,
});
const named = (name: string, description: string): AtomDraft => ({ name, type: 'util', code: `function ${name}() {\n  return 1;\n}\n`, description });
const ALPHA = named('alpha_widget', 'Polishes the shiny widget');
const BETA = named('beta_gizmo', 'Winds the brass gizmo');
const GAMMA = named('gamma_gadget', 'Folds the paper gadget');
const FILLERS = Array.from({ length: 1600 }, (_, i) => filler(i));

/**
 * A source that runs `midway` once the full-text build has taken its atoms and put its first
 * slice (the build yields with setImmediate; this runs in that turn).
 */
function sourceWith(drafts: AtomDraft[], midway: (source: MemorySource, index: SearchIndex) => void) {
  const source = new MemorySource(join(tempDir('fulltext-build-'), '.atomic'), drafts);
  const index = new SearchIndex(source, new KeywordOnlyProvider(), { backlogDelayMs: 0, lexicalSliceMs: 0 });
  const all = source.all.bind(source);
  let armed = true;
  let ranWhileBuilding: boolean | undefined;
  source.all = () => {
    const building = (index as unknown as { lexicalState: string }).lexicalState === 'building';
    if (armed && building) {
      armed = false;
      setImmediate(() => {
        ranWhileBuilding = (index as unknown as { lexicalState: string }).lexicalState === 'building';
        midway(source, index);
      });
    }
    return all();
  };
  return { source, index, ranWhileBuilding: () => ranWhileBuilding };
}

const top = async (index: SearchIndex, query: string) => (await index.search(query, { limit: 3 })).hits.map((h) => h.atom.name);

test('an atom deleted while the full-text index is built is not found after it; the others are', async () => {
  const { index, ranWhileBuilding } = sourceWith([ALPHA, BETA, ...FILLERS], (source) => source.delete(ALPHA.name));
  try {
    assert.deepEqual(await top(index, 'shiny widget'), []);
    assert.equal(ranWhileBuilding(), true, 'the delete came while the index was being built');
    assert.equal((await top(index, 'brass gizmo'))[0], BETA.name);
  } finally {
    await index.close();
  }
});

test('an atom changed while the full-text index is built is found by its new words', async () => {
  const { index, ranWhileBuilding } = sourceWith([ALPHA, BETA, ...FILLERS], (source) =>
    source.upsert({ ...BETA, description: 'Tunes the silver harp' }),
  );
  try {
    assert.equal((await top(index, 'silver harp'))[0], BETA.name);
    assert.equal(ranWhileBuilding(), true, 'the change came while the index was being built');
    assert.deepEqual(await top(index, 'brass'), [], 'its old words are gone');
  } finally {
    await index.close();
  }
});

test('a search waiting for a build that a reload abandoned answers from the reloaded atoms', async () => {
  const { index, ranWhileBuilding } = sourceWith([ALPHA, ...FILLERS], (source) => source.reload([GAMMA, ...FILLERS]));
  try {
    // Asked before the reload: it waits for the build, which the reload abandons, then for the next.
    const [gamma, alpha] = await Promise.all([top(index, 'paper gadget'), top(index, 'shiny widget')]);
    assert.equal(ranWhileBuilding(), true, 'the reload came while the index was being built');
    assert.equal(gamma[0], GAMMA.name);
    assert.deepEqual(alpha, []);
  } finally {
    await index.close();
  }
});
