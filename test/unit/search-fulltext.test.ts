/**
 * The full-text index (fullText.ts) against MiniSearch 7, which it replaced: built from the same
 * atoms with the same options, every query must rank the same atoms in the same order with the
 * same scores, to the last bit. After edits the two may differ in document frequencies (MiniSearch
 * counts a discarded document until it vacuums), so there they are compared after a vacuum.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import MiniSearch from 'minisearch';
import { validateDraft } from '../../src/atoms/validate.js';
import type { Atom, AtomDraft } from '../../src/atoms/model.js';
import { FullTextIndex, packIds, unpackIds } from '../../src/search/fullText.js';
import { atomTexts, CODE_BOOST, FIELDS, fullTextIndex, QUERY_DEFAULTS, RELATED_WEIGHT } from '../../src/search/lexical.js';
import { relatedWords } from '../../src/search/vocabulary.js';
import { normalizeTerm, splitWords } from '../../src/search/words.js';
import { GAME_ATOMS, GAME_QUERIES, HELD_OUT_QUERIES } from '../fixtures/game-atoms.js';
import { APP_ATOMS, APP_QUERIES } from '../fixtures/search-app-atoms.js';

const asAtom = (d: AtomDraft): Atom => ({ ...validateDraft(d), version: 1, created_at: '', updated_at: '' });
const ATOMS = [...GAME_ATOMS, ...APP_ATOMS].map(asAtom);
const QUERIES = [
  ...[...GAME_QUERIES, ...HELD_OUT_QUERIES, ...APP_QUERIES].map((q) => q.query),
  // identifiers, prefixes, typos, stop words only, repeated words, nothing
  'requestAnimationFrame', 'Math.hypot', 'aabb', 'veloc', 'collsion', 'positon update', 'the of and', 'jump jump', '', 'zzzz_unknown',
];

type Doc = { id: string; type: string; words: string; description: string; ports: string; identifiers: string };

function miniSearch(): MiniSearch<Doc> {
  return new MiniSearch<Doc>({
    fields: [...FIELDS],
    storeFields: ['type'],
    tokenize: splitWords,
    processTerm: (t) => normalizeTerm(t),
    searchOptions: { ...QUERY_DEFAULTS, combineWith: 'OR' },
  });
}

function docOf(atom: Atom): Doc {
  const [words, description, ports, identifiers] = atomTexts(atom);
  return { id: atom.name, type: atom.type, words, description, ports, identifiers };
}

function both(atoms: readonly Atom[]): { ours: FullTextIndex; theirs: MiniSearch<Doc> } {
  const ours = fullTextIndex();
  const theirs = miniSearch();
  for (const atom of atoms) {
    ours.put(atom.name, atom.type, atomTexts(atom));
    theirs.add(docOf(atom));
  }
  return { ours, theirs };
}

/** Every way lexical.ts asks: plain, by type, as code, and with related words. */
function compareAll(ours: FullTextIndex, theirs: MiniSearch<Doc>, exact: boolean): number {
  let compared = 0;
  const same = (label: string, a: Array<{ id: string; score: number }>, b: Array<{ id: unknown; score: number }>) => {
    const left = a.map((h) => [h.id, h.score] as const);
    const right = b.map((h) => [String(h.id), h.score] as const);
    if (exact) assert.deepEqual(left, right, label);
    else {
      assert.deepEqual(left.map(([id]) => id).sort(), right.map(([id]) => id).sort(), label);
      for (let i = 0; i < left.length; i++) assert.ok(Math.abs(left[i]![1] - right[i]![1]) < 1e-9, `${label}: score ${i}`);
    }
    compared++;
  };
  for (const q of QUERIES) {
    same(`"${q}"`, ours.search(q), theirs.search(q));
    // The best few, picked without ranking the rest, are the first few of the whole ranking, ties included.
    for (const limit of [0, 1, 3, 7]) same(`"${q}" best ${limit}`, ours.search(q, {}, limit), theirs.search(q).slice(0, limit));
    same(`"${q}" core`, ours.search(q, { tag: 'core' }), theirs.search(q, { filter: (r) => r.type === 'core' }));
    same(`"${q}" as code`, ours.search(q, { boost: CODE_BOOST }), theirs.search(q, { boost: CODE_BOOST }));
    const related = relatedWords(q).join(' ');
    if (!related) continue;
    const only = { prefix: false, fuzzy: false } as const;
    same(`"${q}" related`, ours.search(related, only), theirs.search(related, only));
    same(
      `"${q}" with related`,
      ours.searchEither([{ query: q }, { query: related, options: { ...only, termBoost: RELATED_WEIGHT } }]),
      theirs.search({ combineWith: 'OR', queries: [q, { queries: [related], boostTerm: () => RELATED_WEIGHT, ...only }] }),
    );
  }
  return compared;
}

test('built from the same atoms, it ranks and scores every query as MiniSearch does, to the bit', () => {
  const { ours, theirs } = both(ATOMS);
  assert.equal(ours.size, theirs.documentCount);
  const compared = compareAll(ours, theirs, true);
  assert.ok(compared > 300, `${compared} rankings compared`);
});

/** In both indexes: `edited` atoms replaced, their descriptions grown by `extra`, and `removed` ones taken out; then MiniSearch vacuums. */
async function editBoth(ours: FullTextIndex, theirs: MiniSearch<Doc>, edited: readonly Atom[], removed: readonly Atom[], extra: (atom: Atom) => string) {
  for (const atom of edited) {
    const changed = { ...atom, description: `${atom.description}${extra(atom)}` };
    ours.put(atom.name, atom.type, atomTexts(changed));
    theirs.replace(docOf(changed));
  }
  for (const atom of removed) {
    ours.remove(atom.name);
    theirs.discard(atom.name);
  }
  await theirs.vacuum();
}

/** `atoms` put into an empty index in one load (FullTextIndex.load), as search builds it. */
function loaded(atoms: readonly Atom[]): FullTextIndex {
  const index = fullTextIndex();
  const load = index.load();
  for (const atom of atoms) load.put(atom.name, atom.type, atomTexts(atom));
  load.finish();
  return index;
}

test('loaded in one pass, it ranks and scores every query as MiniSearch does, to the bit, and its lists take exactly their postings', () => {
  const { ours: oneByOne, theirs } = both(ATOMS);
  const ours = loaded(ATOMS);
  assert.ok(compareAll(ours, theirs, true) > 100);
  // Each list is a head of two integers and two per posting; one by one, lists keep room to grow.
  const lists = new Set<string>();
  let postings = 0;
  for (const atom of ATOMS) {
    const texts = atomTexts(atom);
    const mine = new Set<string>();
    texts.forEach((text, field) => {
      for (const token of splitWords(text)) {
        const term = normalizeTerm(token);
        if (term) mine.add(`${field} ${term}`);
      }
    });
    for (const key of mine) lists.add(key);
    postings += mine.size;
  }
  assert.equal(ours.postingBytesLaid, 4 * (2 * lists.size + 2 * postings));
  // Room after them for a sixteenth more (the first edits move lists there), and no more.
  assert.ok(ours.postingBytes <= Math.max(16384, ours.postingBytesLaid * (1 + 1 / 16)), `${ours.postingBytes} for ${ours.postingBytesLaid}`);
  assert.ok(oneByOne.postingBytes > ours.postingBytes, `${oneByOne.postingBytes} against ${ours.postingBytes}`);
});

test('a loaded index takes edits as one built one by one does', async () => {
  const ours = loaded(ATOMS);
  const { theirs } = both(ATOMS);
  await editBoth(ours, theirs, ATOMS.slice(0, 50), ATOMS.slice(50, 70), (atom) => ` rewritten with velocity and ${atom.name}_again`);
  assert.equal(ours.size, theirs.documentCount);
  compareAll(ours, theirs, false);
});

test('a loaded index takes its first edits in the room after its lists: the postings array is not copied', () => {
  const ours = loaded(ATOMS);
  const before = ours.postingBytes;
  for (const atom of ATOMS.slice(0, 3)) {
    const texts = atomTexts(atom);
    ours.put(atom.name, atom.type, [texts[0]!, `${texts[1]} edited once more`, ...texts.slice(2)]);
  }
  assert.ok(ours.postingBytesLaid > 4 * 16, 'lists were moved or added');
  assert.equal(ours.postingBytes, before);
});

test('while a load is under way the index refuses to be read or changed; clear abandons the load', () => {
  const index = fullTextIndex();
  const load = index.load();
  const [first, second] = ATOMS;
  load.put(first!.name, first!.type, atomTexts(first!));
  assert.throws(() => load.put(first!.name, first!.type, atomTexts(first!)), /loaded already/);
  assert.throws(() => index.search('velocity'), /being loaded/);
  assert.throws(() => index.put(second!.name, second!.type, atomTexts(second!)), /being loaded/);
  assert.throws(() => index.remove(first!.name), /being loaded/);
  assert.throws(() => index.load(), /empty index/);
  index.clear();
  assert.throws(() => load.put(second!.name, second!.type, atomTexts(second!)), /abandoned/);
  assert.throws(() => load.finish(), /abandoned/);
  const again = index.load();
  again.put(second!.name, second!.type, atomTexts(second!));
  again.finish();
  assert.equal(index.size, 1);
  assert.deepEqual(index.search(splitWords(second!.name).join(' ')).map((h) => h.id), [second!.name]);
  assert.throws(() => index.load(), /empty index/);
});

test('a query of more than 32 distinct words (the quality factor counts each) scores as MiniSearch does, twice in a row', () => {
  const { ours, theirs } = both(ATOMS);
  // Words of the atoms' own texts, so that documents match many of them: the factor goes past 32.
  const words = [...new Set(ATOMS.flatMap((a) => atomTexts(a).join(' ').toLowerCase().match(/[a-z]{4,}/g) ?? []))].slice(0, 70);
  const query = words.join(' ');
  assert.ok(words.length > 64, `${words.length} words`);
  const expected = theirs.search(query).map((h) => [String(h.id), h.score]);
  assert.ok(expected.length > 10);
  // Twice: what one search leaves in the reused score arrays changes nothing in the next.
  for (let i = 0; i < 2; i++) assert.deepEqual(ours.search(query).map((h) => [h.id, h.score]), expected);
  assert.deepEqual(ours.search(QUERIES[0]!).map((h) => [h.id, h.score]), theirs.search(QUERIES[0]!).map((h) => [String(h.id), h.score]));
});

test('after replacing and removing atoms it agrees with MiniSearch once that has vacuumed', async () => {
  const { ours, theirs } = both(ATOMS);
  await editBoth(ours, theirs, ATOMS.slice(0, 40), ATOMS.slice(40, 60), () => ' rewritten with velocity');
  assert.equal(ours.size, theirs.documentCount);
  assert.equal(ours.has(ATOMS[45]!.name), false);
  compareAll(ours, theirs, false);
});

test('a removed document leaves no trace: removing every atom empties the index, and re-adding ranks as before', () => {
  const { ours } = both(ATOMS);
  const before = QUERIES.map((q) => ours.search(q));
  for (const atom of ATOMS) ours.remove(atom.name);
  assert.equal(ours.size, 0);
  assert.deepEqual(ours.search('velocity'), []);
  for (const atom of ATOMS) ours.put(atom.name, atom.type, atomTexts(atom));
  assert.deepEqual(QUERIES.map((q) => ours.search(q)), before);
});

test('many edits move and empty lists; the holes are closed, and it ranks as an index built afresh from the result', () => {
  const ours = loaded(ATOMS);
  const final = new Map(ATOMS.map((a) => [a.name, a]));
  // Each round gives 30 atoms words no other atom has (their lists are made, then emptied by the
  // next round's edit) and drops and restores 5 more: the churn of an agent's session.
  for (let round = 0; round < 60; round++) {
    for (const atom of ATOMS.slice(round % 60, (round % 60) + 30)) {
      const edited = { ...atom, description: `${atom.description} tweak${round}a tweak${round}b ${atom.name}x${round}` };
      final.set(atom.name, edited);
      ours.put(edited.name, edited.type, atomTexts(edited));
    }
    for (const atom of ATOMS.slice(60 + (round % 30), 65 + (round % 30))) {
      const now = final.get(atom.name);
      if (!now) {
        final.set(atom.name, atom);
        ours.put(atom.name, atom.type, atomTexts(atom));
        continue;
      }
      ours.remove(atom.name);
      if (round % 2 === 0) ours.put(now.name, now.type, atomTexts(now));
      else final.delete(atom.name);
    }
  }
  const fresh = loaded([...final.values()]);
  assert.equal(ours.size, fresh.size);
  for (const q of [...QUERIES, 'tweak59a', 'tweak3b', 'velocity clamp']) {
    const a = ours.search(q);
    const b = fresh.search(q);
    assert.deepEqual(a.map((h) => h.id).sort(), b.map((h) => h.id).sort(), q);
    a.forEach((h, i) => assert.ok(Math.abs(h.score - b[i]!.score) < 1e-9, `${q}: score ${i}`));
  }
  // Without closing the holes the lists would take several times this.
  assert.ok(ours.postingBytes <= 4 * fresh.postingBytes, `${ours.postingBytes} bytes against ${fresh.postingBytes} built afresh`);
});

test('a document\'s term ids survive packing into a string, below and above 32,768, in their order', () => {
  const ids = [0, 1, 255, 256, 32_767, 32_768, 65_535, 65_536, 1 << 20, 2 ** 30 - 1, 7];
  assert.deepEqual(unpackIds(packIds(ids)), ids);
  assert.equal(packIds([1, 2, 3]).length, 3);
  assert.equal(packIds([40_000]).length, 2);
  assert.deepEqual(unpackIds(packIds([])), []);
});

test('typedPrefix: a token stemming changed still begins the longer words it begins as typed (poly -> polygon)', () => {
  const index = fullTextIndex();
  index.put('point_in_polygon', 'util', ['point in polygon', 'Whether a point lies inside a polygon', '', '']);
  index.put('point_on_segment', 'util', ['point on segment', 'Whether a point lies on a segment', '', '']);
  assert.equal(normalizeTerm('poly'), 'poli', 'the stem no longer begins polygon');
  assert.deepEqual(index.search('poly').map((h) => h.id), [], 'MiniSearch\'s way (the default) misses it');
  const typed = index.search('point poly', { typedPrefix: true });
  assert.equal(typed[0]?.id, 'point_in_polygon');
  assert.ok(typed[0]!.score > typed[1]!.score);
  // A token its stem begins gains nothing: its own prefix matches are already the stem's.
  assert.deepEqual(index.search('pointing', { typedPrefix: true }), index.search('pointing'));
});
