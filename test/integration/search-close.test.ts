/**
 * Closing a workspace never waits forever on its search index: an atom changed just before the close
 * asks the embedding queue for a vector, and a queue that has stopped must not leave that request waiting.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeywordOnlyProvider } from '../../src/search/embeddings/keyword.js';
import { AtomWorkspace } from '../../src/workspace.js';
import { mathClamp } from '../support/atoms.js';
import { tempDir } from '../support/tmp.js';

/** A model that never loads: every embed rejects (search treats it as a missing or broken model). */
const brokenModel = new KeywordOnlyProvider();

test('a workspace closed right after an upsert, while its index is still opening, closes', async () => {
  const ws = await AtomWorkspace.open(tempDir('atomic-close-'), { embeddings: brokenModel });
  await ws.upsert(mathClamp);
  // A close that hangs leaves this promise pending: node:test then fails the test when the event loop
  // empties ("Promise resolution is still pending but the event loop has already resolved").
  await ws.close();
  assert.ok(true);
});
