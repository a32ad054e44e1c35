/**
 * How the model's process is started (useLite.ts's ModelProcess runs it): the script, the options
 * and the environment it gets, its priority; and the one process the command line's entry may
 * start before the rest of the program has loaded (`startModelProcessEarly`).
 *
 * Why early: an agent's first call is most often a search, whose query waits for the model's
 * cold start (~1 s). `serve` asked for it once its 2.3 MB had loaded (~0.3 s after the spawn);
 * dist/cli.js now forks it first (cliEntry.ts), and the provider adopts that process for its first
 * request (`takeEarlyModelProcess`). Kept small: dist/cli.js bundles this module, and everything
 * it imports is compiled at every start.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { availableParallelism, constants, setPriority } from 'node:os';
import { compileCacheEnv } from '../../util/compileCache.js';
import { HUGE_PAGES_ENV, NODE_FLAGS } from '../../util/nodeFlags.js';
import type { EmbedRuntime, WorkerConfig } from './messages.js';
import { onnxRuntimeShipped, tfjsWasmDir, useLiteModelDir, useLiteProcessScript } from './paths.js';

/**
 * The model processes' priority once they have answered (nice 10 on Linux and macOS, below normal
 * on Windows): a fresh clone's catch-up keeps every core busy for a minute or more, and the editor
 * (the workbench, the extension host, a webview being opened) comes first. The cold start before
 * the first answer keeps the caller's priority: someone waits for it (a search's query), and beside
 * the server's own open it lost a core to it (spawn to the first vector, 1,000 atoms: 1.20-1.27 s
 * niced against 1.09-1.12 s).
 */
export const MODEL_PRIORITY = constants.priority.PRIORITY_BELOW_NORMAL;

/** Most threads onnxruntime gets for a run: a run of 128 pieces took 16 ms on one, 9 on two (2 cores). */
const MAX_MODEL_THREADS = 2;

/** Whether the model's process will run the model on onnxruntime (where it ships and is not turned off). */
export function modelOnOnnxRuntime(options: { runtime?: EmbedRuntime; plainRuns?: boolean } = {}): boolean {
  return options.runtime !== 'tfjs' && !options.plainRuns && onnxRuntimeShipped();
}

/** What the model's process is told at its start (its first argument, JSON). */
export function modelWorkerConfig(
  options: { modelDir?: string; wasmDir?: string; textsPerCall?: number; plainRuns?: boolean; runtime?: EmbedRuntime; threads?: number } = {},
): WorkerConfig {
  const onnx = modelOnOnnxRuntime(options);
  return {
    modelDir: options.modelDir ?? useLiteModelDir(),
    wasmDir: options.wasmDir ?? tfjsWasmDir(),
    ...(options.textsPerCall ? { textsPerCall: options.textsPerCall } : {}),
    ...(options.plainRuns ? { plainRuns: true } : {}),
    ...(onnx ? { runtime: 'onnxruntime' as const, threads: options.threads ?? Math.min(MAX_MODEL_THREADS, availableParallelism()) } : { runtime: 'tfjs' as const }),
  };
}

/** Forks the model's process for `config`, at the caller's priority, its handles unref'd (it keeps nobody alive). */
export function forkModelProcess(config: WorkerConfig): ChildProcess {
  const script = useLiteProcessScript();
  const child = fork(script.file, [JSON.stringify(config)], {
    // Inside VS Code's extension host process.execPath is Electron (or code-server's node):
    // ELECTRON_RUN_AS_NODE makes it a plain Node, which is all the model needs.
    execPath: process.execPath,
    // Ours to start, even inside VS Code: a small young generation (util/nodeFlags.ts).
    execArgv: [...NODE_FLAGS, ...script.execArgv],
    // NODE_COMPILE_CACHE: its 2.3 MB script read compiled after the first start (util/compileCache.ts);
    // GLIBC_TUNABLES: huge pages for its weights' copies (HUGE_PAGES_ENV). Nothing else of
    // ours: the model needs none of the user's environment (tokens of their shell).
    env: { ...modelProcessEnv(), ...HUGE_PAGES_ENV, ELECTRON_RUN_AS_NODE: '1', ...compileCacheEnv() },
    // The child's stdout must never reach ours (the MCP stdio channel): both go to our stderr.
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    serialization: 'advanced',
  });
  setModelProcessRef(child, false);
  return child;
}

/** Whether `child` keeps this process alive: only while a request waits for it. */
export function setModelProcessRef(child: ChildProcess, ref: boolean): void {
  for (const h of [child, child.channel, child.stdout, child.stderr] as ({ ref?(): void; unref?(): void } | null | undefined)[]) {
    if (ref) h?.ref?.();
    else h?.unref?.();
  }
}

/**
 * Puts the process below normal priority (MODEL_PRIORITY); where the system refuses, it keeps its
 * own. On Linux a priority belongs to a thread, and the process's threads (onnxruntime's, which
 * share a run's products, and V8's) already run: each is lowered, not only the main one.
 */
export function lowerModelPriority(child: ChildProcess): void {
  if (child.pid === undefined) return;
  for (const id of processThreads(child.pid)) {
    try {
      setPriority(id, MODEL_PRIORITY);
    } catch {
      // kept at its priority (or gone meanwhile)
    }
  }
}

/** The ids of a process's threads (Linux: /proc/<pid>/task); elsewhere the process's own. */
function processThreads(pid: number): number[] {
  if (process.platform !== 'linux') return [pid];
  try {
    return readdirSync(`/proc/${pid}/task`).map(Number).filter(Number.isInteger);
  } catch {
    return [pid];
  }
}

/**
 * What the model's process inherits: only what Node and the operating system need to start a
 * process (the folder for temporary files, Windows' system folder) and whether we run bundled.
 * Like the sandbox's worker, it never sees the rest (API tokens, credentials of the user's shell).
 */
export function modelProcessEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const kept = new Set(['PATH', 'SYSTEMROOT', 'WINDIR', 'TEMP', 'TMP', 'TMPDIR', 'LANG', 'ATOMIC_BUNDLED']);
  const out: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) if (kept.has(key.toUpperCase())) out[key] = value;
  return out;
}

/**
 * The process started early, kept on `process` under a registered symbol: dist/cli.js and
 * dist/cli-main.js each bundle their own copy of this module, and this is what they share.
 */
const EARLY = Symbol.for('atomic-coding.early-model-process');

interface Early {
  config: string;
  child: ChildProcess;
}

type WithEarly = NodeJS.Process & { [EARLY]?: Early };

/**
 * Forks the model's process now, with the default configuration, for the provider to adopt at its
 * first request, and returns it (the one already started, if any). If nobody adopts it, it keeps
 * nobody alive and dies with this process (it exits when its channel closes).
 */
export function startModelProcessEarly(): ChildProcess {
  const holder = process as WithEarly;
  if (holder[EARLY]) return holder[EARLY].child;
  const config = modelWorkerConfig();
  // An error (the script missing) is the provider's to report when it starts its own.
  const child = forkModelProcess(config);
  child.on('error', () => {});
  holder[EARLY] = { config: JSON.stringify(config), child };
  return child;
}

/**
 * The process started early, if it runs with `config`, taken (only once); one started for another
 * configuration, or gone, is ended and forgotten.
 */
export function takeEarlyModelProcess(config: WorkerConfig): ChildProcess | undefined {
  const holder = process as WithEarly;
  const early = holder[EARLY];
  if (!early) return undefined;
  delete holder[EARLY];
  const { child } = early;
  const alive = child.exitCode === null && child.signalCode === null && child.connected;
  if (alive && early.config === JSON.stringify(config)) return child;
  if (alive) child.disconnect();
  return undefined;
}
