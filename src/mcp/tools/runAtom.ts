import { z } from 'zod';
import { errors } from '../../atoms/errors.js';
import { reachable, topologicalOrder } from '../../atoms/graph.js';
import type { Atom } from '../../atoms/model.js';
import { formatSignature } from '../../atoms/signature.js';
import { nearestNames } from '../../atoms/unknownNames.js';
import { argumentProblems } from '../../sandbox/ports.js';
import { runAtom as runInSandbox } from '../../sandbox/sandbox.js';
import { describeStubs } from '../../sandbox/stubs.js';
import { LIMITS, type RunOutcome } from '../../sandbox/types.js';
import { atomName } from '../schemas.js';
import { defineTool } from '../tool.js';

const MiB = 1024 * 1024;

/** Browser and Node globals an atom may reach for that the sandbox has no stub for. */
const MISSING_GLOBALS = new Set([
  'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'queueMicrotask', 'fetch', 'XMLHttpRequest', 'WebSocket',
  'Image', 'Audio', 'AudioContext', 'navigator', 'location', 'history', 'sessionStorage', 'indexedDB', 'alert', 'prompt',
  'confirm', 'self', 'screen', 'HTMLCanvasElement', 'KeyboardEvent', 'Event', 'process', 'require', 'module', 'Buffer',
]);

export const runAtom = defineTool({
  name: 'run_atom',
  title: 'Run an atom in a sandbox',
  description:
    'Use it to test an atom: calls it with its dependencies in a QuickJS sandbox (time and memory limits); returns the value, ' +
    'console and time, or the error with its atom and line. args must match the input types. document, window and localStorage ' +
    'are stubs (not a real DOM). Changes nothing.',
  input: {
    name: atomName,
    args: z.array(z.unknown()).max(64).optional().describe('In call order'),
    check_args: z.boolean().optional().describe('false: run despite mismatched types'),
    timeout_ms: z
      .number()
      .int()
      .min(LIMITS.minTimeoutMs)
      .max(LIMITS.maxTimeoutMs)
      .optional()
      .describe(`Default ${LIMITS.defaultTimeoutMs}`),
    memory_mb: z
      .number()
      .int()
      .min(LIMITS.minMemoryBytes / MiB)
      .max(LIMITS.maxMemoryBytes / MiB)
      .optional()
      .describe(`Default ${LIMITS.defaultMemoryBytes / MiB}`),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run({ name, args = [], check_args = true, timeout_ms, memory_mb }, { workspace }) {
    const store = workspace.atoms;
    const target = store.get(name);
    if (!target) throw errors.notFound(name);
    const problems = check_args ? argumentProblems(target.inputs, args) : [];
    if (problems.length > 0) {
      throw errors.invalid(
        `invalid arguments for run_atom: ${problems.join('; ')}. ${name} takes ${formatSignature(target)}: ` +
          'pass args of those types in that order, or check_args: false to run it anyway',
      );
    }
    const graph = store.dependencyMap();
    const needed = new Set([name, ...reachable(graph, name)]);
    const order = topologicalOrder(new Map([...needed].map((n) => [n, graph.get(n) ?? []]))).order;
    const outcome = await runInSandbox({
      atoms: order.map((n) => ({ name: n, code: (store.get(n) as Atom).code })),
      entry: name,
      args,
      timeoutMs: timeout_ms,
      memoryBytes: memory_mb === undefined ? undefined : memory_mb * MiB,
    });
    const thrower = !outcome.ok && outcome.error.atom ? store.get(outcome.error.atom) : undefined;
    const text = formatOutcome(name, outcome, order.length, thrower ?? target, (n) => store.get(n) !== undefined, () => store.all().map((a) => a.name));
    return { text, structured: { ...outcome, atoms_loaded: order } };
  },
});

/** `thrower` is the atom the error was thrown in (the entry when that is unknown): the hint is about its code. */
function formatOutcome(
  name: string,
  outcome: RunOutcome,
  atomCount: number,
  thrower: Atom,
  isAtom: (name: string) => boolean,
  atomNames: () => Iterable<string>,
): string {
  const lines: string[] = [];
  const loaded = `${atomCount} atom${atomCount === 1 ? '' : 's'} loaded`;
  if (outcome.ok) {
    lines.push(`${name} returned ${outcome.value === undefined ? 'undefined' : JSON.stringify(outcome.value)} in ${outcome.ms} ms (${loaded}).`);
  } else {
    const e = outcome.error;
    const where = e.atom ? ` in ${e.atom}${e.line !== undefined ? ` at line ${e.line}` : ''}` : '';
    lines.push(`${name} threw ${e.name}${where}: ${e.message} (after ${outcome.ms} ms; ${loaded}).`);
    const hint = hintFor(e.name, e.message, thrower, isAtom, atomNames);
    if (hint) lines.push(hint);
    if (e.stack && e.stack.length > 1) lines.push('Stack:', ...e.stack.map((f) => `  ${f}`));
  }
  if (outcome.stubs) lines.push(describeStubs(outcome.stubs));
  if (outcome.logs.length > 0) lines.push('Console:', ...outcome.logs.map((l) => `  [${l.level}] ${l.text}`));
  return lines.join('\n');
}

/** What to do about the errors an agent most often causes itself. */
function hintFor(name: string, message: string, thrower: Atom, isAtom: (name: string) => boolean, atomNames: () => Iterable<string>): string | undefined {
  const undefinedName = /^'?([A-Za-z_$][\w$]*)'? is not defined$/.exec(message)?.[1];
  if (name === 'ReferenceError' && undefinedName && MISSING_GLOBALS.has(undefinedName) && !isAtom(undefinedName)) {
    return `${undefinedName} does not exist in the sandbox (it stubs only document, window, localStorage, performance, requestAnimationFrame): pass what ${thrower.name} needs from it as an argument, or test the parts without it.`;
  }
  const near = name === 'ReferenceError' && undefinedName && !isAtom(undefinedName) ? nearestNames(undefinedName, atomNames()) : [];
  if (undefinedName && near.length > 0) {
    return `${undefinedName} is no atom: did you mean ${near.join(', ')}? Fix the call in ${thrower.name}.`;
  }
  if (name === 'ReferenceError' && undefinedName && /^[a-z][a-z0-9_]*$/.test(undefinedName)) {
    return `If ${undefinedName} is an atom, list it in dependencies of the atom that calls it (${thrower.name} declares [${thrower.dependencies.join(', ')}]).`;
  }
  if (name === 'TimeoutError') return 'Look for a loop whose condition never becomes false, or raise timeout_ms if the work is really that long.';
  return undefined;
}
