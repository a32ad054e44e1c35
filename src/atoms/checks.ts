/**
 * Checks: an atom's examples and its test atoms, what a change touches and how a run is judged. Pure;
 * the runner (src/verify/) runs them in the sandbox after every change and keeps the latest results.
 *
 * A change of atom X touches the checks of X and of every atom that depends on X, directly or not
 * (their behaviour may change with X's): their examples, and the test atoms among them.
 */
import { formatExample, sameJson } from './examples.js';
import type { Atom, AtomExample } from './model.js';

/** One example of an atom, or one test atom. */
export interface CheckResult {
  atom: string;
  kind: 'example' | 'test';
  /** The example's place in the atom's list (0 for a test). */
  index: number;
  /** `math_clamp(5, 0, 3) => 3` for an example, the atom's name for a test. */
  label: string;
  ok: boolean;
  /** Why it failed, in a sentence an agent acts on; absent when it passed. */
  message?: string;
  /** Where it failed: the atom the error was thrown in and the line inside that atom's code. */
  at?: { atom: string; line: number };
  ms: number;
}

/** Whether an atom has checks of its own: examples, or it is a test. */
export function hasChecks(atom: Pick<Atom, 'type' | 'examples'>): boolean {
  return atom.type === 'test' || (atom.examples?.length ?? 0) > 0;
}

/**
 * The atoms whose checks a change of `changed` touches: those of them with checks, and every atom with
 * checks that depends on one of them. Sorted by name. `usersOf`: the atoms that list a name as a
 * dependency (the store keeps them, so a write walks only what depends on it, not the whole graph).
 */
export function atomsToCheck(changed: Iterable<string>, usersOf: (name: string) => readonly string[], get: (name: string) => Atom | undefined): string[] {
  const seen = new Set<string>();
  const queue = [...changed];
  while (queue.length > 0) {
    const name = queue.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    for (const user of usersOf(name)) queue.push(user);
  }
  const out: string[] = [];
  for (const n of seen) {
    const atom = get(n);
    if (atom !== undefined && hasChecks(atom)) out.push(n);
  }
  return out.sort();
}

/** What a run gave: the value, or the error (as the sandbox reports it). */
export type RunResult = { ok: true; value: unknown } | { ok: false; name: string; message: string; at?: { atom: string; line: number } };

/** Judges one example's run; `message` says what was expected and what came. */
export function judgeExample(atom: string, example: AtomExample, run: RunResult): { ok: boolean; message?: string } {
  const call = formatExample(atom, example).replace(/ (=>|throws) .*$/, '');
  if (example.throws !== undefined) {
    if (!run.ok && run.message.includes(example.throws)) return { ok: true };
    return {
      ok: false,
      message: run.ok
        ? `${call} returned ${show(run.value)}, expected it to throw an error containing ${JSON.stringify(example.throws)}`
        : `${call} threw ${run.name}: ${run.message}${where(run.at)}, expected an error containing ${JSON.stringify(example.throws)}`,
    };
  }
  if (!run.ok) return { ok: false, message: `${call} threw ${run.name}: ${run.message}${where(run.at)}, expected ${show(example.returns ?? null)}` };
  if (sameJson(run.value, example.returns ?? null)) return { ok: true };
  return { ok: false, message: `${call} returned ${show(run.value)}, expected ${show(example.returns ?? null)}` };
}

/** Judges a test atom's run: it passes unless it throws. */
export function judgeTest(atom: string, run: RunResult): { ok: boolean; message?: string } {
  if (run.ok) return { ok: true };
  return { ok: false, message: `${atom} threw ${run.name}: ${run.message}${where(run.at)}` };
}

function where(at: { atom: string; line: number } | undefined): string {
  return at ? ` (in ${at.atom} at line ${at.line})` : '';
}

function show(value: unknown): string {
  if (value === undefined) return 'undefined';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/**
 * The lines a write's answer (and a test run) ends with: `Examples: 3 passed.`, `Tests: 1 failed: ...`.
 * Empty when no check ran. At most `listed` failures are spelled out.
 */
export function checkLines(results: readonly CheckResult[], listed = 5): string[] {
  const lines: string[] = [];
  for (const kind of ['example', 'test'] as const) {
    const of = results.filter((r) => r.kind === kind);
    if (of.length === 0) continue;
    const failed = of.filter((r) => !r.ok);
    const title = kind === 'example' ? 'Examples' : 'Tests';
    if (failed.length === 0) {
      lines.push(`${title}: ${of.length} passed.`);
      continue;
    }
    const passed = of.length - failed.length;
    const shown = failed.slice(0, listed).map((r) => (kind === 'example' ? `${r.atom}: ${r.message}` : r.message));
    if (failed.length > listed) shown.push(`and ${failed.length - listed} more`);
    lines.push(`${title}: ${passed > 0 ? `${passed} passed, ` : ''}${failed.length} FAILED: ${shown.join('; ')}.`);
  }
  return lines;
}

/** A sentence for the tree: `✗ 1 of 3 examples failing`, `✓ 3 examples`, `✓ test passed`; undefined without results. */
export function checksVerdict(results: readonly CheckResult[]): { ok: boolean; text: string } | undefined {
  if (results.length === 0) return undefined;
  const failed = results.filter((r) => !r.ok).length;
  if (results[0]!.kind === 'test') return failed ? { ok: false, text: '✗ test failing' } : { ok: true, text: '✓ test passed' };
  const n = results.length;
  const noun = n === 1 ? 'example' : 'examples';
  if (failed === 0) return { ok: true, text: `✓ ${n} ${noun}` };
  return { ok: false, text: failed === n ? `✗ ${n === 1 ? '1 example' : `all ${n} examples`} failing` : `✗ ${failed} of ${n} examples failing` };
}
