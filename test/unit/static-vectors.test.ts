/**
 * The static first pass's table (scripts/static-vectors.ts; not shipped, measured by
 * test/eval/static.eval.ts): a text's vector is the sum of its pieces' rows, the same every time;
 * a table is refused when damaged or made for another vocabulary. A small table of made-up rows
 * over the model's real vocabulary: no model runs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useLiteModelDir } from '../../src/search/embeddings/paths.js';
import { SentencePiece, type Vocabulary } from '../../src/search/embeddings/sentencePiece.js';
import { encodeStaticTable, StaticVectors, staticTableModelId } from '../eval/staticVectors.js';

const vocabulary = JSON.parse(readFileSync(join(useLiteModelDir(), 'vocab.json'), 'utf8')) as Vocabulary;
const tokenizer = new SentencePiece(vocabulary);
const DIMS = 4;

/** Row i: (i mod 7 - 3, i mod 5 - 2, 1, -1) times 0.01; the reserved ids zero. */
function rows(): Float32Array {
  const out = new Float32Array(vocabulary.length * DIMS);
  for (let i = 6; i < vocabulary.length; i++) out.set([((i % 7) - 3) * 0.01, ((i % 5) - 2) * 0.01, 0.01, -0.01], i * DIMS);
  return out;
}

test('a text\'s static vector is the sum of its pieces\' rows, the same every time', () => {
  const table = new StaticVectors(encodeStaticTable(rows(), vocabulary.length, DIMS), tokenizer);
  assert.equal(table.dimensions, DIMS);
  assert.match(table.modelId, /^use-lite-static-4@[0-9a-f]{16}$/);
  const text = 'Keeps the value between the limits.';
  const expected = new Float32Array(DIMS);
  const r = rows();
  for (const id of tokenizer.encode(text)) for (let c = 0; c < DIMS; c++) expected[c]! += r[id * DIMS + c]!;
  const got = table.embed(text);
  // int8 with a scale a piece: within a rounding step of each row's largest value, per piece.
  for (let c = 0; c < DIMS; c++) assert.ok(Math.abs(got[c]! - expected[c]!) < 0.001 * tokenizer.encode(text).length, `${c}: ${got[c]} vs ${expected[c]}`);
  assert.deepEqual(table.embed(text), got, 'deterministic');
  assert.deepEqual([...table.embed('')], [0, 0, 0, 0]);
});

test('a damaged table, or one for another vocabulary, is refused', () => {
  const bytes = encodeStaticTable(rows(), vocabulary.length, DIMS);
  assert.equal(staticTableModelId(bytes), new StaticVectors(bytes, tokenizer).modelId);
  const flipped = Buffer.from(bytes);
  flipped[flipped.length - 1]! ^= 1;
  assert.throws(() => new StaticVectors(flipped, tokenizer), /damaged/);
  assert.throws(() => new StaticVectors(bytes.subarray(0, bytes.length - 1), tokenizer), /cut short/);
  assert.throws(() => new StaticVectors(Buffer.from('not a table at all, not at all'), tokenizer), /not one this version reads/);
  const fewer = encodeStaticTable(rows().subarray(0, 100 * DIMS), 100, DIMS);
  assert.throws(() => new StaticVectors(fewer, tokenizer), /100 pieces/);
});
