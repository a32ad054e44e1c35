/**
 * A guest in the extension host (src/util/idleMemory.ts): after the server's work, once the host is
 * quiet, V8's grown young generation is given back. This runs where the keeper runs in VS Code, in
 * the host's own isolate, on the host's Node: the young generation is grown first as a burst of
 * work grows it (objects that survive scavenges), then the workspace takes a write (our work), and
 * the test waits, quiet, for the young generation to shrink. The host's heap figures are reported.
 */
import * as assert from 'node:assert/strict';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { readyExtension, report, until } from './support.js';

const MiB = 2 ** 20;
const young = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;

describe('A guest in the extension host: memory given back once quiet', function () {
  this.timeout(120_000);

  it("after the server's work, a quiet host gets its grown young generation back", async () => {
    const { api } = await readyExtension();
    const workspace = api.lifecycle?.workspace;
    assert.ok(workspace, api.lifecycle?.error);
    // A burst: each round keeps its objects across the next round's scavenges, then lets them go.
    const kept: object[][] = [];
    for (let round = 0; round < 60 && young() < 16 * MiB; round++) {
      kept.push(Array.from({ length: 50_000 }, (_, i) => ({ i, text: `atom ${i} of round ${round}` })));
      if (kept.length > 4) kept.shift();
      await new Promise((r) => setImmediate(r));
    }
    kept.length = 0;
    const grown = young();
    assert.ok(grown >= 16 * MiB, `the burst grew the young generation to ${grown / MiB} MiB only`);
    await workspace.upsert({
      name: 'idle_memory_probe',
      type: 'util',
      description: 'Doubles a number, written so the server has worked',
      code: 'function idle_memory_probe(x) {\n  return x * 2;\n}\n',
      inputs: [{ name: 'x', type: 'number' }],
      outputs: [{ name: 'doubled', type: 'number' }],
    });
    const heap = getHeapStatistics();
    report(`extension host heap after the burst: young generation ${(grown / MiB).toFixed(0)} MiB, ${(heap.total_heap_size / MiB).toFixed(0)} MiB held, ${(heap.used_heap_size / MiB).toFixed(0)} MiB used`);
    const started = Date.now();
    await until('the young generation to be given back', () => young() <= 4 * MiB, 90_000);
    const after = getHeapStatistics();
    report(`quiet ${((Date.now() - started) / 1000).toFixed(1)} s later: young generation ${(young() / MiB).toFixed(0)} MiB, ${(after.total_heap_size / MiB).toFixed(0)} MiB held, ${(after.used_heap_size / MiB).toFixed(0)} MiB used`);
  });
});
