import { z } from 'zod';
import { errors } from '../../atoms/errors.js';
import { reachable, topologicalOrder } from '../../atoms/graph.js';
import type { Atom } from '../../atoms/model.js';
import { formatSignature } from '../../atoms/signature.js';
import { argumentProblems, returnProblems } from '../../atoms/ports.js';
import { nearestNames } from '../../atoms/unknownNames.js';
import { runAtom as runInSandbox } from '../../sandbox/sandbox.js';
import { describeStubs } from '../../sandbox/stubs.js';
import { LIMITS, type RunOutcome } from '../../sandbox/types.js';
import { atomRef } from '../schemas.js';
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
    'Use it to test an atom with its dependencies in a QuickJS sandbox: the value (checked against the outputs), ' +
    'console, time; a throw is an error result naming atom and line. document, window, localStorage are stubs.',
  input: {
    name: atomRef,
    args: z.array(z.unknown()).max(64).optional().describe('In call order'),
    check_args: z.boolean().optional().describe('false: run despite mismatched types'),
    state: z.record(z.string(), z.unknown()).optional().describe('{"game_state": {"score": 3}}: start with those in game_state.store'),
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
  async run({ name, args = [], check_args = true, state = {}, timeout_ms, memory_mb }, { workspace }) {
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
    const stateAtoms = Object.keys(state);
    // Checked here, not by the schema (tools/list stays small): a name is all the state code trusts.
    const missing = stateAtoms.filter((n) => !/^[a-z][a-z0-9_]*$/.test(n) || !store.has(n));
    if (missing.length > 0) throw errors.invalid(`state names atoms that do not exist: ${missing.join(', ')}. Its keys are the state atoms whose .store to fill`);
    const notObjects = stateAtoms.filter((n) => typeof state[n] !== 'object' || state[n] === null || Array.isArray(state[n]));
    if (notObjects.length > 0) throw errors.invalid(`state.${notObjects[0]} must be an object of the values to put in ${notObjects[0]}.store`);
    const graph = store.dependencyMap();
    const needed = new Set([name, ...reachable(graph, name)]);
    // A state atom the entry does not reach is loaded all the same, so the state has somewhere to go.
    for (const s of stateAtoms) for (const n of [s, ...reachable(graph, s)]) needed.add(n);
    const order = topologicalOrder(new Map([...needed].map((n) => [n, graph.get(n) ?? []]))).order;
    const outcome = await runInSandbox({
      atoms: [...order.map((n) => ({ name: n, code: (store.get(n) as Atom).code })), ...stateSetup(state)],
      entry: name,
      args,
      timeoutMs: timeout_ms,
      memoryBytes: memory_mb === undefined ? undefined : memory_mb * MiB,
    });
    const thrower = !outcome.ok && outcome.error.atom ? store.get(outcome.error.atom) : undefined;
    const outputProblems = outcome.ok ? returnProblems(target.outputs, outcome.value) : [];
    let text = formatOutcome(name, outcome, order.length, thrower ?? target, (n) => store.get(n) !== undefined, () => store.all().map((a) => a.name));
    if (outputProblems.length > 0) {
      const [first, ...rest] = text.split('\n');
      text = [first, `Warning: the value does not match the declared outputs ${formatSignature({ inputs: [], outputs: target.outputs }).slice('() => '.length)}: ${outputProblems.join('; ')}`, ...rest].join('\n');
    }
    const structured = { ...outcome, atoms_loaded: order, ...(outputProblems.length > 0 ? { output_problems: outputProblems } : {}) };
    // A run that threw or hit a limit is an error result, with the same text: a caller that only looks at isError is not told it worked.
    return { text, structured, isError: !outcome.ok };
  },
});

/**
 * The code that starts a run from a given state: each state atom's `.store` (the object a state atom
 * keeps on itself, as the instructions show) filled with the given values, after the atoms are declared
 * and before the call. The values pass through JSON, as arguments do.
 */
function stateSetup(state: Record<string, unknown>): { name: string; code: string }[] {
  const entries = Object.entries(state);
  if (entries.length === 0) return [];
  const text = JSON.stringify(state);
  if (Buffer.byteLength(text, 'utf8') > LIMITS.maxArgsBytes) throw errors.invalid(`state is ${Buffer.byteLength(text, 'utf8')} bytes as JSON (limit: ${LIMITS.maxArgsBytes})`);
  const lines = entries.map(([atom, values]) => `${atom}.store = Object.assign(${atom}.store || {}, JSON.parse(${JSON.stringify(JSON.stringify(values))}));`);
  return [{ name: '(state)', code: lines.join('\n') }];
}

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
