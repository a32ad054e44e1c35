/**
 * One run of atoms inside QuickJS (quickjs-emscripten), isolated from the host.
 *
 * Every run gets a fresh WebAssembly instance with its own linear memory, capped by
 * `WebAssembly.Memory({ maximum })`. QuickJS's own memory limit is not enough under
 * emscripten: the build counts allocations, not bytes (malloc_usable_size is 0 there), and a
 * loop of large typed arrays grew the heap to 2 GB through it. The cap here is real bytes, and
 * dropping the instance after the run returns all of it.
 *
 * Nothing from the host is injected but `console`, whose functions turn their arguments into
 * text. (The browser stubs of stubs.ts, when the atoms name them, are JavaScript evaluated inside,
 * not host objects.) Arguments go in and the result comes out as JSON text parsed on the other side, so no
 * object, prototype or function is ever shared.
 */
import type { EmscriptenModuleLoader, QuickJSEmscriptenModule, QuickJSSyncVariant } from '@jitl/quickjs-ffi-types';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  RELEASE_SYNC,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
} from 'quickjs-emscripten';
import { CONSOLE_LEVELS, type ConsoleLevel } from '../util/consoleLevel.js';
import { joinAtoms, mapStack, PROGRAM_FILE, type Program } from './program.js';
import { needsStubs, parseStubReport, STUBS_FILE, STUBS_SOURCE } from './stubs.js';
import { LIMITS, type LogEntry, type RunError, type RunOutcome, type RunRequest, type StubReport } from './types.js';

const PAGE = 64 * 1024;
/** What the QuickJS build asks for at start (its INITIAL_MEMORY). */
const INITIAL_BYTES = 16 * 1024 * 1024;
/** Time allowed after the run for the stubs to hand over their record. */
const STUB_REPORT_MS = 100;

/**
 * RELEASE_SYNC, but loading the CommonJS build of its emscripten module. The stock variant uses
 * `import()`, which esbuild resolves to the ES module build; bundled into our CommonJS dist/ that
 * build reads `import.meta.url`, which is empty there, and fails to start. `require` picks the
 * CommonJS build, which works both bundled and from source.
 */
const VARIANT: QuickJSSyncVariant = {
  type: 'sync',
  importFFI: RELEASE_SYNC.importFFI,
  importModuleLoader: async () =>
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- require() selects the CommonJS build (see above)
    (require('@jitl/quickjs-wasmfile-release-sync/emscripten-module') as { default: EmscriptenModuleLoader<QuickJSEmscriptenModule> }).default,
};

/** A request whose limits have been filled in and checked (see checkRequest in sandbox.ts). */
export type SettledRequest = RunRequest & { timeoutMs: number; memoryBytes: number };

export class Engine {
  constructor(private readonly wasm: WebAssembly.Module) {}

  static async compile(bytes: Uint8Array<ArrayBuffer>): Promise<Engine> {
    return new Engine(await WebAssembly.compile(bytes));
  }

  async run(request: SettledRequest, onLog: (entry: LogEntry) => void = () => {}): Promise<RunOutcome> {
    const memory = new WebAssembly.Memory({
      initial: INITIAL_BYTES / PAGE,
      maximum: Math.floor(request.memoryBytes / PAGE),
    });
    const module = await newQuickJSWASMModuleFromVariant(newVariant(VARIANT, { wasmModule: this.wasm, wasmMemory: memory }));
    const runtime = module.newRuntime();
    runtime.setMaxStackSize(LIMITS.maxStackBytes);
    const run = new Run(runtime, memory, request, onLog);
    try {
      const outcome = run.execute();
      const stubs = run.readStubs();
      return stubs ? { ...outcome, stubs } : outcome;
    } finally {
      run.dispose();
    }
  }
}

/** The state of one run: the deadline, the console, the logs. */
class Run {
  private readonly context: QuickJSContext;
  private readonly program: Program;
  private readonly logs: LogEntry[] = [];
  private droppedLogs = 0;
  private deadline = 0;
  private timedOut = false;
  private started = 0;
  /** The stubs' report function, when they were installed (stubs.ts). */
  private stubReport: QuickJSHandle | null = null;

  constructor(
    private readonly runtime: QuickJSRuntime,
    private readonly memory: WebAssembly.Memory,
    private readonly request: SettledRequest,
    private readonly onLog: (entry: LogEntry) => void,
  ) {
    this.context = runtime.newContext();
    this.program = joinAtoms(request.atoms);
    runtime.setInterruptHandler(() => {
      if (performance.now() > this.deadline) this.timedOut = true;
      return this.timedOut;
    });
  }

  execute(): RunOutcome {
    const ctx = this.context;
    this.started = performance.now();
    this.deadline = this.started + this.request.timeoutMs;
    // Taken before any atom code runs, so an atom cannot swap the serializer used for its result.
    const json = ctx.getProp(ctx.global, 'JSON');
    const parse = ctx.getProp(json, 'parse');
    const stringify = ctx.getProp(json, 'stringify');
    try {
      this.installConsole();
      if (needsStubs(this.program.text)) {
        const stubs = ctx.evalCode(STUBS_SOURCE, STUBS_FILE, { strict: true });
        if (stubs.error) return this.fail(stubs.error);
        this.stubReport = stubs.value;
      }
      const loaded = ctx.evalCode(this.program.text, PROGRAM_FILE, { strict: true });
      if (loaded.error) return this.fail(loaded.error);
      loaded.value.dispose();

      const fn = ctx.getProp(ctx.global, this.request.entry);
      if (ctx.typeof(fn) !== 'function') {
        fn.dispose();
        return this.failWith({ name: 'ReferenceError', message: `${this.request.entry} is not a function in the sandbox` });
      }
      const argsText = ctx.newString(JSON.stringify(this.request.args));
      const parsed = ctx.callFunction(parse, ctx.undefined, argsText);
      argsText.dispose();
      if (parsed.error) {
        fn.dispose();
        return this.fail(parsed.error);
      }
      const args = this.spread(parsed.value);
      parsed.value.dispose();
      const called = ctx.callFunction(fn, ctx.undefined, ...args);
      for (const a of args) a.dispose();
      fn.dispose();
      if (called.error) return this.fail(called.error);

      const settled = this.settle(called.value);
      if ('error' in settled) return settled.error;
      return this.succeed(settled.value, stringify);
    } finally {
      json.dispose();
      parse.dispose();
      stringify.dispose();
    }
  }

  /** What the stubs saw, read after the run (the run's own deadline does not cut it short); undefined if none were touched. */
  readStubs(): StubReport | undefined {
    const report = this.stubReport;
    if (!report) return undefined;
    this.stubReport = null;
    try {
      if (this.timedOut) return undefined;
      this.deadline = performance.now() + STUB_REPORT_MS;
      const ctx = this.context;
      const text = ctx.callFunction(report, ctx.undefined);
      if (text.error) {
        text.error.dispose();
        return undefined;
      }
      const json = ctx.typeof(text.value) === 'string' ? ctx.getString(text.value) : '';
      text.value.dispose();
      return parseStubReport(json) ?? undefined;
    } catch {
      // After an out-of-memory the engine may not manage the call; the run's own outcome stands.
      return undefined;
    } finally {
      try {
        report.dispose();
      } catch {}
    }
  }

  dispose(): void {
    // The instance is dropped after the run whatever happens; freeing first only keeps QuickJS's
    // own bookkeeping tidy, and after an out-of-memory it may not manage, which is fine.
    try {
      this.stubReport?.dispose();
      this.context.dispose();
      this.runtime.dispose();
    } catch {}
  }

  private installConsole(): void {
    const ctx = this.context;
    const consoleObject = ctx.newObject();
    for (const level of CONSOLE_LEVELS) {
      const fn = ctx.newFunction(level, (...args) => {
        this.log(level, args.map((a) => this.describe(a)).join(' '));
      });
      ctx.setProp(consoleObject, level, fn);
      fn.dispose();
    }
    ctx.setProp(ctx.global, 'console', consoleObject);
    consoleObject.dispose();
  }

  private log(level: ConsoleLevel, text: string): void {
    if (this.logs.length >= LIMITS.maxLogEntries) {
      this.droppedLogs++;
      return;
    }
    const entry = { level, text: text.length > LIMITS.maxLogText ? `${text.slice(0, LIMITS.maxLogText)}… (truncated)` : text };
    this.logs.push(entry);
    this.onLog(entry);
  }

  /** A console argument as text: strings as they are, everything else as JSON where it can be. */
  private describe(handle: QuickJSHandle): string {
    const ctx = this.context;
    try {
      const type = ctx.typeof(handle);
      if (type === 'string') return ctx.getString(handle);
      if (type === 'function') return '[function]';
      if (type === 'object') {
        const error = this.errorFields(handle);
        if (error) return `${error.name}: ${error.message}`;
        const value = ctx.dump(handle);
        return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
      }
      return String(ctx.dump(handle));
    } catch {
      return '[unprintable]';
    }
  }

  /** Array elements as separate handles (the caller disposes them). */
  private spread(array: QuickJSHandle): QuickJSHandle[] {
    const ctx = this.context;
    const length = ctx.getProp(array, 'length');
    const n = ctx.getNumber(length);
    length.dispose();
    const out: QuickJSHandle[] = [];
    for (let i = 0; i < n; i++) out.push(ctx.getProp(array, i));
    return out;
  }

  /** Runs queued jobs until a returned promise settles; a plain value is already settled. */
  private settle(value: QuickJSHandle): { value: QuickJSHandle } | { error: RunOutcome } {
    const ctx = this.context;
    for (;;) {
      const state = ctx.getPromiseState(value);
      if (state.type === 'fulfilled') {
        if (state.notAPromise) return { value };
        value.dispose();
        return { value: state.value };
      }
      if (state.type === 'rejected') {
        value.dispose();
        return { error: this.fail(state.error) };
      }
      const jobs = this.runtime.executePendingJobs();
      if (jobs.error) {
        value.dispose();
        return { error: this.fail(jobs.error) };
      }
      if (jobs.value === 0) {
        value.dispose();
        return {
          error: this.failWith({
            name: 'Error',
            message: 'the atom returned a promise that never settled (the sandbox has no timers, network or I/O to wait for)',
          }),
        };
      }
    }
  }

  private succeed(result: QuickJSHandle, stringify: QuickJSHandle): RunOutcome {
    const ctx = this.context;
    const text = ctx.callFunction(stringify, ctx.undefined, result);
    result.dispose();
    if (text.error) return this.fail(text.error);
    const type = ctx.typeof(text.value);
    const json = type === 'string' ? ctx.getString(text.value) : undefined;
    text.value.dispose();
    if (json !== undefined && json.length > LIMITS.maxResultBytes) {
      return this.failWith({
        name: 'RangeError',
        message: `the result is ${json.length} characters of JSON (limit: ${LIMITS.maxResultBytes}); return something smaller`,
      });
    }
    return { ok: true, value: json === undefined ? undefined : JSON.parse(json), logs: this.finalLogs(), ms: this.elapsed() };
  }

  /** An outcome for a value thrown inside the sandbox; the handle is disposed. */
  private fail(thrown: QuickJSHandle): RunOutcome {
    let error: RunError;
    try {
      error = this.describeThrown(thrown);
    } finally {
      thrown.dispose();
    }
    return this.failWith(error);
  }

  private describeThrown(thrown: QuickJSHandle): RunError {
    const ctx = this.context;
    const fields = ctx.typeof(thrown) === 'object' ? this.errorFields(thrown) : null;
    if (this.timedOut) {
      const error: RunError = {
        name: 'TimeoutError',
        message: `the run took longer than ${this.request.timeoutMs} ms and was stopped (an endless loop?)`,
      };
      // QuickJS reports an interrupt at the start of the running function, not at the loop: name the
      // atom it was in, but no line or stack that would point at the wrong place.
      const at = fields?.stack ? mapStack(this.program, fields.stack).at : null;
      if (at) error.atom = at.atom;
      return error;
    }
    // Out of memory arrives as an InternalError, or as a bare value when even the error could not be allocated.
    if ((fields?.name === 'InternalError' && fields.message === 'out of memory') || (!fields && this.atMemoryLimit())) {
      const mb = (this.request.memoryBytes / (1024 * 1024)).toFixed(0);
      return this.withLocation({ name: 'MemoryError', message: `the run needed more than ${mb} MiB of memory and was stopped` }, fields?.stack);
    }
    if (fields?.name === 'InternalError' && fields.message === 'stack overflow') {
      return this.withLocation(
        { name: 'StackOverflowError', message: 'stack overflow: the calls nest too deeply (endless recursion?)' },
        fields.stack,
      );
    }
    if (fields) {
      const error: RunError = { name: fields.name, message: fields.message };
      if (fields.lineNumber !== undefined && fields.stack === undefined) {
        return this.withLocation(error, `at ${PROGRAM_FILE}:${fields.lineNumber}`);
      }
      return this.withLocation(error, fields.stack);
    }
    let shown: string;
    try {
      const value = ctx.dump(thrown);
      shown = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
    } catch {
      shown = 'a value that cannot be shown';
    }
    return { name: 'Error', message: `the atom threw ${shown}, not an Error` };
  }

  private withLocation(error: RunError, stack: string | undefined): RunError {
    if (!stack) return error;
    const mapped = mapStack(this.program, stack);
    if (mapped.at) {
      error.atom = mapped.at.atom;
      error.line = mapped.at.line;
    }
    if (mapped.frames.length > 0) error.stack = mapped.frames.slice(0, 20);
    return error;
  }

  /** name, message and stack of an Error-like object, or null for other objects. */
  private errorFields(handle: QuickJSHandle): { name: string; message: string; stack?: string; lineNumber?: number } | null {
    const ctx = this.context;
    const read = (key: string): string | number | undefined => {
      const h = ctx.getProp(handle, key);
      try {
        const t = ctx.typeof(h);
        if (t === 'string') return ctx.getString(h);
        if (t === 'number') return ctx.getNumber(h);
        return undefined;
      } finally {
        h.dispose();
      }
    };
    try {
      const name = read('name');
      const message = read('message');
      if (typeof name !== 'string' || typeof message !== 'string') return null;
      const stack = read('stack');
      const lineNumber = read('lineNumber');
      return {
        name,
        message,
        stack: typeof stack === 'string' ? stack : undefined,
        lineNumber: typeof lineNumber === 'number' ? lineNumber : undefined,
      };
    } catch {
      return null;
    }
  }

  private atMemoryLimit(): boolean {
    // Near the cap: the memory grows in steps, so a refused step can leave it a few MiB short.
    const margin = Math.max(4 * 1024 * 1024, this.request.memoryBytes / 10);
    return this.memory.buffer.byteLength + margin > this.request.memoryBytes;
  }

  private failWith(error: RunError): RunOutcome {
    return { ok: false, error, logs: this.finalLogs(), ms: this.elapsed() };
  }

  private finalLogs(): LogEntry[] {
    if (this.droppedLogs === 0) return this.logs;
    return [...this.logs, { level: 'warn', text: `… ${this.droppedLogs} more console lines not shown (limit: ${LIMITS.maxLogEntries})` }];
  }

  private elapsed(): number {
    return Math.round((performance.now() - this.started) * 100) / 100;
  }
}
