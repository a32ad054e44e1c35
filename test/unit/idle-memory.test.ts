/**
 * When the process's keeper gives V8's heap back (src/util/idleMemory.ts): only after our work, once
 * nothing of ours ran for quietMs and the loop was nearly idle, when there is slack worth it and the
 * heap in use is small enough for a short pause, within 1% of the time, and never again after a
 * collection that paused the thread too long. A fake clock, timers,
 * loop and heap stand in for V8's; `lastResortCollection` itself runs in the integration test
 * (test/integration/idle-memory.test.ts), where a server gives its heap back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EventLoopUtilization } from 'node:perf_hooks';
import { IdleMemory, type HeapShape } from '../../src/util/idleMemory.js';

const MiB = 2 ** 20;

function harness(options: { heap?: HeapShape; collectMs?: number; collect?: boolean } = {}) {
  let now = 0;
  let busyLoop = 0; // the loop's utilization reported for the next wait
  let heap: HeapShape = options.heap ?? { committedBytes: 100 * MiB, usedBytes: 30 * MiB, youngBytes: 64 * MiB };
  const timers: { at: number; fn: () => void; live: boolean }[] = [];
  const collected: { before: HeapShape; after: HeapShape; ms: number }[] = [];
  const keeper = new IdleMemory({
    quietMs: 3_000,
    maxUtilization: 0.1,
    minSlackBytes: 16 * MiB,
    maxUsedBytes: 192 * MiB,
    maxPauseMs: 300,
    budget: 0.01,
    heap: () => heap,
    collect:
      options.collect === false
        ? undefined
        : () => {
            now += options.collectMs ?? 80;
            heap = { committedBytes: heap.usedBytes + 2 * MiB, usedBytes: heap.usedBytes, youngBytes: 1 * MiB };
          },
    utilization: (since?: EventLoopUtilization) => ({ idle: 0, active: 0, utilization: since ? busyLoop : 0 }),
    now: () => now,
    setTimer: (fn, ms) => {
      const timer = { at: now + ms, fn, live: true, unref: () => timer };
      timers.push(timer);
      return timer;
    },
    clearTimer: (timer) => ((timer as { live: boolean }).live = false),
    onCollected: (c) => collected.push(c),
  });
  /** Moves the clock to `to`, firing the timers due on the way in order. */
  const advance = (to: number) => {
    for (;;) {
      const due = timers.filter((t) => t.live && t.at <= to).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      due.live = false;
      now = Math.max(now, due.at);
      due.fn();
    }
    now = Math.max(now, to);
  };
  return {
    keeper,
    collected,
    advance,
    at: () => now,
    pending: () => timers.filter((t) => t.live).length,
    setLoop: (u: number) => (busyLoop = u),
    setHeap: (h: HeapShape) => (heap = h),
  };
}

test('nothing happens without our work', () => {
  const h = harness();
  h.advance(60_000);
  assert.equal(h.collected.length, 0);
  assert.equal(h.pending(), 0);
});

test('after our work, the heap is collected once the process has been quiet for quietMs, and only once', () => {
  const h = harness();
  h.keeper.busy();
  h.advance(2_999);
  assert.equal(h.collected.length, 0, 'not before quietMs');
  h.advance(3_000);
  assert.equal(h.collected.length, 1);
  assert.equal(h.collected[0]!.before.committedBytes, 100 * MiB);
  assert.equal(h.collected[0]!.after.committedBytes, 32 * MiB);
  assert.deepEqual(h.keeper.given, { collections: 1, bytes: 68 * MiB }, 'what get_status says');
  assert.equal(h.pending(), 0, 'disarmed until the next work');
  h.advance(600_000);
  assert.equal(h.collected.length, 1);
});

test('more work meanwhile moves the collection to quietMs after the last of it', () => {
  const h = harness();
  h.keeper.busy();
  for (let t = 1_000; t <= 10_000; t += 1_000) {
    h.advance(t);
    h.keeper.busy(); // a call every second: never quiet
  }
  assert.equal(h.collected.length, 0);
  h.advance(12_999);
  assert.equal(h.collected.length, 0);
  h.advance(13_000);
  assert.equal(h.collected.length, 1);
});

test('a busy loop (the model catching up, another extension) postpones the collection until a quiet wait', () => {
  const h = harness();
  h.setLoop(0.5);
  h.keeper.busy();
  h.advance(20_000);
  assert.equal(h.collected.length, 0, 'never while the loop is busy');
  assert.equal(h.pending(), 1, 'still armed');
  h.setLoop(0.02);
  h.advance(23_000);
  assert.equal(h.collected.length, 1);
});

test('no collection when there is little to give back, or the heap in use would make the pause too long', () => {
  const small = harness({ heap: { committedBytes: 40 * MiB, usedBytes: 30 * MiB, youngBytes: 2 * MiB } });
  small.keeper.busy();
  small.advance(60_000);
  assert.equal(small.collected.length, 0);
  assert.equal(small.pending(), 0, 'disarmed, not polling');

  const big = harness({ heap: { committedBytes: 400 * MiB, usedBytes: 200 * MiB, youngBytes: 64 * MiB } });
  big.keeper.busy();
  big.advance(60_000);
  assert.equal(big.collected.length, 0, "a host holding 200 MiB in use (other extensions') is left to V8");
});

test('collections take at most 1% of the time: the next waits 100 times the last one', () => {
  const h = harness({ collectMs: 80 });
  h.keeper.busy();
  h.advance(3_000);
  assert.equal(h.collected.length, 1);
  const first = h.at(); // 3,080: the collection took 80 ms
  h.setHeap({ committedBytes: 100 * MiB, usedBytes: 30 * MiB, youngBytes: 64 * MiB }); // grown again
  h.keeper.busy();
  h.advance(first + 3_000);
  assert.equal(h.collected.length, 1, 'quiet, but within 8 s of the last collection');
  h.advance(first + 8_000);
  assert.equal(h.collected.length, 2);
});

test('a collection that pauses the thread over maxPauseMs is the last one in the process', () => {
  const h = harness({ collectMs: 320, heap: { committedBytes: 180 * MiB, usedBytes: 150 * MiB, youngBytes: 64 * MiB } });
  h.keeper.busy();
  h.advance(3_000);
  assert.equal(h.collected.length, 1);
  h.setHeap({ committedBytes: 200 * MiB, usedBytes: 150 * MiB, youngBytes: 64 * MiB });
  h.keeper.busy();
  assert.equal(h.pending(), 0, 'not armed again');
  h.advance(600_000);
  assert.equal(h.collected.length, 1);
});

test('where the runtime gives no gc function, nothing is armed', () => {
  const h = harness({ collect: false });
  h.keeper.busy();
  assert.equal(h.pending(), 0);
  h.advance(60_000);
  assert.equal(h.collected.length, 0);
});

test('dispose stops a pending collection', () => {
  const h = harness();
  h.keeper.busy();
  h.keeper.dispose();
  h.advance(60_000);
  assert.equal(h.collected.length, 0);
});
