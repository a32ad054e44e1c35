/** The worker's tokenizer gives the ids of @energetic-ai/embeddings' own, text for text. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EmbeddingsModel, type EmbeddingsModelData } from '@energetic-ai/embeddings';
import { embeddingText } from '../../src/atoms/signature.js';
import { SentencePiece, type Vocabulary } from '../../src/search/embeddings/sentencePiece.js';
import { useLiteModelDir } from '../../src/search/embeddings/paths.js';
import { generateAtoms } from '../bench/generate.js';
import { GAME_ATOMS } from '../fixtures/game-atoms.js';
import { validateDraft } from '../../src/atoms/validate.js';

test('SentencePiece encodes as the package does', () => {
  const vocabulary = JSON.parse(readFileSync(join(useLiteModelDir(), 'vocab.json'), 'utf8')) as Vocabulary;
  const theirs = new EmbeddingsModel({ model: null as unknown as EmbeddingsModelData['model'], vocabulary } as EmbeddingsModelData).tokenizer;
  const ours = new SentencePiece(vocabulary);
  const texts = [
    '',
    ' ',
    'clamp a value',
    '  two  spaces   and tabs\tand\nnewlines\n\n',
    'unicode: café naïve Ünïcödé 日本語のテキスト 😀👍🏽 ﬁ ligature ½ Ⅻ',
    '\u0000\u0001 control \uFFFD replacement \u2581 separator',
    'x'.repeat(300),
    ...GAME_ATOMS.map((a) => embeddingText(validateDraft(a) as never)),
    ...generateAtoms(40).atoms.map((a) => embeddingText(validateDraft(a) as never)),
  ];
  for (const text of texts) assert.deepEqual(ours.encode(text), theirs.encode(text), JSON.stringify(text.slice(0, 60)));
});
