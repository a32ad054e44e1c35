/**
 * get_status says where the embedding model's memory is: in a process of its own, started on demand,
 * so a person looking at VS Code's memory (or an agent asked about it) can tell the two apart.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { UseLiteProvider } from '../../src/search/embeddings/useLite.js';
import { openInProcess, wordsOnly, type InProcessServer } from '../support/inProcess.js';
import { mathClamp } from '../support/atoms.js';

let server: InProcessServer;
before(async () => {
  server = await openInProcess({ embeddings: new UseLiteProvider() });
});
after(() => server.close());

test('get_status reports the model process apart: not running before a search, running with its pid and memory after', async () => {
  const before = await server.call('get_status');
  assert.match(before.text, /^Embedding model: not running \(its process starts at the next search or edit/m);
  await server.call('upsert_atom', { ...mathClamp });
  await server.call('semantic_search', { query: 'keep a value in range' });
  const afterSearch = await server.call('get_status');
  const line = /^Embedding model: running in its own process \(pid (\d+)\) on onnxruntime, ([\d.]+ \w+) resident/m.exec(afterSearch.text);
  assert.ok(line, afterSearch.text);
  assert.notEqual(Number(line[1]), process.pid, 'the model is not in this process');
});

test('a provider without a process of its own (words only) adds no model line', async () => {
  const words = await openInProcess({ embeddings: wordsOnly });
  try {
    assert.doesNotMatch((await words.call('get_status')).text, /Embedding model:/);
  } finally {
    await words.close();
  }
});
