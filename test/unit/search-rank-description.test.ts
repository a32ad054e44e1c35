/**
 * The second pass's description evidence (rank.ts, Candidate.descCosine): the cosine of the query
 * and a vector of the atom's description alone counts for sentence queries, not for names, and
 * leaves the score's scale as it was when no candidate has one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { queryShape, scoreCandidates, WEIGHTS, type Candidate } from '../../src/store/search/rank.js';

const rarity = () => 1;
const candidate = (name: string, descCosine?: number | null): Candidate => ({
  name,
  lexical: 0.5,
  related: 0,
  cosine: 0.6,
  code: '',
  ...(descCosine === undefined ? {} : { descCosine }),
});

test('a sentence query ranks first the atom whose description is nearer, all else equal; a name-like query does not', () => {
  const shape = queryShape('limit how often a scroll handler runs');
  assert.equal(shape.identifierLike, false);
  const scores = scoreCandidates(shape, [candidate('debounce', 0.3), candidate('throttle', 0.6)], rarity);
  assert.ok(scores.get('throttle')! > scores.get('debounce')!, JSON.stringify([...scores]));
  assert.ok(WEIGHTS.prose.description > 0);
  // A name-like query is not reordered by descriptions.
  const code = scoreCandidates(queryShape('Math.imul'), [candidate('a', 0.1), candidate('b', 0.9)], rarity);
  assert.equal(code.get('a'), code.get('b'));
});

test('an atom without a description vector gets none of that evidence; with none at all the scale is unchanged', () => {
  const shape = queryShape('smooth out noisy sensor readings');
  const scores = scoreCandidates(shape, [candidate('with', 0.5), candidate('without', null)], rarity);
  assert.ok(scores.get('with')! > scores.get('without')!);
  // Without any description vector the scale is the other evidence's: the best on all of it scores 1.
  const best: Candidate = { name: 'player_jump', lexical: 1, related: 1, cosine: 0.8, code: '' };
  // Name evidence: every query word in the name; the other pieces at their best.
  const named: Candidate = { ...best, name: 'make_character_go_up' };
  const alone = scoreCandidates(queryShape('make the character go up'), [named], rarity);
  const w = WEIGHTS.prose;
  const expected = (w.lexical + w.related + w.meaning + w.name) / (w.lexical + w.related + w.meaning + w.name + w.code + w.dependency);
  assert.equal(alone.get('make_character_go_up'), expected);
});
