/**
 * The checks, run: every example and every test atom, in the sandbox, after every change that
 * reaches them (whoever made it: a tool, an editor save, a file edited in atoms/), and on demand
 * (the test_atoms tool, VS Code's Test Explorer, `atomic-coding test`). One runner, four faces.
 *
 * It follows the store's announcements: a changed atom marks its own checks and those of every atom
 * that depends on it; a short moment later (or at once when a write's answer waits for them, `settle`)
 * the marked checks run, one at a time, in a sandbox of their own (run_atom's runs do not queue behind
 * them). The latest result of every check is kept, and announced, for get_status, the tree, the
 * Problems panel and the Test Explorer. A failing check never blocks a write: it is reported.
 */
import { atomsToCheck, hasChecks, judgeExample, judgeTest, type CheckResult, type RunResult } from '../atoms/checks.js';
import { reachable, topologicalOrder } from '../atoms/graph.js';
import type { Atom } from '../atoms/model.js';
import { AtomSandbox } from '../sandbox/sandbox.js';
import type { RunOutcome, SourceAtom } from '../sandbox/types.js';
import type { AtomReader, StoreChange } from '../store/reader.js';
import { Emitter, type Disposable, type Event } from '../util/event.js';
import { silentLogger, type Logger } from '../util/log.js';

/** What a test atom calls to fail with a message, unless the workspace has an atom of that name. */
export const ASSERT_ATOM: SourceAtom = {
  name: 'assert',
  code: "function assert(condition, message) { if (!condition) throw new Error(message === undefined ? 'assertion failed' : String(message)); }",
};

/** How long after a change the marked checks run when no one waits for them. */
const QUIET_MS = 150;

export interface CheckSummary {
  examples: number;
  tests: number;
  /** Every failing check, by atom name. */
  failing: CheckResult[];
  /** Checks marked and not yet run. */
  pending: number;
}

export class Verification implements Disposable {
  private readonly latest = new Map<string, CheckResult[]>();
  private readonly marked = new Set<string>();
  /**
   * Atoms changed since the checks were last marked: what they touch (them and every atom that uses
   * them, transitively) is worked out once per batch, when the checks run. Per change it was a walk of
   * the change's whole cone of users each time: a fresh clone of 10,000 atoms, imported one change per
   * atom, spent 25 of its 45 s of open there.
   */
  private readonly changed = new Set<string>();
  private readonly changes = new Emitter<readonly string[]>();
  private readonly sandbox = new AtomSandbox();
  private readonly subscription: Disposable;
  private chain: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private disposed = false;

  private readonly usersOf = (name: string): readonly string[] => this.atoms.dependents(name);

  /** Fired with the atoms whose results changed (or went away). */
  readonly onDidChange: Event<readonly string[]> = this.changes.event;

  constructor(
    private readonly atoms: AtomReader,
    onStoreChange: Event<StoreChange>,
    private readonly log: Logger = silentLogger,
  ) {
    this.subscription = onStoreChange((change) => this.follow(change));
  }

  /** Marks every atom with checks (at open: nothing has run yet) and runs them in the background. */
  checkAll(): void {
    for (const atom of this.atoms.all()) if (hasChecks(atom)) this.marked.add(atom.name);
    this.schedule();
  }

  private follow(change: StoreChange): void {
    if (change.kind === 'reload') return this.checkAll();
    if (change.kind === 'delete' && this.latest.delete(change.atom.name)) this.changes.fire([change.atom.name]);
    this.changed.add(change.atom.name);
    this.schedule();
  }

  /** Marks the checks the changes since the last time touch. */
  private markChanged(): void {
    if (this.changed.size === 0) return;
    for (const name of atomsToCheck(this.changed, this.usersOf, (n) => this.atoms.get(n))) this.marked.add(name);
    this.changed.clear();
  }

  private schedule(): void {
    if (this.disposed || (this.marked.size === 0 && this.changed.size === 0) || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.settle().catch((err) => this.log.warn(`checks: ${(err as Error).message}`));
    }, QUIET_MS);
    this.timer.unref?.();
  }

  /** Runs every marked check now (after those already running); resolves when none is left. */
  settle(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const run = this.chain.then(async () => {
      for (this.markChanged(); this.marked.size > 0 && !this.disposed; this.markChanged()) {
        const names = [...this.marked].sort();
        this.marked.clear();
        const touched: string[] = [];
        for (const name of names) {
          const atom = this.atoms.get(name);
          const results = atom && hasChecks(atom) ? await this.runChecksOf(atom) : [];
          if (results.length > 0) this.latest.set(name, results);
          else this.latest.delete(name);
          touched.push(name);
        }
        if (touched.length > 0) this.changes.fire(touched);
      }
    });
    this.chain = run.catch(() => {});
    return run;
  }

  /**
   * The checks of `names` and of every atom that depends on them, run now; all checks when `names` is
   * undefined. Resolves with their results, by atom name.
   */
  async run(names?: readonly string[]): Promise<CheckResult[]> {
    const targets = names
      ? atomsToCheck(names, this.usersOf, (n) => this.atoms.get(n))
      : this.atoms.all().filter(hasChecks).map((a) => a.name);
    for (const name of targets) this.marked.add(name);
    await this.settle();
    return targets.flatMap((n) => this.latest.get(n) ?? []);
  }

  /** The latest results of one atom's checks (empty: none, or not run yet). */
  resultsOf(name: string): readonly CheckResult[] {
    return this.latest.get(name) ?? [];
  }

  /** The results of the checks a change of `names` touched, as they are now. */
  touchedBy(names: readonly string[]): CheckResult[] {
    return atomsToCheck(names, this.usersOf, (n) => this.atoms.get(n)).flatMap((n) => this.latest.get(n) ?? []);
  }

  summary(): CheckSummary {
    let examples = 0;
    let tests = 0;
    const failing: CheckResult[] = [];
    for (const results of this.latest.values()) {
      for (const r of results) {
        if (r.kind === 'example') examples++;
        else tests++;
        if (!r.ok) failing.push(r);
      }
    }
    this.markChanged(); // changes not yet worked out count as the checks they touch
    return { examples, tests, failing, pending: this.marked.size };
  }

  private async runChecksOf(atom: Atom): Promise<CheckResult[]> {
    const program = this.programOf(atom);
    if (atom.type === 'test') {
      const run = await this.call(program, atom.name, []);
      return [{ atom: atom.name, kind: 'test', index: 0, label: atom.name, ...judgeTest(atom.name, run.result), ...at(run.result), ms: run.ms }];
    }
    const results: CheckResult[] = [];
    for (const [index, example] of (atom.examples ?? []).entries()) {
      const run = await this.call(program, atom.name, example.args);
      const verdict = judgeExample(atom.name, example, run.result);
      results.push({ atom: atom.name, kind: 'example', index, label: `example ${index + 1}`, ...verdict, ...(verdict.ok ? {} : at(run.result)), ms: run.ms });
    }
    return results;
  }

  /** The atom and everything it calls, dependencies first; `assert` for tests when no atom has the name. */
  private programOf(atom: Atom): SourceAtom[] {
    const graph = this.atoms.dependencyMap();
    const needed = new Set([atom.name, ...reachable(graph, atom.name)]);
    const order = topologicalOrder(new Map([...needed].map((n) => [n, graph.get(n) ?? []]))).order;
    const atoms: SourceAtom[] = order.map((n) => this.atoms.get(n)).filter((a): a is Atom => a !== undefined).map((a) => ({ name: a.name, code: a.code }));
    if (!needed.has('assert') && !this.atoms.has('assert')) atoms.unshift(ASSERT_ATOM);
    return atoms;
  }

  private async call(atoms: SourceAtom[], entry: string, args: unknown[]): Promise<{ result: RunResult; ms: number }> {
    let outcome: RunOutcome;
    try {
      outcome = await this.sandbox.run({ atoms, entry, args });
    } catch (err) {
      return { result: { ok: false, name: 'Error', message: (err as Error).message }, ms: 0 };
    }
    if (outcome.ok) return { result: { ok: true, value: outcome.value }, ms: outcome.ms };
    const e = outcome.error;
    // A failed assert is the caller's failure: its line is the one to show, not assert's own.
    const frames = e.atom === ASSERT_ATOM.name && atoms[0] === ASSERT_ATOM ? callerFrame(e.stack ?? []) : undefined;
    const atAtom = frames?.atom ?? e.atom;
    const atLine = frames?.line ?? e.line;
    const where = atAtom && atLine !== undefined ? { at: { atom: atAtom, line: atLine } } : {};
    return { result: { ok: false, name: e.name, message: e.message, ...where }, ms: outcome.ms };
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
    this.subscription.dispose();
    this.changes.dispose();
    void this.sandbox.dispose();
  }
}

/** The first frame of the stack that is not in the test helper `assert`: `at name (name:4:3)`. */
function callerFrame(stack: readonly string[]): { atom: string; line: number } | undefined {
  for (const frame of stack) {
    const m = /\(([a-z][a-z0-9_]*):(\d+)(?::\d+)?\)/.exec(frame);
    if (m && m[1] !== ASSERT_ATOM.name) return { atom: m[1]!, line: Number(m[2]) };
  }
  return undefined;
}

function at(result: RunResult): { at?: { atom: string; line: number } } {
  return !result.ok && result.at ? { at: result.at } : {};
}
