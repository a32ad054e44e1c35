/**
 * The sandbox's vocabulary: what a caller asks to run and what comes back. Values cross the
 * boundary as JSON, so nothing but data ever passes between the host and the sandboxed code.
 */
import type { ConsoleLevel } from '../util/consoleLevel.js';

/** One atom's source, as stored. */
export interface SourceAtom {
  name: string;
  code: string;
}

export interface RunRequest {
  /** The entry atom and everything it calls, dependencies first (order only affects line numbers). */
  atoms: SourceAtom[];
  /** The atom to call; must be one of `atoms`. */
  entry: string;
  /** The call's arguments; must survive JSON (numbers, strings, booleans, arrays, plain objects, null). */
  args: unknown[];
  /** Wall-clock limit for the whole run, in milliseconds. */
  timeoutMs?: number;
  /** Limit on the sandbox's whole memory (heap, stack and engine), in bytes. */
  memoryBytes?: number;
}

export interface LogEntry {
  level: ConsoleLevel;
  text: string;
}

export interface RunError {
  /** `TypeError`, `SyntaxError`, … as thrown, or `TimeoutError` / `MemoryError` / `StackOverflowError` for the limits. */
  name: string;
  message: string;
  /** The atom the error was thrown in, when it was thrown in one. */
  atom?: string;
  /** The line inside that atom's own code (1-based). */
  line?: number;
  /** The sandbox's stack, mapped to atoms and their own lines. */
  stack?: string[];
}

/** What the browser stubs (stubs.ts) saw during a run; present only when the run touched them. */
export interface StubReport {
  /** The stubs read, in order of first use: document, window, canvas 2D, localStorage, performance, requestAnimationFrame. */
  used: string[];
  /** Calls on canvas 2D contexts: the total, per method, and the first texts drawn with fillText. */
  canvas: { calls: number; methods: Record<string, number>; texts: string[] };
  /** `target type` of each listener added (they never fire). */
  listeners: string[];
  /** requestAnimationFrame calls (their callbacks are not run). */
  animationFrames: number;
  /** Keys in localStorage when the run ended. */
  storedKeys: number;
}

export type RunOutcome =
  | { ok: true; value: unknown; logs: LogEntry[]; ms: number; stubs?: StubReport }
  | { ok: false; error: RunError; logs: LogEntry[]; ms: number; stubs?: StubReport };

export const LIMITS = {
  defaultTimeoutMs: 2_000,
  minTimeoutMs: 10,
  maxTimeoutMs: 30_000,
  /** The QuickJS build needs 16 MiB to start; a little more leaves room for the atoms. */
  minMemoryBytes: 24 * 1024 * 1024,
  defaultMemoryBytes: 64 * 1024 * 1024,
  maxMemoryBytes: 512 * 1024 * 1024,
  /**
   * The engine's own stack limit. WebAssembly frames run on the thread's native stack too, so
   * this stays well below the worker's stack (see sandbox.ts) and deep recursion ends inside
   * the engine as a clean error instead of crashing the thread.
   */
  maxStackBytes: 256 * 1024,
  /** Longest source accepted for one run (the atoms of a very deep call tree fit easily). */
  maxSourceBytes: 4 * 1024 * 1024,
  maxArgsBytes: 1024 * 1024,
  maxLogEntries: 200,
  maxLogText: 2_000,
  /** Longest JSON accepted as a result; larger results are reported as an error, not truncated. */
  maxResultBytes: 1024 * 1024,
} as const;
