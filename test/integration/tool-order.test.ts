/**
 * A client may send its next request before the answer to the last (a pipelined stdio client,
 * an agent's parallel tool calls). A call waits for the writes that arrived before it: a read
 * sent after a write sees it, and writes land in the order they were sent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openInProcess, wordsOnly } from '../support/inProcess.js';

const atom = (name: string, body: string) => ({ name, type: 'util', code: `function ${name}() { ${body} }` });

test('a read sent right after a write, before its answer, sees the write', async () => {
  const s = await openInProcess({ embeddings: wordsOnly });
  try {
    const [saved, read, found] = await Promise.all([
      s.call('upsert_atom', atom('fresh_helper', 'return 42;')),
      s.call('read_atoms', { names: ['fresh_helper'] }),
      s.call('semantic_search', { query: 'fresh_helper' }),
    ]);
    assert.equal(saved.isError, false, saved.text);
    assert.equal(read.isError, false, read.text);
    assert.match(read.text, /return 42;/);
    assert.match(found.text, /^\/\/ fresh_helper \(util\)/m);
  } finally {
    await s.close();
  }
});

test('writes sent together land in the order they were sent', async () => {
  const s = await openInProcess({ embeddings: wordsOnly });
  try {
    const answers = await Promise.all([
      s.call('upsert_atom', atom('counter_value', 'return 1;')),
      s.call('upsert_atom', atom('counter_value', 'return 2;')),
      s.call('delete_atom', { name: 'counter_value' }),
      s.call('upsert_atom', atom('counter_value', 'return 3;')),
    ]);
    for (const a of answers) assert.equal(a.isError, false, a.text);
    const read = await s.call('read_atoms', { names: ['counter_value'] });
    assert.match(read.text, /return 3;/);
    assert.match(answers[2]!.text, /deleted/i, 'the delete came after the two upserts');
  } finally {
    await s.close();
  }
});
