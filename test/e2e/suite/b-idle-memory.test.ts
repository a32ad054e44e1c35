/**
 * A guest in the extension host (src/util/idleMemory.ts): after the server's work, once the host is
 * quiet, V8's grown young generation is given back. This runs where the keeper runs in VS Code, in
 * the host's own isolate, on the host's Node: the young generation is grown first as a burst of
 * work grows it (objects that survive scavenges), then an agent calls get_status (our work), and
 * the test waits, quiet, for the young generation to shrink, and get_status counts the collection.
 * The host's heap figures are reported. It runs second (b-), right after a-citizen starts the store,
 * on a host not yet holding the other tests' leftovers (119 MiB in use in one full run, where V8
 * itself shrank the young generation 14 s later), so the keeper's own collection is what is seen.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { call, connectHttp } from '../../support/client.js';
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
    const heap = getHeapStatistics();
    report(`extension host heap after the burst: young generation ${(grown / MiB).toFixed(0)} MiB, ${(heap.total_heap_size / MiB).toFixed(0)} MiB held, ${(heap.used_heap_size / MiB).toFixed(0)} MiB used`);
    // get_status, through the extension's own server, is the server's work (a tool call), and says how
    // often the keeper collected.
    const info = JSON.parse(readFileSync(join(workspace.dir, '.atomic', 'server.json'), 'utf8')) as { url: string; token: string };
    const client = await connectHttp(info.url, info.token, 'e2e-idle-memory');
    const times = async () => Number(/given back when quiet \((\d+) times?\)/.exec((await call(client, 'get_status')).text)?.[1] ?? 0);
    try {
      const collectedBefore = await times();
      const started = Date.now();
      await until('the young generation to be given back', () => young() <= 4 * MiB, 90_000);
      const after = getHeapStatistics();
      report(`quiet ${((Date.now() - started) / 1000).toFixed(1)} s later: young generation ${(young() / MiB).toFixed(0)} MiB, ${(after.total_heap_size / MiB).toFixed(0)} MiB held, ${(after.used_heap_size / MiB).toFixed(0)} MiB used`);
      const collected = await times();
      report(`get_status: the keeper collected ${collected} time(s) in this host, ${collected - collectedBefore} since the burst`);
      assert.ok(collected > collectedBefore, 'the server collected (V8 did not shrink the young generation on its own)');
    } finally {
      await client.close();
    }
  });
});
