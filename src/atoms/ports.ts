/**
 * Arguments of a run held to the entry atom's declared inputs. A call with the wrong types still
 * runs in JavaScript and usually answers something plausible (`"x" + 1`), so a test run with them
 * would mislead; run_atom refuses it unless asked not to. An atom that declares no inputs has no
 * contract to hold the arguments to, and is not checked.
 */
import type { Port, PortType } from './model.js';

/** What is wrong with `args` for `inputs`, one sentence each; empty when they match. */
export function argumentProblems(inputs: readonly Port[], args: readonly unknown[]): string[] {
  if (inputs.length === 0) return [];
  const problems: string[] = [];
  inputs.forEach((port, i) => {
    const label = `args[${i}] (${port.name})`;
    if (i >= args.length) {
      if (!port.optional && port.type !== 'void') problems.push(`${label} is missing: expected a ${port.type}`);
      return;
    }
    const value = args[i];
    if (value === null && (port.optional || port.type === 'void')) return;
    const wrong = mismatch(port.type, value);
    if (wrong) problems.push(`${label} must be ${port.type === 'void' ? 'omitted or null' : `a ${port.type}`}, got ${wrong}`);
  });
  if (args.length > inputs.length) {
    problems.push(`${args.length} arguments given, but it takes at most ${inputs.length}`);
  }
  return problems;
}

/** How `value` fails `type` (`"x" (a string)`), or null when it fits. */
function mismatch(type: PortType, value: unknown): string | null {
  switch (type) {
    case 'number':
    case 'string':
    case 'boolean':
      return typeof value === type ? null : show(value);
    case 'number[]':
    case 'string[]':
    case 'boolean[]': {
      if (!Array.isArray(value)) return show(value);
      const element = type.slice(0, -2);
      const bad = value.findIndex((v) => typeof v !== element);
      return bad < 0 ? null : `${show(value)} (element ${bad} is ${kind(value[bad])})`;
    }
    case 'void':
      return show(value);
  }
}

function show(value: unknown): string {
  let text = JSON.stringify(value) ?? String(value);
  if (text.length > 40) text = `${text.slice(0, 37)}…`;
  return `${text} (${kind(value)})`;
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : `a ${type}`;
}

/**
 * What is wrong with `value` as what an atom with `outputs` returns, or null when it fits: no outputs
 * (or one void output) return nothing (undefined or null); one output is the value itself; several are
 * an object holding each by its name.
 */
export function returnProblem(outputs: readonly Port[], value: unknown): string | null {
  // An example of an atom without outputs returns nothing: null, as JSON writes it.
  if (outputs.every((o) => o.type === 'void')) return value === undefined || value === null ? null : `it declares no output but returned ${show(value)}`;
  return returnProblems(outputs, value)[0] ?? null;
}

/**
 * How a run's return value fails the atom's declared `outputs`, one sentence each; empty when it fits or
 * when no outputs are declared. One output: the value itself; several: an object with those keys.
 */
export function returnProblems(outputs: readonly Port[], value: unknown): string[] {
  if (outputs.length === 0) return [];
  const fits = (port: Port, v: unknown) => (v === undefined || v === null) && (port.optional || port.type === 'void') ? null : mismatch(port.type, v);
  if (outputs.length === 1) {
    const port = outputs[0]!;
    if (port.type === 'void') return value === undefined ? [] : [`the output ${port.name} is void, but it returned ${show(value)}`];
    const wrong = fits(port, value);
    return wrong ? [`the output ${port.name} must be a ${port.type}, got ${wrong}`] : [];
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return [`the outputs (${outputs.map((p) => p.name).join(', ')}) must be an object with those keys, got ${show(value)}`];
  }
  const problems: string[] = [];
  for (const port of outputs) {
    if (port.type === 'void') continue;
    const v = (value as Record<string, unknown>)[port.name];
    if (v === undefined && !Object.hasOwn(value, port.name) && !port.optional) {
      problems.push(`the key ${port.name} is missing: expected a ${port.type}`);
      continue;
    }
    const wrong = fits(port, v);
    if (wrong) problems.push(`${port.name} must be a ${port.type}, got ${wrong}`);
  }
  return problems;
}
