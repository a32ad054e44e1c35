/**
 * The full-text index's snapshot (search/lexicalSnapshot.ts, LexicalIndex.state/restore): an
 * index restored from its bytes answers every query as the index it was taken from, to the
 * score, and goes on changing as that one does (its free term ids, slots and holes came along);
 * bytes not sealed with the same secret, cut short or altered are refused, and a state that does
 * not hold together leaves the index empty.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inspect, isDeepStrictEqual } from 'node:util';
import type { Atom } from '../../src/atoms/model.js';
import { LexicalIndex } from '../../src/search/lexical.js';
import { atomFingerprint, decodeLexicalSnapshot, encodeLexicalSnapshot } from '../../src/search/lexicalSnapshot.js';
import { generateAtoms } from '../bench/generate.js';
import { sealWith } from '../support/snapshotSeal.js';

const SEAL = sealWith('this machine');

const QUERIES = [
  'update the physics body velocity',
  'clamp a value',
  'render sprite frame',
  'save the game state',
  'enemy spawn timer',
  'network packet',
  'score',
  'velocty', // a typo: fuzzy matches
  'anim', // a prefix
  'Math.min',
];

/** Every answer the second pass and the tools read, for comparing two indexes. */
function answers(index: LexicalIndex, names: readonly string[]) {
  return {
    search: QUERIES.map((q) => index.search(q, 20, undefined, true)),
    typed: QUERIES.map((q) => index.search(q, 20, 'core')),
    apart: QUERIES.map((q) => index.searchApart(q, 20, undefined, q.includes('.'))),
    idf: ['velocity', 'min', 'math', 'physic', 'nope'].flatMap((w) => [index.idf('code', w), index.idf('name', w)]),
    words: names.map((n) => {
      const w = index.words(n);
      return w && { name: [...w.name], code: [...w.code], dependencies: w.dependencies };
    }),
    size: index.size,
  };
}

/**
 * Fails with the first answer that differs. (assert.deepStrictEqual on these answers ran for
 * minutes on Node 24 before it failed or passed; isDeepStrictEqual takes milliseconds.)
 */
function assertSameAnswers(actual: ReturnType<typeof answers>, expected: ReturnType<typeof answers>): void {
  if (isDeepStrictEqual(actual, expected)) return;
  for (const key of Object.keys(expected) as Array<keyof typeof expected>) {
    const a = actual[key] as unknown;
    const e = expected[key] as unknown;
    if (isDeepStrictEqual(a, e)) continue;
    if (!Array.isArray(a) || !Array.isArray(e)) assert.fail(`${key}: ${inspect(a)} against ${inspect(e)}`);
    const at = e.findIndex((item, i) => !isDeepStrictEqual(a[i], item));
    assert.fail(`${key}[${at}]: ${inspect(a[at], { depth: 4 })} against ${inspect(e[at], { depth: 4 })}`);
  }
}

/** 600 atoms, some replaced and some removed after: the index then has free term ids, free slots and holes. */
function editedIndex() {
  const atoms = generateAtoms(600).atoms as Atom[];
  const index = new LexicalIndex();
  const load = index.load();
  for (const atom of atoms.slice(0, 500)) load.put(atom);
  load.finish();
  for (const atom of atoms.slice(500)) index.put(atom);
  for (const atom of atoms.slice(0, 120)) index.remove(atom.name);
  for (const atom of atoms.slice(200, 260)) index.put({ ...atom, description: `${atom.description} rewritten with quasar words`, version: atom.version + 1 });
  const live = new Map(atoms.slice(120).map((a) => [a.name, a]));
  return { index, atoms, live };
}

async function roundTrip(index: LexicalIndex, live: Map<string, Atom>, seal = SEAL) {
  const bytes = await encodeLexicalSnapshot(index.state(), (name) => atomFingerprint(live.get(name)!), seal);
  assert.ok(bytes, 'a snapshot is made');
  return bytes;
}

test('a restored index answers every query as the one it was taken from, to the score', async () => {
  const { index, atoms, live } = editedIndex();
  const bytes = await roundTrip(index, live);
  const decoded = await decodeLexicalSnapshot(bytes, SEAL);
  assert.ok(typeof decoded !== 'string', `decoded: ${String(decoded)}`);
  assert.equal(decoded.fingerprints.size, live.size);
  for (const [name, atom] of live) assert.equal(decoded.fingerprints.get(name), atomFingerprint(atom));
  const restored = new LexicalIndex();
  restored.restore(decoded.state, (name) => live.get(name));
  const names = atoms.map((a) => a.name);
  assertSameAnswers(answers(restored, names), answers(index, names));
  // Right after the restore, its snapshot is the very bytes it came from.
  const again = await encodeLexicalSnapshot(restored.state(), (name) => atomFingerprint(live.get(name)!), SEAL);
  assert.ok(again?.equals(bytes), 'a snapshot of the restored index is the same bytes');
  assert.ok(answers(index, names).search.some((hits) => hits.length > 5), 'the queries find atoms');
});

test('a restored index goes on changing as the original does', async () => {
  const { index, atoms, live } = editedIndex();
  const decoded = await decodeLexicalSnapshot(await roundTrip(index, live), SEAL);
  assert.ok(typeof decoded !== 'string');
  const restored = new LexicalIndex();
  restored.restore(decoded.state, (name) => live.get(name));
  for (const target of [index, restored]) {
    for (const atom of atoms.slice(0, 40)) target.put({ ...atom, name: `${atom.name}_again` }); // new terms reuse free ids, new documents free slots
    for (const atom of atoms.slice(300, 340)) target.remove(atom.name);
    target.put({ ...atoms[400]!, description: 'A nebula of unheard words', version: 99 });
  }
  const names = [...atoms.map((a) => a.name), ...atoms.slice(0, 40).map((a) => `${a.name}_again`)];
  assertSameAnswers(answers(restored, names), answers(index, names));
  // And they hold the very same: a snapshot of each is the same bytes.
  const fingerprint = (name: string) => name;
  assert.ok((await encodeLexicalSnapshot(restored.state(), fingerprint, SEAL))!.equals((await encodeLexicalSnapshot(index.state(), fingerprint, SEAL))!), 'the same snapshot');
});

test('bytes sealed with another secret, altered, cut short or not a snapshot are refused', async () => {
  const { index, live } = editedIndex();
  const bytes = await roundTrip(index, live);
  assert.match(String(await decodeLexicalSnapshot(bytes, sealWith('another machine'))), /not sealed on this machine/);
  const altered = Buffer.from(bytes);
  altered[Math.floor(altered.length / 2)]! ^= 1;
  assert.match(String(await decodeLexicalSnapshot(altered, SEAL)), /not sealed on this machine/);
  assert.equal(typeof (await decodeLexicalSnapshot(bytes.subarray(0, bytes.length - 100), SEAL)), 'string');
  assert.match(String(await decodeLexicalSnapshot(Buffer.from('{"not":"a snapshot"}'.padEnd(200)), SEAL)), /not a full-text snapshot/);
  // Without a secret nothing is written, and nothing is read.
  assert.equal(await encodeLexicalSnapshot(index.state(), () => '', () => null), undefined);
  assert.match(String(await decodeLexicalSnapshot(bytes, () => null)), /no secret/);
});

test('a state that does not hold together is refused and leaves the index empty', () => {
  const { index, live } = editedIndex();
  const state = index.state();
  const broken = [
    { ...state, index: { ...state.index, lists: state.index.lists.subarray(1) } },
    { ...state, index: { ...state.index, docs: [...state.index.docs, state.index.docs[0]!] } },
    { ...state, index: { ...state.index, terms: [...state.index.terms, ['', state.index.termCount + 5] as [string, number]] } },
    { ...state, words: state.words.slice(1) },
  ];
  for (const b of broken) {
    const target = new LexicalIndex();
    assert.throws(() => target.restore(b, (name) => live.get(name)), /full-text state/);
    assert.equal(target.size, 0);
    assert.deepEqual(target.search('velocity', 5), []);
    // Still usable: a fresh restore works.
    target.restore(state, (name) => live.get(name));
    assert.equal(target.size, index.size);
  }
});
