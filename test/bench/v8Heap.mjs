/**
 * Preloaded into a benchmarked server (node --import, bench only): samples V8's heap spaces every
 * 100 ms and, at exit, writes the largest young generation (new space, committed bytes) and the
 * largest whole heap it saw to the file named by ATOMIC_BENCH_V8_HEAP_FILE, as JSON. It changes no
 * V8 option; its timer is unref'd and allocates a few objects a sample.
 */
import { writeFileSync } from 'node:fs';
import v8 from 'node:v8';

const file = process.env.ATOMIC_BENCH_V8_HEAP_FILE;
if (file) {
  let young = 0;
  let heap = 0;
  const sample = () => {
    let total = 0;
    for (const space of v8.getHeapSpaceStatistics()) {
      total += space.space_size;
      if (space.space_name === 'new_space') young = Math.max(young, space.space_size);
    }
    heap = Math.max(heap, total);
  };
  setInterval(sample, 100).unref();
  process.on('exit', () => {
    sample();
    try {
      writeFileSync(file, JSON.stringify({ youngBytes: young, heapBytes: heap }));
    } catch {}
  });
}
