/**
 * The server's memory at 1,000 atoms (issue 15): the shipped server (dist/cli.js serve, over
 * loopback HTTP) on a generated workspace in its steady state, asked a few semantic searches (each
 * query embedded by the real model, which runs in a process of its own). Measured as the server
 * process's peak resident memory (/proc/<pid>/status VmHWM), not time.
 *
 * The target is 150 MiB; the test fails above 150 MiB × 1.3 = 195 MiB. Measured on the 2-core dev
 * machine (Node 20, 7 runs, test and bench): 141.9-146.8 MiB, so run-to-run noise is ~5 MiB; the 30 % margin
 * covers that and what another Node version or allocator adds (not measured here), while the old
 * design (the model in a worker thread of the server) peaks at 276-287 MiB and fails it clearly.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { embeddingText } from '../../src/atoms/signature.js';
import { AtomStore } from '../../src/store/atomStore.js';
import { textHash } from '../../src/util/textHash.js';
import { USE_LITE_MODEL_ID } from '../../src/search/embeddings/useLite.js';
import { AtomWorkspace } from '../../src/workspace.js';
import { generateAtoms, seeded } from '../bench/generate.js';
import { GAME_QUERIES } from '../fixtures/game-atoms.js';
import { call, connectHttp, startServer } from '../support/server.js';
import { residentBytes } from '../support/memory.js';
import { tempDir } from '../support/tmp.js';
import { upsertMany } from '../support/storeWrites.js';

const MiB = 2 ** 20;
const TARGET_MIB = 150;
const MARGIN = 1.3;

/** 1,000 generated atoms, bundled and indexed, with current (synthetic) vectors: nothing left to embed. */
async function generatedWorkspace(count: number): Promise<string> {
  const dir = tempDir('atomic-memory-');
  const { atoms } = generateAtoms(count);
  const store = await AtomStore.open(dir);
  try {
    for (let i = 0; i < atoms.length; i += 500) await upsertMany(store, atoms.slice(i, i + 500));
    const random = seeded(7);
    await store.putEmbeddings(
      atoms.map((draft) => {
        const vector = Float32Array.from({ length: 512 }, () => random() * 2 - 1);
        return { name: draft.name, model: USE_LITE_MODEL_ID, textHash: textHash(embeddingText(store.get(draft.name)!)), vector };
      }),
    );
  } finally {
    await store.close();
  }
  const workspace = await AtomWorkspace.open(dir);
  await workspace.search.whenIdle();
  await workspace.close();
  rmSync(join(dir, '.atomic', 'lock'), { force: true });
  return dir;
}


test(`the server's peak memory at 1,000 atoms after searches stays under ${TARGET_MIB} MiB × ${MARGIN}`, async (t) => {
  if (!existsSync('/proc/self/status')) {
    t.skip('needs Linux /proc to read a process\'s peak resident memory');
    return;
  }
  const dir = await generatedWorkspace(1000);
  const server = await startServer(dir);
  try {
    const client = await connectHttp(server.url, server.token);
    try {
      for (const { query } of GAME_QUERIES.slice(0, 8)) {
        const result = await call(client, 'semantic_search', { query });
        assert.equal(result.isError, false, result.text);
      }
      const status = await call(client, 'get_status');
      assert.match(status.text, /1000/, status.text);
    } finally {
      await client.close();
    }
    const peak = residentBytes(server.process.pid!, 'VmHWM');
    t.diagnostic(`server peak RSS: ${(peak / MiB).toFixed(1)} MiB`);
    assert.ok(
      peak <= TARGET_MIB * MARGIN * MiB,
      `the server peaked at ${(peak / MiB).toFixed(1)} MiB at 1,000 atoms, over the ${TARGET_MIB} MiB target × ${MARGIN}: something now holds more memory in the server process (is the embedding model back inside it?)`,
    );
  } finally {
    await server.stop();
  }
});
