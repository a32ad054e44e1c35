/** The `keyword` embedding setting: search works by words alone and never loads a model. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeywordOnlyProvider } from '../../src/search/embeddings/keyword.js';
import { AtomWorkspace } from '../../src/workspace.js';
import { tempDir } from '../support/tmp.js';

describe('keyword-only search (atomicCoding.search.embeddingProvider = keyword)', () => {
  it('finds atoms by their words and reports that semantic matching is off', async () => {
    const provider = new KeywordOnlyProvider();
    let embedCalls = 0;
    const embed = provider.embed.bind(provider);
    provider.embed = () => (embedCalls++, embed());
    const workspace = await AtomWorkspace.open(tempDir('kw-'), { embeddings: provider });
    try {
      await workspace.upsert({ name: 'player_jump', type: 'feature', code: 'function player_jump() { return 1; }', description: 'Makes the cube jump upward' });
      await workspace.upsert({ name: 'math_clamp', type: 'util', code: 'function math_clamp(v) { return v; }', description: 'Limits a number to a range' });
      const result = await workspace.search.search('jump');
      assert.equal(result.hits[0]?.atom.name, 'player_jump');
      assert.match(result.semanticUnavailable ?? '', /keyword search only/, 'the result says it searched by words only');
      assert.ok(embedCalls > 0, 'search asked the provider, which refused without loading anything');
    } finally {
      await workspace.close();
    }
  });
});
