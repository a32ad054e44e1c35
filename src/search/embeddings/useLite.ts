/**
 * The default embedding provider: Universal Sentence Encoder lite (512 dimensions), whose
 * weights ship inside the extension, so it works offline straight after install.
 *
 * The model runs in a child process of its own, not a thread: loaded it holds ~200 MiB, and in
 * a thread that memory would belong to VS Code's extension host (shared by every extension) for
 * as long as the editor is open. The process starts on the first request, never at activation,
 * and ends after a few idle minutes; the next request starts it again. It dies with its parent
 * (it exits when its IPC channel closes), and its memory is reported apart (`memory()`).
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { EmbedderMemory, EmbeddingProvider } from './provider.js';
import type { EmbedRequest, EmbedResponse, EmbedRuntime } from './messages.js';
import { forkModelProcess, lowerModelPriority, modelOnOnnxRuntime, modelWorkerConfig, setModelProcessRef, takeEarlyModelProcess } from './modelProcess.js';

export const USE_LITE_MODEL_ID = 'use-lite-512@energetic-ai-0.2.0';

/** How long the model's process may sit idle before it is ended (ATOMIC_EMBED_IDLE_MS overrides). */
export const DEFAULT_IDLE_MS = 5 * 60_000;

export interface UseLiteOptions {
  /** Folder with model.json, the weight shards and vocab.json; defaults to the shipped model. */
  modelDir?: string;
  /** Folder with the tfjs wasm binaries; defaults to the shipped ones. */
  wasmDir?: string;
  /**
   * Milliseconds without a request after which the model's process is ended (its memory given
   * back); the next request starts it again (a few seconds to load the model). Default: the
   * environment's ATOMIC_EMBED_IDLE_MS, else 5 minutes.
   */
  idleMs?: number;
  /**
   * How many model processes may run at once: a backlog's large requests are split across them,
   * one core each. Default: the environment's ATOMIC_EMBED_PROCESSES, else 1 where onnxruntime runs
   * the model (its threads share each run across the cores), else 2 where there are 2 cores or
   * more, else 1. The ones after the first start only for a large request and end after
   * HELPER_IDLE_MS idle (each holds its own copy of the model, ~200 MiB).
   */
  processes?: number;
  /** Texts a model run in the model's process (default 8); for measuring (test/bench/embed.bench.ts). */
  textsPerCall?: number;
  /** Model runs as before issue 38's second pass (WorkerConfig.plainRuns); for measuring (test/bench/embed.bench.ts). */
  plainRuns?: boolean;
  /** 'tfjs' keeps the model on tfjs where onnxruntime would run it (WorkerConfig.runtime); for measuring. */
  runtime?: EmbedRuntime;
}

/** Most processes the default allows: the backlog's gain stops at the cores, and each is ~200 MiB. */
const MAX_DEFAULT_PROCESSES = 2;
/** A request of at least this many texts a process is split across the processes. */
const SPLIT_MIN_TEXTS = 2;
/** The processes after the first give their memory back sooner: they serve only backlogs. */
const HELPER_IDLE_MS = 30_000;

/**
 * USE-lite in one or more child processes (ModelProcess). A request of a few texts (a query)
 * goes to the process with the least work queued; a larger one (a backlog's batch) is split
 * across the processes, which work on a core each.
 */
export class UseLiteProvider implements EmbeddingProvider {
  readonly modelId = USE_LITE_MODEL_ID;
  readonly dimensions = 512;
  private readonly processes: ModelProcess[];
  private disposed = false;

  constructor(options: UseLiteOptions = {}) {
    const idleMs = options.idleMs ?? idleFromEnvironment();
    const count = Math.max(1, Math.floor(options.processes ?? processesFromEnvironment(modelOnOnnxRuntime(options))));
    this.processes = Array.from({ length: count }, (_, i) => new ModelProcess(options, i === 0 ? idleMs : Math.min(idleMs, HELPER_IDLE_MS)));
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (this.disposed) throw new Error('the embedding provider was disposed');
    if (texts.length === 0) return [];
    const n = this.processes.length;
    if (n === 1 || texts.length < SPLIT_MIN_TEXTS * n) {
      const least = this.processes.reduce((a, b) => (b.queuedTexts < a.queuedTexts || (b.queuedTexts === a.queuedTexts && b.running && !a.running) ? b : a));
      return least.embed(texts);
    }
    // In order, a slice each: each process runs its texts of like length together itself (useLiteWorker.ts).
    const size = Math.ceil(texts.length / n);
    const parts = await Promise.all(this.processes.map((p, i) => p.embed(texts.slice(i * size, (i + 1) * size))));
    return parts.flat();
  }

  /** Starts the first model process (it loads the model at once), ended when idle as after a request. */
  warm(): void {
    if (!this.disposed) this.processes[0]!.warm();
  }

  /** The first model process's id while it runs (tests, diagnostics). */
  get pid(): number | undefined {
    return this.processes[0]!.pid;
  }

  /** The model processes' memory together, apart from the server's (get_status may show it); pid: the first's. */
  memory(): EmbedderMemory {
    const running = this.processes.map((p) => p.memory()).filter((m) => m.running);
    if (running.length === 0) return { running: false };
    const sum = (key: 'rssBytes' | 'peakBytes') => (running.every((m) => m[key] !== undefined) ? running.reduce((s, m) => s + m[key]!, 0) : undefined);
    const runtime = running.find((m) => m.runtime)?.runtime;
    return { running: true, pid: this.processes[0]!.pid ?? running[0]!.pid, rssBytes: sum('rssBytes'), peakBytes: sum('peakBytes'), ...(runtime ? { runtime } : {}) };
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await Promise.all(this.processes.map((p) => p.dispose()));
  }
}

interface Pending {
  resolve(vectors: Float32Array[]): void;
  reject(err: Error): void;
}

/** One model process: started on its first request, ended after `idleMs` idle. */
class ModelProcess {
  private child: ChildProcess | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private disposed = false;
  private idleTimer: NodeJS.Timeout | undefined;
  private lastRss: number | undefined;
  /** Whether the running child has answered once (its cold start is over: it is lowered then). */
  private answered = false;
  /** Texts sent and not answered yet: where the provider sends a query. */
  queuedTexts = 0;
  /** What ran the model at the last answer. */
  runtime: EmbedRuntime | undefined;
  /** Ends the child when this process exits normally (a killed parent is covered by the child itself). */
  private readonly killOnExit = () => this.child?.kill('SIGKILL');

  constructor(
    private readonly options: UseLiteOptions,
    private readonly idleMs: number,
  ) {}

  get running(): boolean {
    return this.child !== undefined;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (this.disposed) throw new Error('the embedding provider was disposed');
    if (texts.length === 0) return [];
    const child = this.ensureChild();
    this.clearIdle();
    const id = this.nextId++;
    const request: EmbedRequest = { id, texts: [...texts] };
    this.queuedTexts += texts.length;
    const answered = () => (this.queuedTexts -= texts.length);
    return new Promise<Float32Array[]>((resolve, reject) => {
      this.pending.set(id, {
        resolve: (v) => (answered(), resolve(v)),
        reject: (e) => (answered(), reject(e)),
      });
      setModelProcessRef(child, true);
      child.send(request, (err) => {
        if (err) this.crashed(child, err.message);
      });
    });
  }

  /** Starts the process unless it runs; it ends after idleMs without a request, as after one. */
  warm(): void {
    if (this.disposed || this.child) return;
    this.ensureChild();
    this.startIdle();
  }

  /** The model's process id while it runs (tests, diagnostics). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The model's process memory, apart from the server's (get_status may show it). */
  memory(): EmbedderMemory {
    const child = this.child;
    if (!child?.pid) return { running: false };
    const status = procStatus(child.pid);
    return { running: true, pid: child.pid, rssBytes: status.rss ?? this.lastRss, peakBytes: status.peak, ...(this.runtime ? { runtime: this.runtime } : {}) };
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.clearIdle();
    this.failAll(new Error('the embedding provider was disposed'));
    await this.stop();
  }

  private ensureChild(): ChildProcess {
    if (this.child) return this.child;
    const config = modelWorkerConfig(this.options);
    // The command line's entry may have started it already (modelProcess.ts); else now. Unref'd:
    // an idle child must not keep this process (CLI, tests) alive; it is ref'd while a request waits.
    const child = takeEarlyModelProcess(config) ?? forkModelProcess(config);
    this.answered = false;
    child.stdout?.on('data', (d: Buffer) => process.stderr.write(d));
    child.stderr?.on('data', (d: Buffer) => process.stderr.write(d));
    child.on('message', (response: EmbedResponse) => this.settle(child, response));
    child.on('error', (err) => this.crashed(child, err.message));
    child.on('exit', (code, signal) => this.crashed(child, signal ? `it was ended by ${signal}` : `it exited with code ${code}`));
    process.once('exit', this.killOnExit);
    this.child = child;
    return child;
  }

  private settle(child: ChildProcess, response: EmbedResponse): void {
    if (!this.answered) {
      // Warm now: below normal priority from here on (MODEL_PRIORITY).
      this.answered = true;
      lowerModelPriority(child);
    }
    if (response.rss !== undefined) this.lastRss = response.rss;
    const waiting = this.pending.get(response.id);
    if (!waiting) return;
    this.pending.delete(response.id);
    if (this.pending.size === 0) {
      setModelProcessRef(child, false);
      this.startIdle();
    }
    if ('error' in response) {
      waiting.reject(
        new Error(`the embedding model failed: ${response.error}. Reinstall the extension if its files are damaged.`),
      );
    } else {
      this.runtime = response.runtime;
      waiting.resolve(response.vectors);
    }
  }

  private crashed(child: ChildProcess, reason: string): void {
    if (this.child !== child) return;
    // The next request starts a fresh process.
    this.forget(child);
    this.failAll(new Error(`the embedding process stopped (${reason}) before answering; the next search starts it again (if it keeps stopping, its messages in this log say why; reinstalling the extension restores damaged model files)`));
  }

  private forget(child: ChildProcess): void {
    if (this.child !== child) return;
    this.child = undefined;
    this.lastRss = undefined;
    this.runtime = undefined;
    this.clearIdle();
    process.removeListener('exit', this.killOnExit);
  }

  /** Ends the child (idle, or disposed) and waits for it to be gone. */
  private async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.forget(child);
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // Whoever awaits this must not see the event loop end first (the idle child is unref'd).
    child.ref();
    // Closing the channel makes it exit by itself; a kill covers a child stuck in a computation.
    if (child.connected) child.disconnect();
    const force = setTimeout(() => child.kill('SIGKILL'), 2000);
    force.unref();
    await exited;
    clearTimeout(force);
  }

  private startIdle(): void {
    this.clearIdle();
    if (!Number.isFinite(this.idleMs)) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.pending.size === 0) void this.stop();
    }, this.idleMs);
    this.idleTimer.unref();
  }

  private clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  private failAll(err: Error): void {
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const p of waiting) p.reject(err);
  }
}

/** ATOMIC_EMBED_PROCESSES, else one process on onnxruntime (its threads take the cores), else one a core up to MAX_DEFAULT_PROCESSES. */
function processesFromEnvironment(onnx: boolean): number {
  const value = Number(process.env.ATOMIC_EMBED_PROCESSES);
  if (Number.isInteger(value) && value >= 1) return value;
  return onnx ? 1 : Math.min(MAX_DEFAULT_PROCESSES, availableParallelism());
}

function idleFromEnvironment(): number {
  const raw = process.env.ATOMIC_EMBED_IDLE_MS;
  const value = raw === undefined ? NaN : Number(raw);
  return Number.isFinite(value) && value >= 0 ? value : DEFAULT_IDLE_MS;
}

/** VmRSS and VmHWM of a process (Linux /proc), in bytes; empty elsewhere. */
function procStatus(pid: number): { rss?: number; peak?: number } {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => {
      const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(text);
      return m ? Number(m[1]) * 1024 : undefined;
    };
    return { rss: kb('VmRSS'), peak: kb('VmHWM') };
  } catch {
    return {};
  }
}
