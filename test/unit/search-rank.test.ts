/**
 * The second pass of search (rank.ts) and the evidence LexicalIndex gives it: how a query is read
 * (identifier-like, what it rules out, its code tokens), rarity-weighted name and code overlap,
 * and acronyms of hyphenated phrases.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateDraft } from '../../src/atoms/validate.js';
import type { Atom } from '../../src/atoms/model.js';
import { LexicalIndex } from '../../src/search/lexical.js';
import {
  atomsHolding,
  codeOverlap,
  conversionAgreement,
  literalPattern,
  nameConversion,
  namesUnwanted,
  queryConversion,
  queryShape,
  reversedName,
  scoreCandidates,
  type Candidate,
} from '../../src/search/rank.js';
import { CODE_LIKE, withoutCode } from '../../src/search/words.js';
import { GAME_ATOMS } from '../fixtures/game-atoms.js';
import { APP_ATOMS } from '../fixtures/search-app-atoms.js';

const atoms: Atom[] = [...GAME_ATOMS, ...APP_ATOMS].map((d) => ({ ...validateDraft(d), version: 1, created_at: '', updated_at: '' }));
const index = new LexicalIndex();
for (const a of atoms) index.put(a);
const rarity = (kind: 'code' | 'name', word: string) => index.idf(kind, word);
const code = (name: string) => atoms.find((a) => a.name === name)!.code;

test('code-like and short queries read as identifiers; sentences do not', () => {
  for (const q of ['Math.imul', 'localStorage.setItem', 'is_key_down', 'aabbOverlap', 'BFS', 'load game']) {
    assert.equal(queryShape(q).identifierLike, true, q);
  }
  assert.equal(queryShape('make the character go up').identifierLike, false);
  assert.deepEqual(queryShape('localStorage.setItem').codeTokens, ['localStorage', 'setItem']);
});

test('words with digits are written like code; English words, acronyms and a sentence\'s punctuation are not', () => {
  for (const t of ['UTF8', 'len2', 'atan2', 'x2', 'Math.hypot', '.splice', 'setItem', 'toString(16)', 'is_key_down']) assert.ok(CODE_LIKE.test(t), t);
  for (const t of ['Make', 'I', 'distance', 'HP', 'NFD', 'up.', '(between', 'max)']) assert.ok(!CODE_LIKE.test(t), t);
  assert.deepEqual(queryShape('len2 Math.hypot').codeTokens, ['len2', 'Math', 'hypot']);
});

test('a short query looks for its plain words in the code too; a sentence does not', () => {
  assert.deepEqual(queryShape('normalize NFD').inCode, ['normalize', 'NFD']);
  assert.deepEqual(queryShape('splice').inCode, ['splice']);
  assert.deepEqual(queryShape('remove an item from the bag').inCode, []);
  // slugify calls .normalize('NFD'); vec_normalize only has the word in its name.
  const shape = queryShape('normalize NFD');
  const slug = { name: 'slugify', code: "function slugify(title) {\n  return title.normalize('NFD').toLowerCase();\n}" };
  const vec = { name: 'vec_normalize', code: 'function vec_normalize(x, y) {\n  const n = Math.hypot(x, y);\n  return { x: x / n, y: y / n };\n}' };
  assert.equal(codeOverlap(shape, slug.code, rarity), 1);
  assert.equal(codeOverlap(shape, vec.code, rarity), 0);
});

test('a query with code punctuation is a pattern over code: spaces between symbols optional, between words kept', () => {
  const redo = literalPattern('redo.length=0')!;
  assert.ok(redo.test('  redo.length = 0;'));
  assert.ok(!redo.test('redo_length = 0'), 'the dot is a dot, not any character');
  const words = literalPattern('return a ?? []')!;
  assert.ok(words.test('return a ?? [];'));
  assert.ok(!words.test('returna ?? []'), 'two words stay two words');
  const regex = literalPattern('\\{(\\w+)\\}')!;
  assert.ok(regex.test("text.replace(/\\{(\\w+)\\}/g, fill)"), 'regex characters match themselves');
  assert.equal(literalPattern('make the character go up'), null, 'prose has no code punctuation');
  assert.equal(literalPattern('what is it?'), null, 'a question mark is prose');
  assert.equal(literalPattern(`a = ${'b'.repeat(100)}`), null, 'a paragraph is not a fragment of code');
  assert.equal(queryShape('??= []').identifierLike, true);
  assert.equal(queryShape('clamp a value (between the min and the max)').identifierLike, false, 'a sentence with a parenthesis is prose');
});

test('a dotted API name, a constructor call and a number are code too, and a number is matched whole', () => {
  const utc = literalPattern('Date.UTC')!;
  assert.ok(utc.test('return new Date(Date.UTC(y, m + 1, 0)).getUTCDate();'));
  assert.ok(!utc.test('const d = myDate.UTC;'), 'a longer name in front is another name');
  const map = literalPattern('new Map')!;
  assert.ok(map.test('const seen = new Map();'));
  assert.ok(!map.test('renew Map();'));
  assert.ok(literalPattern("physics_config('move_sp")!.test("physics_config('move_speed')"), 'the last word may be cut short');
  assert.equal(literalPattern('new game'), null, 'a lowercase word after "new" is English');
  const day = literalPattern('86400000')!;
  assert.ok(day.test('return Math.round((b - a) / 86400000);'));
  assert.ok(!day.test('const big = 186400000;'), 'not a part of a longer number');
  assert.ok(literalPattern('0.5') && literalPattern('1e9') && literalPattern('0xff'));
  assert.equal(literalPattern('42'), null, 'a small integer is everywhere');
  assert.equal(literalPattern('Node.js runtime'), null, 'a dotted word inside a sentence is not the query');
  assert.equal(queryShape('86400000').identifierLike, true);
});

test('a fragment no candidate holds weighs nothing: scores are those of the same query without it', () => {
  const candidates: Candidate[] = ['a', 'b'].map((name, i) => ({ name, lexical: 1 - i / 2, related: 0, cosine: 0.5 - i / 10, code: '' }));
  const withFragment = scoreCandidates(queryShape('items.length = 0'), candidates, rarity);
  const asWords = scoreCandidates({ ...queryShape('items.length = 0'), literal: null }, candidates, rarity);
  assert.deepEqual([...withFragment], [...asWords]);
});

test('a query asking for a conversion has two sides, in the order it asks for', () => {
  assert.deepEqual(queryConversion('camelCase to snake_case'), { from: 'camelCase', to: 'snake_case' });
  assert.deepEqual(queryConversion('turn milliseconds into text'), { from: 'milliseconds', to: 'text' });
  assert.deepEqual(queryConversion('css colour code from channel values'), { from: 'channel values', to: 'css colour code' });
  assert.deepEqual(queryConversion('go from degrees to radians'), { from: 'degrees', to: 'radians' });
  assert.deepEqual(queryConversion('seconds since 1970 back into a date'), { from: 'seconds since 1970', to: 'a date' });
  assert.deepEqual(queryConversion('toSnakeCase'), { from: '', to: 'snake case' }, 'an identifier reads as a name does');
  assert.deepEqual(queryConversion('hexToRgb'), { from: 'hex', to: 'rgb' });
  assert.equal(queryConversion('clamp a value'), null);
  assert.equal(queryConversion('playerJump'), null);
  assert.equal(queryConversion('add to it'), null, 'a side without a meaningful word is no side');
  assert.equal(queryShape('save the game to the browser, not load it').conversion?.to, 'the browser', 'the unwanted clause is not a side');
});

test("an atom's name says which way it converts, and names its sibling", () => {
  assert.deepEqual(nameConversion('rgb_to_hex'), { from: 'rgb', to: 'hex' });
  assert.deepEqual(nameConversion('line_col_to_offset'), { from: 'line col', to: 'offset' });
  assert.deepEqual(nameConversion('to_unix_timestamp'), { from: '', to: 'unix timestamp' });
  assert.deepEqual(nameConversion('from_unix_timestamp'), { from: 'unix timestamp', to: '' });
  assert.equal(nameConversion('player_jump'), null);
  assert.equal(nameConversion('go_to'), null);
  assert.equal(reversedName(nameConversion('line_col_to_offset')!), 'offset_to_line_col');
  assert.equal(reversedName(nameConversion('to_unix_timestamp')!), 'from_unix_timestamp');
  assert.equal(reversedName(nameConversion('from_unix_timestamp')!), 'to_unix_timestamp');
});

test('the sibling that converts the way the query asks is judged 1, the other -1, and the score follows', () => {
  // A stand-in for the model's similarity of two phrases: shared words.
  const similarity = (a: string, b: string) => (a.split(' ').some((w) => b.split(' ').includes(w)) ? 1 : 0);
  const asked = queryConversion('colour code to channel values')!;
  const codeToChannels = { from: 'colour code', to: 'channel values' };
  assert.equal(conversionAgreement(asked, codeToChannels, similarity), 1);
  assert.equal(conversionAgreement(asked, { from: codeToChannels.to, to: codeToChannels.from }, similarity), -1);
  assert.equal(conversionAgreement(asked, { from: 'degrees', to: 'radians' }, similarity), 0, 'unrelated sides say nothing');
  assert.equal(conversionAgreement(asked, { from: '', to: 'channel values' }, similarity), 1, 'one side is enough');
  const shape = queryShape('colour code to channel values');
  const candidates: Candidate[] = ['hex_to_rgb', 'rgb_to_hex'].map((name) => ({ name, lexical: 1, related: 0, cosine: 0.6, code: '' }));
  const tie = scoreCandidates(shape, candidates, rarity);
  assert.equal(tie.get('hex_to_rgb'), tie.get('rgb_to_hex'));
  const judged = scoreCandidates(shape, candidates.map((c) => ({ ...c, direction: c.name === 'hex_to_rgb' ? 1 : -1 })), rarity);
  assert.ok(judged.get('hex_to_rgb')! > judged.get('rgb_to_hex')!);
  for (const v of judged.values()) assert.ok(v >= 0 && v <= 1);
});

test("a fragment remembered with a gap is found by its pieces in order on one line, when none holds it as written", () => {
  const fragment = literalPattern('Date.parse / 1000')!;
  assert.equal(fragment.holds('return Math.floor(Date.parse(text) / 1000);'), 'pieces');
  assert.equal(fragment.holds('x = Date.parse / 1000;'), 'written');
  assert.equal(fragment.holds('const t = Date.parse(text);\nreturn t / 1000;'), undefined, 'one line');
  assert.equal(fragment.holds('return 1000 / Date.parse(text);'), undefined, 'in order');
  assert.equal(fragment.holds('return Date.parse(text) / 86400000;'), undefined, 'whole tokens');
  const atoms = [
    { name: 'gap', type: 'util' as const, code: 'return Math.floor(Date.parse(text) / 1000);' },
    { name: 'exact', type: 'util' as const, code: 'const f = Date.parse / 1000;' },
  ];
  assert.deepEqual(atomsHolding(fragment, atoms, undefined, 50), ['exact'], 'as written beats in pieces');
  assert.deepEqual(atomsHolding(fragment, atoms.slice(0, 1), undefined, 50), ['gap']);
  assert.equal(literalPattern('a = b + c - d * e')!.holds('a = b + c - x - d * e'), undefined, 'five pieces or more: as written only');
});

test('a fragment is evidence only while few atoms hold it, and only atoms of the type asked for', () => {
  const literal = literalPattern('items.length = 0')!;
  const holder = (i: number, type: 'util' | 'feature' = 'util') => ({ name: `a${i}`, type, code: `function a${i}(items) {\n  items.length = 0;\n}` });
  const other = { name: 'b', type: 'util' as const, code: 'function b(items) {\n  return items.length;\n}' };
  assert.deepEqual(atomsHolding(literal, [holder(1), other, holder(2, 'feature')], undefined, 50), ['a1', 'a2']);
  assert.deepEqual(atomsHolding(literal, [holder(1), other, holder(2, 'feature')], 'feature', 50), ['a2']);
  const many = Array.from({ length: 51 }, (_, i) => holder(i));
  assert.deepEqual(atomsHolding(literal, many.slice(0, 50), undefined, 50).length, 50);
  assert.deepEqual(atomsHolding(literal, many, undefined, 50), [], '51 atoms hold it: it tells none apart');
});

test('the atom whose code holds the query as written comes first, and scores stay 0..1', () => {
  const shape = queryShape('redo.length = 0');
  const candidates: Candidate[] = ['editor_redo', 'editor_insert_text'].map((name) => ({
    name,
    lexical: name === 'editor_redo' ? 1 : 0.6,
    related: 0,
    cosine: name === 'editor_redo' ? 0.5 : 0.4,
    code: '',
    literal: name === 'editor_insert_text',
  }));
  const scores = scoreCandidates(shape, candidates, rarity);
  assert.ok(scores.get('editor_insert_text')! > scores.get('editor_redo')!, JSON.stringify([...scores]));
  for (const s of scores.values()) assert.ok(s >= 0 && s <= 1, String(s));
  const plain = scoreCandidates(queryShape('redo'), candidates.map((c) => ({ ...c, literal: false })), rarity);
  assert.ok(plain.get('editor_redo')! > plain.get('editor_insert_text')!, 'without the literal, the rest of the evidence decides');
});

test('related words widen the plain words of a query, not the parts of its API names', () => {
  assert.equal(withoutCode('toString(16) padStart digits'), 'digits');
  assert.deepEqual(index.searchApart('toString(16) padStart', 20, undefined, true).related, [], 'padStart is not pad + start');
  assert.ok(index.searchApart('pad start', 20).related.length > 0, 'the plain words still have related words');
});

test('"X, not Y" looks for X and rules out names with Y', () => {
  const shape = queryShape('save the game, not load it');
  assert.equal(shape.wanted, 'save the game');
  assert.deepEqual(shape.unwanted, ['load']);
  assert.equal(namesUnwanted(shape, 'load_game'), true);
  assert.equal(namesUnwanted(shape, 'save_game'), false);
  assert.deepEqual(queryShape('not found').unwanted, [], 'a query that is all negation is taken as written');
});

test('a rare code token outweighs a common one', () => {
  assert.ok(index.idf('code', 'imul') > 2 * index.idf('code', 'Math'));
  const shape = queryShape('Math.imul');
  assert.ok(codeOverlap(shape, code('seeded_random'), rarity) > 0.7);
  assert.ok(codeOverlap(shape, code('vec_length'), rarity) < 0.3, 'Math.sqrt shares only the common half');
});

test('scores are 0..1, and the atom that uses the rare API wins over a name that shares the common word', () => {
  const shape = queryShape('Math.imul');
  const candidates: Candidate[] = ['seeded_random', 'math_lerp', 'math_clamp'].map((name) => ({
    name,
    lexical: 1,
    related: 0,
    cosine: name === 'seeded_random' ? 0.45 : 0.5,
    code: code(name),
  }));
  const scores = scoreCandidates(shape, candidates, rarity);
  for (const s of scores.values()) assert.ok(s >= 0 && s <= 1, String(s));
  const order = [...scores].sort((a, b) => b[1] - a[1]).map(([n]) => n);
  assert.equal(order[0], 'seeded_random', JSON.stringify([...scores]));
});

test('acronyms of hyphenated phrases are searchable: BFS, CSV', () => {
  assert.equal(index.search('BFS', 5)[0]?.name, 'grid_shortest_path');
  assert.equal(index.search('CSV', 5)[0]?.name, 'csv_parse_line');
  assert.equal(index.search('Fisher Yates', 5)[0]?.name, 'shuffle_array');
});

test('rarity follows puts and removes', () => {
  const local = new LexicalIndex();
  const [a, b] = [atoms.find((x) => x.name === 'seeded_random')!, atoms.find((x) => x.name === 'vec_length')!];
  local.put(a);
  local.put(b);
  const before = local.idf('code', 'imul');
  local.remove('seeded_random');
  assert.ok(local.idf('code', 'imul') > before, 'no atom uses imul any more: rarest');
  local.put({ ...b, code: 'function vec_length(dx, dy) {\n  return Math.imul(dx, dy);\n}\n' });
  assert.equal(local.idf('code', 'imul'), Math.log(1 + 1 / 1.5), 'one atom of one uses it: counted once for the replaced atom');
});

test('of two atoms named by the query, the one the other calls comes first: "LERP" means math_lerp, not color_lerp', () => {
  const shape = queryShape('LERP');
  // Evidence as the eval measured it: color_lerp's words and meaning are a little ahead.
  const evidence: Record<string, { lexical: number; related: number; cosine: number }> = {
    color_lerp: { lexical: 1, related: 1, cosine: 0.213 },
    math_lerp: { lexical: 0.86, related: 0.9, cosine: 0.238 },
  };
  const candidates: Candidate[] = Object.entries(evidence).map(([name, e]) => ({ name, ...e, code: code(name), words: index.words(name) }));
  const scores = scoreCandidates(shape, candidates, rarity);
  assert.ok(scores.get('math_lerp')! > scores.get('color_lerp')!, JSON.stringify([...scores]));
  for (const s of scores.values()) assert.ok(s >= 0 && s <= 1, String(s));
});

test('the index keeps each atom\'s name words, code identifiers and dependencies, so a query reads no code', () => {
  const words = index.words('color_lerp')!;
  assert.deepEqual([...words.name].sort(), ['color', 'lerp']);
  assert.deepEqual(words.dependencies, ['math_lerp']);
  assert.ok(words.code.has('math_lerp'));
  const local = new LexicalIndex();
  local.put(atoms.find((a) => a.name === 'color_lerp')!);
  local.remove('color_lerp');
  assert.equal(local.words('color_lerp'), undefined);
  assert.equal(codeOverlap(queryShape('Math.imul'), index.words('seeded_random')!.code, rarity), codeOverlap(queryShape('Math.imul'), code('seeded_random'), rarity));
});
