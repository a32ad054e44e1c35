/**
 * The host side of the sandbox: checks a run request, hands it to the worker thread and
 * enforces the deadline from outside as well.
 *
 * Inside the worker, QuickJS's interrupt handler stops JavaScript at the deadline and reports
 * where it was. A single long built-in operation (a huge sparse `Array.prototype.fill`, say)
 * does not check for interrupts, so the host also keeps a hard deadline a little later and
 * terminates the worker if the answer has not come; the next run starts a new one.
 */
import { Worker } from 'node:worker_threads';
import { errors } from '../atoms/errors.js';
import type { SettledRequest } from './engine.js';
import { workerScript } from './paths.js';
import { LIMITS, type LogEntry, type RunOutcome, type RunRequest } from './types.js';

/** Time on top of the run's own limit before the host gives up on the worker. */
const HARD_GRACE_MS = 1_500;
const STARTUP_LIMIT_MS = 20_000;
/** Runs waiting behind the current one; more than this is refused rather than queued forever. */
const MAX_WAITING = 16;
/** An idle worker is stopped after this long: in the editor it would otherwise hold its memory all session. */
const DEFAULT_IDLE_MS = 60_000;

export interface SandboxOptions {
  /** Stop the worker after this long without a run (default one minute); the next run starts a new one. */
  idleMs?: number;
}

type WorkerMessage =
  | { type: 'ready' }
  | { id: number; type: 'log'; entry: LogEntry }
  | { id: number; type: 'done'; outcome: RunOutcome }
  | { id: number; type: 'crash'; message: string };

export class AtomSandbox {
  /** The worker and the promise that it has loaded QuickJS; null until the first run, and after a kill. */
  private current: { worker: Worker; ready: Promise<Worker> } | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  private waiting = 0;
  private nextId = 1;
  private disposed = false;
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly idleMs: number;

  constructor(options: SandboxOptions = {}) {
    this.idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  }

  /** Whether a worker thread exists (running or idle). */
  get hasWorker(): boolean {
    return this.current !== null;
  }

  /** Runs the entry atom; resolves with the outcome (errors inside the sandbox are outcomes, not rejections). */
  async run(request: RunRequest): Promise<RunOutcome> {
    const settled = checkRequest(request);
    if (this.disposed) throw new Error('the sandbox has been shut down');
    if (this.waiting >= MAX_WAITING) throw errors.invalid(`the sandbox is busy with ${this.waiting} runs; try again when they finish`);
    this.waiting++;
    clearTimeout(this.idleTimer);
    const result = this.chain.then(() => this.runNow(settled));
    this.chain = result.catch(() => {});
    try {
      return await result;
    } finally {
      this.waiting--;
      if (this.waiting === 0) this.scheduleIdleStop();
    }
  }

  private scheduleIdleStop(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.waiting > 0 || !this.current) return;
      const worker = this.current.worker;
      this.current = null;
      void worker.terminate();
    }, this.idleMs);
    this.idleTimer.unref();
  }

  /** Stops the worker; runs in progress end with an error. */
  async dispose(): Promise<void> {
    this.disposed = true;
    clearTimeout(this.idleTimer);
    const current = this.current;
    this.current = null;
    await current?.worker.terminate();
  }

  private async runNow(request: SettledRequest): Promise<RunOutcome> {
    const worker = await this.start();
    const id = this.nextId++;
    const started = performance.now();
    const logs: LogEntry[] = [];
    return new Promise<RunOutcome>((resolve) => {
      const finish = (outcome: RunOutcome): void => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('exit', onExit);
        worker.off('error', onError);
        resolve(outcome);
      };
      const failed = (name: string, message: string): RunOutcome => ({
        ok: false,
        error: { name, message },
        logs,
        ms: Math.round(performance.now() - started),
      });
      const onMessage = (m: WorkerMessage): void => {
        if (!('id' in m) || m.id !== id) return;
        if (m.type === 'log') logs.push(m.entry);
        else if (m.type === 'done') finish(m.outcome);
        else finish(failed('SandboxError', `the sandbox failed: ${m.message}`));
      };
      const onExit = (): void => {
        this.forget(worker);
        finish(failed('SandboxError', 'the sandbox stopped unexpectedly during the run'));
      };
      const onError = (err: Error): void => {
        this.forget(worker);
        void worker.terminate();
        finish(failed('SandboxError', `the sandbox failed: ${err.message}`));
      };
      const timer = setTimeout(() => {
        this.forget(worker);
        void worker.terminate();
        finish(
          failed(
            'TimeoutError',
            `the run took longer than ${request.timeoutMs} ms and was stopped; it was inside a long built-in operation, so its sandbox was terminated`,
          ),
        );
      }, request.timeoutMs + HARD_GRACE_MS);
      worker.on('message', onMessage);
      worker.once('exit', onExit);
      worker.once('error', onError);
      worker.postMessage({ id, request });
    });
  }

  /** The next run starts a new worker. */
  private forget(worker: Worker): void {
    if (this.current?.worker === worker) this.current = null;
  }

  private start(): Promise<Worker> {
    if (this.current) return this.current.ready;
    const script = workerScript();
    const worker = new Worker(script.path, {
      execArgv: script.execArgv,
      // The engine needs none of the host's environment; keep secrets out of the thread altogether.
      env: {},
      // WebAssembly frames use this stack; it must be well above the engine's own limit (LIMITS.maxStackBytes).
      resourceLimits: { stackSizeMb: 8, maxOldGenerationSizeMb: 128 },
      // Stdout may be the MCP stdio channel: never let the worker write to it. The worker sends its
      // stdout to stderr itself (worker.ts), so this stream stays empty and is never read: reading
      // a worker's stdio stream holds the process open, which an idle sandbox must not do.
      stdout: true,
      // Left to Node, the worker's stderr is copied to ours without holding the process open.
      stderr: false,
    });
    worker.unref();
    const ready = new Promise<Worker>((resolve, reject) => {
      const timer = setTimeout(() => fail(new Error('the sandbox did not start in time')), STARTUP_LIMIT_MS);
      const fail = (err: Error): void => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        void worker.terminate();
        this.forget(worker);
        reject(err);
      };
      const onMessage = (m: WorkerMessage): void => {
        if (m.type === 'ready') {
          clearTimeout(timer);
          worker.off('message', onMessage);
          worker.off('error', fail);
          resolve(worker);
        } else if (m.type === 'crash') fail(new Error(m.message));
      };
      worker.on('message', onMessage);
      worker.once('error', fail);
    });
    this.current = { worker, ready };
    return ready;
  }
}

/** The request with its limits filled in; throws an `invalid_argument` AtomError saying what to fix. */
export function checkRequest(request: RunRequest): SettledRequest {
  if (!Array.isArray(request.atoms) || request.atoms.length === 0) throw errors.invalid('atoms must list at least the entry atom');
  let bytes = 0;
  for (const atom of request.atoms) {
    if (typeof atom?.name !== 'string' || typeof atom.code !== 'string') {
      throw errors.invalid('each atom to run needs a name and its code');
    }
    bytes += Buffer.byteLength(atom.code, 'utf8') + 1;
  }
  if (bytes > LIMITS.maxSourceBytes) throw errors.invalid(`the atoms to run are ${bytes} bytes (limit: ${LIMITS.maxSourceBytes})`);
  if (!request.atoms.some((a) => a.name === request.entry)) {
    throw errors.invalid(`the entry atom "${request.entry}" is not among the atoms to run`);
  }
  if (!Array.isArray(request.args)) throw errors.invalid('args must be an array: the arguments of the call, in order');
  let argsJson: string;
  try {
    argsJson = JSON.stringify(request.args);
  } catch (err) {
    throw errors.invalid(`args must be plain JSON values (${err instanceof Error ? err.message : String(err)})`);
  }
  if (argsJson.length > LIMITS.maxArgsBytes) throw errors.invalid(`args are ${argsJson.length} characters of JSON (limit: ${LIMITS.maxArgsBytes})`);
  const timeoutMs = request.timeoutMs ?? LIMITS.defaultTimeoutMs;
  if (!Number.isFinite(timeoutMs) || timeoutMs < LIMITS.minTimeoutMs || timeoutMs > LIMITS.maxTimeoutMs) {
    throw errors.invalid(`timeout must be between ${LIMITS.minTimeoutMs} and ${LIMITS.maxTimeoutMs} ms (got ${timeoutMs})`);
  }
  const memoryBytes = request.memoryBytes ?? LIMITS.defaultMemoryBytes;
  if (!Number.isFinite(memoryBytes) || memoryBytes < LIMITS.minMemoryBytes || memoryBytes > LIMITS.maxMemoryBytes) {
    throw errors.invalid(
      `memory limit must be between ${LIMITS.minMemoryBytes / 2 ** 20} and ${LIMITS.maxMemoryBytes / 2 ** 20} MiB (got ${(memoryBytes / 2 ** 20).toFixed(1)} MiB)`,
    );
  }
  return {
    atoms: request.atoms.map((a) => ({ name: a.name, code: a.code })),
    entry: request.entry,
    args: JSON.parse(argsJson) as unknown[],
    timeoutMs,
    memoryBytes,
  };
}

let shared: AtomSandbox | null = null;

/** Runs atoms in the process-wide sandbox (one worker, started on first use, never keeping the process alive). */
export function runAtom(request: RunRequest): Promise<RunOutcome> {
  shared ??= new AtomSandbox();
  return shared.run(request);
}
