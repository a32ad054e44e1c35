/**
 * What an atom's code visibly returns, held to its declared outputs: a `return [a, b]` under a
 * declared `number`, a `return "Score: " + x` under a declared `number`. Only what the code shows
 * is judged (literals, arrays, objects, template strings, string concatenations with a literal); a
 * value computed elsewhere is never guessed at, so a warning is never wrong. The examples (and
 * run_atom) check the values a run really returns.
 */
import { codeNames } from './calls.js';
import type { ValueKind as Kind } from './valueKind.js';
import type { Port } from './model.js';

/** What the declared outputs expect a return to be. */
function expected(outputs: readonly Port[]): { kinds: Kind[]; says: string } {
  const real = outputs.filter((o) => o.type !== 'void');
  if (real.length === 0) return { kinds: ['nothing'], says: 'no output' };
  if (real.length > 1) return { kinds: ['object'], says: `outputs ${real.map((o) => o.name).join(', ')} (an object holding them)` };
  const t = real[0]!.type;
  const kind: Kind = t.endsWith('[]') ? 'array' : (t as Kind);
  return { kinds: real[0]!.optional ? [kind, 'nothing'] : [kind], says: `output ${real[0]!.name}: ${t}` };
}

const SAY: Record<Kind, string> = { number: 'a number', string: 'a string', boolean: 'a boolean', array: 'an array', object: 'an object', nothing: 'nothing' };

/**
 * A warning naming the first return whose visible value does not fit the declared outputs, with its
 * line in the code; undefined when none is visible (or the code does not parse: validation says so).
 */
export function returnTypeWarning(code: string, outputs: readonly Port[]): string | undefined {
  let returns: ReturnType<typeof codeNames>['returns'];
  try {
    // The parse a write made already (its names): the code is not parsed again.
    returns = codeNames(code).returns;
  } catch {
    return undefined;
  }
  const want = expected(outputs);
  for (const r of returns) {
    const kind = r.kind;
    if (kind === undefined || want.kinds.includes(kind)) continue;
    return `Warning: it declares ${want.says}, but line ${r.line} returns ${SAY[kind]}: fix the outputs or the return, or callers will get what they do not expect`;
  }
  return undefined;
}
