/**
 * Arguments of a run held to the entry atom's declared inputs. A call with the wrong types still
 * runs in JavaScript and usually answers something plausible (`"x" + 1`), so a test run with them
 * would mislead; run_atom refuses it unless asked not to. An atom that declares no inputs has no
 * contract to hold the arguments to, and is not checked.
 */
import type { Port, PortType } from '../atoms/model.js';

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
