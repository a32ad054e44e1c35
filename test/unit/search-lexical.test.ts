import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateDraft } from '../../src/atoms/validate.js';
import type { Atom } from '../../src/atoms/model.js';
import { LexicalIndex } from '../../src/search/lexical.js';
import { reciprocalRankFusion } from '../../src/search/fusion.js';
import { relatedWords } from '../../src/search/vocabulary.js';
import { asAtomName, splitWords, terms } from '../../src/search/words.js';
import { GAME_ATOMS } from '../fixtures/game-atoms.js';

const atoms: Atom[] = GAME_ATOMS.map((d) => ({ ...validateDraft(d), version: 1, created_at: '', updated_at: '' }));

function indexOf(list: Atom[]): LexicalIndex {
  const index = new LexicalIndex();
  for (const a of list) index.put(a);
  return index;
}

test('words are split on underscores, camelCase humps and digits, and stemmed', () => {
  assert.deepEqual(splitWords('player_jump'), ['player', 'jump']);
  assert.deepEqual(splitWords('aabbOverlap'), ['aabb', 'overlap']);
  assert.deepEqual(splitWords('parseHTTPRequest2d'), ['parse', 'http', 'request', '2', 'd']);
  // Separators are anything but ASCII letters and digits (accents too); letters and digits part.
  assert.deepEqual(splitWords('  atan2(y, x) vec3d__café-noir 10px'), ['atan', '2', 'y', 'x', 'vec', '3', 'd', 'caf', 'noir', '10', 'px']);
  assert.deepEqual(splitWords(' -_ '), []);
  assert.deepEqual(terms('the player is jumping'), ['player', 'jump']);
  assert.equal(asAtomName('Math Clamp'), 'math_clamp');
  assert.equal(asAtomName('mathClamp'), 'math_clamp');
});

test('an atom name written any way finds that atom first', () => {
  const index = indexOf(atoms);
  for (const query of ['math_clamp', 'math clamp', 'mathClamp', 'aabbOverlap', 'spawn enemy']) {
    const expected = asAtomName(query);
    assert.equal(index.search(query, 5)[0]?.name, expected, query);
  }
});

test('descriptions, port names and code identifiers are searchable', () => {
  const index = indexOf(atoms);
  assert.ok(index.search('upward force grounded', 5).some((h) => h.name === 'player_jump'), 'description');
  assert.ok(index.search('jumps_remaining', 5).some((h) => h.name === 'double_jump'), 'port name');
  assert.ok(index.search('requestAnimationFrame', 5).some((h) => h.name === 'game_loop'), 'identifier in code');
});

test('the type filter keeps only atoms of that type', () => {
  const index = indexOf(atoms);
  const hits = index.search('velocity', 50, 'core');
  assert.ok(hits.length > 0);
  for (const h of hits) assert.equal(atoms.find((a) => a.name === h.name)?.type, 'core', h.name);
  assert.ok(index.search('velocity', 50).some((h) => atoms.find((a) => a.name === h.name)?.type === 'feature'));
});

test('put replaces and remove forgets, at once', () => {
  const index = indexOf(atoms);
  const clamp = atoms.find((a) => a.name === 'math_clamp')!;
  index.put({ ...clamp, description: 'Keeps a number inside a window of values' });
  assert.ok(index.search('window', 5).some((h) => h.name === 'math_clamp'));
  index.remove('math_clamp');
  assert.equal(index.has('math_clamp'), false);
  assert.ok(!index.search('math_clamp', 50).some((h) => h.name === 'math_clamp'));
});

test('related words reach atoms the query does not name', () => {
  const index = indexOf(atoms);
  assert.ok(relatedWords('monster').includes('enemy'));
  assert.ok(!relatedWords('monster').includes('monster'));
  assert.ok(!index.search('pick up money', 5).some((h) => h.name === 'coin_collect'), 'words alone miss it');
  assert.equal(index.search('pick up money', 5, undefined, true)[0]?.name, 'coin_collect');
  assert.equal(index.search('monster walks back and forth', 5, undefined, true)[0]?.name, 'enemy_patrol');
});

test('the general vocabulary links app words, and keeps opposites apart', () => {
  assert.ok(relatedWords('spreadsheet').includes('csv'));
  assert.ok(relatedWords('purchase').includes('buy'));
  assert.ok(relatedWords('checklist').includes('todo'));
  for (const [word, opposite] of [['indent', 'outdent'], ['undo', 'redo'], ['encode', 'decode'], ['escape', 'unescape'], ['compress', 'decompress'], ['encrypt', 'decrypt']]) {
    assert.ok(!relatedWords(word!).includes(opposite!), `${word} is not ${opposite}`);
    assert.ok(!relatedWords(opposite!).includes(word!), `${opposite} is not ${word}`);
  }
});

test("a naming convention's words meet the words its names split into, and an abbreviation its meaning", () => {
  // snake_case splits into snake + case, so "snakecase" alone would link underscore to nothing.
  assert.ok(relatedWords('underscore').includes('snake'));
  // SMA, EMA: kinds of moving average.
  assert.ok(relatedWords('sma').includes('average'));
});

test('every word of the related-words list is one searchable word: no stop word, no digits that split it', () => {
  const source = readFileSync(join(__dirname, '../../src/search/vocabulary.ts'), 'utf8');
  const groups = [...source.matchAll(/^ {2}'([a-z0-9 ]+)',$/gm)].map((m) => m[1]!);
  assert.ok(groups.length > 300, `${groups.length} groups read`);
  for (const group of groups) for (const word of group.split(' ')) assert.equal(terms(word).length, 1, `"${word}" in '${group}'`);
});

test('reciprocal rank fusion favours what both rankings place high', () => {
  const fused = reciprocalRankFusion([{ names: ['a', 'b', 'c'] }, { names: ['b', 'c', 'a'] }]);
  const order = [...fused.entries()].sort((x, y) => y[1] - x[1]).map(([n]) => n);
  assert.equal(order[0], 'b');
  const single = reciprocalRankFusion([{ names: ['x'] }, { names: [] }]);
  assert.ok((single.get('x') ?? 0) > 0, 'an item one ranking alone finds still counts');
});
