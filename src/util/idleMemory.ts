/**
 * Gives the JavaScript heap's grown memory back once the process goes quiet after the server's work.
 *
 * Why: V8 grows its young generation whenever the bytes surviving scavenges since it last grew pass
 * its size, and an agent creating atoms one after another is such a path (Node 24 here: 64 MiB after
 * 1,000 atoms, 128 after 10,000; DEVELOPERS.md, "Memory along the write path"). Nothing shrinks it
 * again in a Node process: 60 s after an agent's last call the server still held its peak (204 MiB
 * at 1,000 atoms). In Chrome the embedder tells V8 when a page is idle; Node tells it nothing. So,
 * after our own work (a tool call, a change of atoms), once the event loop has been quiet for a
 * moment, the heap is collected as V8 collects it when memory runs low (`flavor: 'last-resort'`:
 * full collections until nothing more is freed, the heap compacted, the young generation shrunk):
 * 199 → 134 MiB at rest there. A scavenge or a plain full collection is cheaper, but whether it
 * shrinks the young generation depends on V8's version and its recent allocation rate (Node 22's
 * V8 kept 32 MiB after either); the last-resort collection gave it back on both.
 *
 * In VS Code the extension host's heap is every extension's, so the collection is a guest's:
 * - only after our work, never for another extension's;
 * - only when the loop was nearly idle over the wait (no one is waiting for the thread);
 * - only when there is something to give back (`minSlackBytes` between what V8 holds and uses);
 * - only while the pause is short: such a collection takes ~1.6 ms a MiB of live objects (Node 22
 *   and 24 alike, 30 ms at 17 MiB, 290 at 190). V8 does not say how much of the heap in use is live
 *   (right after a burst much of it is garbage), so a heap over `maxUsedBytes` in use is left to V8,
 *   and one collection over `maxPauseMs` retires the keeper for the process's life (a host holding
 *   other extensions' heaps);
 * - at most 1% of the time (the next one waits 100 times as long as the last one took).
 *
 * The collection is V8's gc extension, taken once from a context made while `--expose-gc` is set
 * for that moment only (later contexts, another extension's included, do not get it). Electron, like
 * Node, lets flags change after start (`--no-freeze-flags-after-init`); where the context gets no gc
 * function, nothing is collected and nothing else changes.
 */
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Logger } from './log.js';

const MiB = 2 ** 20;
/** One collection longer than this retires the process's keeper. */
const MAX_PAUSE_MS = 300;

/** What the keeper reads of the heap: what V8 holds, what it uses, and its young generation. */
export interface HeapShape {
  committedBytes: number;
  usedBytes: number;
  youngBytes: number;
}

/** What the collections gave back so far (get_status says it). */
export interface GivenBack {
  collections: number;
  bytes: number;
}

/** What a collection gave back, for the log. */
export interface Collected {
  before: HeapShape;
  after: HeapShape;
  ms: number;
  /** The collection took over maxPauseMs: none follows in this process. */
  retired: boolean;
}

export interface IdleMemoryOptions {
  /** How long nothing of ours ran, and the loop was nearly idle, before a collection (ms). */
  quietMs: number;
  /** The loop's utilization over that wait above which it is not quiet (another extension's work). */
  maxUtilization: number;
  /** Held minus used bytes below which nothing is worth giving back. */
  minSlackBytes: number;
  /** Used bytes (live and not yet collected) above which a collection could pause the thread too long: left to V8. */
  maxUsedBytes: number;
  /** A collection that took longer retires the keeper: the heap (in VS Code, the host's) is too big to pause for. */
  maxPauseMs: number;
  /** The share of time collections may take: the next one waits `last ms / budget`. */
  budget: number;
  heap: () => HeapShape;
  /** Runs the collection; undefined where the runtime has none. */
  collect: (() => void) | undefined;
  /** The loop's utilization since `since` (perf_hooks' eventLoopUtilization). */
  utilization: (since?: EventLoopUtilization) => EventLoopUtilization;
  now: () => number;
  setTimer: (fn: () => void, ms: number) => { unref?(): unknown };
  clearTimer: (timer: { unref?(): unknown }) => void;
  /** Told of each collection (the log's debug line). */
  onCollected?: (collected: Collected) => void;
}

/** The keeper's decisions, apart from V8 and the clock (test/unit/idle-memory.test.ts). */
export class IdleMemory {
  private lastWork = -Infinity;
  private notBefore = -Infinity;
  private timer: { unref?(): unknown } | undefined;
  private loopAt: EventLoopUtilization | undefined;
  private readonly total: GivenBack = { collections: 0, bytes: 0 };
  private retired = false;

  constructor(private readonly options: IdleMemoryOptions) {}

  /** How many collections ran, and how many bytes of V8's heap they gave back (held before minus after). */
  get given(): GivenBack {
    return { ...this.total };
  }

  /** Our work ran (a tool call, a change): a collection may follow once the process is quiet. */
  busy(): void {
    if (!this.options.collect || this.retired) return;
    this.lastWork = this.options.now();
    this.loopAt = this.options.utilization(); // the quiet is measured from the last work
    if (!this.timer) this.arm(this.options.quietMs);
  }

  dispose(): void {
    if (this.timer) this.options.clearTimer(this.timer);
    this.timer = undefined;
  }

  private arm(ms: number): void {
    this.timer = this.options.setTimer(() => this.check(), Math.max(0, ms));
    this.timer.unref?.();
  }

  private check(): void {
    this.timer = undefined;
    const { options } = this;
    const now = options.now();
    const quietFor = now - this.lastWork;
    // More work came meanwhile: wait until the last of it is quietMs behind.
    if (quietFor < options.quietMs) return this.arm(options.quietMs - quietFor);
    // Within the budget's wait after the last collection.
    if (now < this.notBefore) return this.arm(this.notBefore - now);
    // The thread was busy (the model's vectors arriving, another extension): try again later.
    if (options.utilization(this.loopAt).utilization > options.maxUtilization) {
      this.loopAt = options.utilization();
      return this.arm(options.quietMs);
    }
    const before = options.heap();
    // Nothing worth giving back, or a pause too long for a shared thread: disarmed until the next work.
    if (before.committedBytes - before.usedBytes < options.minSlackBytes || before.usedBytes > options.maxUsedBytes) return;
    const started = options.now();
    options.collect!();
    const ms = options.now() - started;
    this.notBefore = options.now() + ms / options.budget;
    const after = options.heap();
    this.total.collections++;
    this.total.bytes += Math.max(0, before.committedBytes - after.committedBytes);
    this.retired = ms > options.maxPauseMs;
    options.onCollected?.({ before, after, ms, retired: this.retired });
  }
}

/** V8's heap as the keeper reads it. */
export function v8HeapShape(): HeapShape {
  const heap = getHeapStatistics();
  const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  return { committedBytes: heap.total_heap_size, usedBytes: heap.used_heap_size, youngBytes: young?.space_size ?? 0 };
}

type GcFunction = (options?: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/**
 * A collection of everything that can be freed, as V8 runs it when memory is low; undefined where
 * the context made with `--expose-gc` has no gc function. (A V8 that froze its flags at start would
 * abort at `setFlagsFromString`, as nw.js did; Node and Electron, whose processes all start V8 with
 * `--no-freeze-flags-after-init`, keep them changeable.)
 */
export function lastResortCollection(): (() => void) | undefined {
  let gc = (globalThis as { gc?: GcFunction }).gc; // a process started with --expose-gc
  if (typeof gc !== 'function') {
    try {
      setFlagsFromString('--expose-gc');
      try {
        gc = runInNewContext('typeof gc === "function" ? gc : undefined') as GcFunction | undefined;
      } finally {
        setFlagsFromString('--no-expose-gc');
      }
    } catch {
      gc = undefined;
    }
  }
  if (typeof gc !== 'function') return undefined;
  const collect = gc;
  return () => collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

let shared: IdleMemory | undefined;
/** Where the process's keeper reports: the logger of the last work it was told of. */
let report: Logger | undefined;

/**
 * Our work ran (a tool call, a change of atoms): the process's keeper (one per process, the heap
 * being the process's whatever number of workspaces it serves) may give the heap back once the
 * process is quiet, and says so on `log` at debug level.
 */
export function noteWork(log: Logger): void {
  report = log;
  shared ??= new IdleMemory({
    // An agent's turn between two calls is seconds (its model writes the next call); pipelined calls
    // come milliseconds apart.
    quietMs: 3_000,
    maxUtilization: 0.1,
    minSlackBytes: 16 * MiB,
    maxUsedBytes: 192 * MiB,
    // At 10,000 atoms the server's own collections took 77-157 ms (22-63 MiB in use after them).
    maxPauseMs: MAX_PAUSE_MS,
    budget: 0.01,
    heap: v8HeapShape,
    collect: lastResortCollection(),
    utilization: (since) => performance.eventLoopUtilization(since),
    now: () => performance.now(),
    setTimer: (fn, ms) => setTimeout(fn, ms),
    clearTimer: (timer) => clearTimeout(timer as NodeJS.Timeout),
    onCollected: ({ before, after, ms, retired }) => {
      report?.debug(
        `idle: gave V8's heap back: ${mib(before.committedBytes)} → ${mib(after.committedBytes)} MiB held ` +
          `(young generation ${mib(before.youngBytes)} → ${mib(after.youngBytes)} MiB, ${mib(after.usedBytes)} MiB in use), in ${ms.toFixed(0)} ms`,
      );
      if (retired) report?.info(`idle: a collection of this process's heap took ${ms.toFixed(0)} ms, over ${MAX_PAUSE_MS}: the heap is left to V8 from now on`);
    },
  });
  shared.busy();
}

/** What this process's keeper has given back so far (nothing before any work). */
export function givenBack(): GivenBack {
  return shared?.given ?? { collections: 0, bytes: 0 };
}

function mib(bytes: number): string {
  return (bytes / MiB).toFixed(0);
}
