/**
 * An atom's examples: calls with the value they must return (or the error they must throw), held to
 * the atom's ports when written, kept with the atom, written as JSDoc `@example` lines in its document
 * and file, and run by the checks (verify/) whenever the atom or anything it depends on changes.
 *
 * The text form, one line each, round-trips through JSON:
 *   @example math_clamp(5, 0, 3) => 3
 *   @example parse_color("nope") throws "not a colour"
 */
import { errors } from './errors.js';
import type { AtomExample, Port } from './model.js';
import { argumentProblems, returnProblem } from './ports.js';

/** At most this many examples an atom, and this many bytes of JSON for all of them. */
export const MAX_EXAMPLES = 16;
export const MAX_EXAMPLES_BYTES = 4096;

/**
 * The examples checked against the ports, in a normal form (`returns` or `throws`, never both); throws
 * an invalid-argument AtomError naming the example and what to do.
 */
export function checkExamples(name: string, examples: unknown, inputs: readonly Port[], outputs: readonly Port[]): AtomExample[] {
  if (examples === undefined || examples === null) return [];
  if (!Array.isArray(examples)) throw errors.invalid('examples must be an array of { "args": [...], "returns": value } or { "args": [...], "throws": "text" }');
  if (examples.length > MAX_EXAMPLES) throw errors.invalid(`an atom may have at most ${MAX_EXAMPLES} examples (got ${examples.length})`);
  const out = examples.map((raw: unknown, i): AtomExample => {
    const label = `examples[${i}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw errors.invalid(`${label} must be an object with args and returns (or throws)`);
    const e = raw as Record<string, unknown>;
    const unknownKey = Object.keys(e).find((k) => k !== 'args' && k !== 'returns' && k !== 'throws');
    if (unknownKey) throw errors.invalid(`${label} has an unknown field "${unknownKey}": an example is { "args": [...], "returns": value } or { "args": [...], "throws": "text" }`);
    const args = e.args ?? [];
    if (!Array.isArray(args)) throw errors.invalid(`${label}.args must be an array of the arguments in call order`);
    const hasReturns = 'returns' in e;
    const hasThrows = e.throws !== undefined;
    if (hasReturns && hasThrows) throw errors.invalid(`${label} has both returns and throws: give one`);
    if (!hasReturns && !hasThrows) throw errors.invalid(`${label} needs returns (the value the call gives) or throws (a text its error contains)`);
    const argProblems = argumentProblems(inputs, args);
    if (argProblems.length > 0) throw errors.invalid(`${label} does not fit ${name}'s inputs: ${argProblems.join('; ')}`);
    if (hasThrows) {
      if (typeof e.throws !== 'string' || e.throws.length === 0) throw errors.invalid(`${label}.throws must be a non-empty text the error message contains`);
      return { args: clone(args, label), throws: e.throws };
    }
    const problem = returnProblem(outputs, e.returns);
    if (problem) throw errors.invalid(`${label}.returns does not fit ${name}'s outputs: ${problem}`);
    return e.returns === undefined ? { args: clone(args, label), returns: null } : { args: clone(args, label), returns: clone(e.returns, label) };
  });
  const bytes = JSON.stringify(out).length;
  if (bytes > MAX_EXAMPLES_BYTES) throw errors.invalid(`examples take ${bytes} bytes as JSON (limit: ${MAX_EXAMPLES_BYTES}): keep the few calls that show what the atom does`);
  return out;
}

/** A JSON copy (no functions, no cycles, no undefined inside): what is stored and compared. */
function clone<T>(value: T, label: string): T {
  const text = JSON.stringify(value);
  if (text === undefined) throw errors.invalid(`${label} holds a value JSON cannot carry`);
  return JSON.parse(text) as T;
}

/** `math_clamp(5, 0, 3) => 3` or `parse_color("nope") throws "not a colour"`. */
export function formatExample(name: string, example: AtomExample): string {
  const call = `${name}(${example.args.map((a) => JSON.stringify(a)).join(', ')})`;
  return example.throws !== undefined ? `${call} throws ${JSON.stringify(example.throws)}` : `${call} => ${JSON.stringify(example.returns ?? null)}`;
}

/**
 * The example a line of `formatExample` describes, for the atom `name`; throws an AtomError saying
 * what the line should look like when it is not one.
 */
export function parseExample(name: string, text: string): AtomExample {
  const line = text.trim();
  const shape = `write it as ${name}(arg, ...) => value, or ${name}(arg, ...) throws "text", with JSON values`;
  if (!line.startsWith(`${name}(`)) throw errors.invalid(`@example ${JSON.stringify(line)} does not call ${name}: ${shape}`);
  // The arguments end at a ") =>" or ") throws " that leaves JSON on both sides (JSON strings may hold either).
  let sawSplit = false;
  for (const m of line.matchAll(/\) (=>|throws )/g)) {
    sawSplit = true;
    const args = tryJson(`[${line.slice(name.length + 1, m.index)}]`);
    const rest = tryJson(line.slice(m.index + m[0].length).trim());
    if (!Array.isArray(args) || rest === NOT_JSON) continue;
    if (m[1] === '=>') return { args, returns: rest };
    if (typeof rest === 'string' && rest.length > 0) return { args, throws: rest };
  }
  throw errors.invalid(`@example ${JSON.stringify(line)}: ${sawSplit ? 'the arguments or what follows them are not JSON values' : 'it has no "=> value" or "throws"'}: ${shape}`);
}

const NOT_JSON = Symbol('not JSON');

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

/** Whether two JSON values are equal (objects by their keys, in any order). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') {
    // undefined returned where null is expected (a void call): the same "nothing".
    return (a === undefined && b === null) || (a === null && b === undefined);
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((v, i) => sameJson(v, (b as unknown[])[i]));
  const ka = Object.keys(a as object).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b as object).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** The two examples lists are the same (what a write compares to tell a change). */
export function sameExamples(a: readonly AtomExample[] | undefined, b: readonly AtomExample[] | undefined): boolean {
  return sameJson(a?.length ? a : [], b?.length ? b : []);
}
