/**
 * The calls in an atom's document (the editor's text: JSDoc header + code, atomDocument.ts), with
 * positions in that text: what the editor's language features (views/languageFeatures.ts) are made
 * of. Pure (acorn only), so it is unit-tested and reusable outside VS Code.
 *
 * - analyzeDocument: the function's own name, its references to names it does not declare, and
 *   every call `name(...)` of such a name with its arguments and what can be known of their types.
 * - callProblems: arity and argument types against the callee's ports, and calls to names that are
 *   neither an atom, nor declared, nor a global of the preview page (the server's rule, unknownNames.ts).
 * - callContext / wordAt: where the cursor is while the code is being typed (it may not parse).
 *
 * A name declared anywhere inside the function counts as local everywhere in it, as in calls.ts:
 * that can only miss a call, never invent one.
 */
import { parse } from 'acorn';
import { codeOffsetOf } from './atomDocument.js';
import { collectDeclared, isBinding, isReference, visit, type Node } from './calls.js';
import type { Atom, Port, PortType } from './model.js';
import { isPageGlobal, nearestNames } from './unknownNames.js';

/** What can be known of an argument's value without running it. */
export type ValueType = PortType | 'null' | 'undefined' | 'object' | 'function' | 'array';

export interface Span {
  /** Offsets in the document's text, end exclusive. */
  start: number;
  end: number;
}

export interface CallArgument extends Span {
  /** Known type, or undefined when it cannot be known here. */
  type?: ValueType;
  /** Where the type comes from, for the message: `a string literal`, `parameter x (number)`, `math_clamp's result`. */
  origin?: string;
  spread?: boolean;
}

export interface CallSite {
  name: string;
  /** The callee's name. */
  id: Span;
  /** From the callee's name to the closing parenthesis. */
  call: Span;
  args: CallArgument[];
}

export interface DocumentAnalysis {
  /** Where the code starts in the text (after the header). */
  codeOffset: number;
  /** The parser's message when the code does not parse (then only `codeOffset` and `own` may be set). */
  error?: string;
  /** The top function's name. */
  own?: { name: string } & Span;
  /** The top function's parameter names, in order. */
  params: string[];
  /** Every name declared inside the code (parameters, variables, inner functions...). */
  declared: Set<string>;
  /** References to names the code does not declare (globals and atoms), the own name excluded. */
  references: ({ name: string } & Span)[];
  /** Calls of such names: `name(...)`. */
  calls: CallSite[];
  /** Free names used only as `typeof name` (that never throws, so the unknown-name rule leaves them). */
  typeofOnly: Set<string>;
}

/** Reads a document's calls and references; never throws (a parse error is in `error`). */
export function analyzeDocument(text: string, inputs: readonly Port[] = [], outputsOf: (name: string) => readonly Port[] | undefined = () => undefined): DocumentAnalysis {
  const codeOffset = codeOffsetOf(text);
  const code = text.slice(codeOffset);
  const result: DocumentAnalysis = { codeOffset, params: [], declared: new Set(), references: [], calls: [], typeofOnly: new Set() };
  const ownMatch = /^\s*(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)/.exec(code);
  if (ownMatch) {
    const start = codeOffset + ownMatch[0].length - ownMatch[1]!.length;
    result.own = { name: ownMatch[1]!, start, end: start + ownMatch[1]!.length };
  }
  let program: Node;
  try {
    program = parse(code, { ecmaVersion: 'latest', sourceType: 'script' }) as unknown as Node;
  } catch (err) {
    result.error = (err as Error).message;
    return result;
  }
  const fn = (program.body as Node[])[0];
  const top = fn && fn.type === 'FunctionDeclaration' ? fn : undefined;
  const topId = top ? (top.id as Node | null) : null;
  const declared = result.declared;
  const refs: Node[] = [];
  const usedPlainly = new Set<string>();
  // How often each name is bound: a parameter bound again inside (shadowed) is not the parameter everywhere.
  const bindings = new Map<string, number>();
  visit(program, undefined, undefined, (id, parent, key) => {
    if (id === topId) return;
    if (isBinding(parent, key)) {
      declared.add(id.name as string);
      bindings.set(id.name as string, (bindings.get(id.name as string) ?? 0) + 1);
    } else if (isReference(parent, key)) {
      refs.push(id);
      if (!(parent?.type === 'UnaryExpression' && parent.operator === 'typeof')) usedPlainly.add(id.name as string);
    }
  });
  collectDeclared(program, declared);
  if (top) result.params = (top.params as Node[]).map((p) => (p.type === 'Identifier' ? (p.name as string) : p.type === 'AssignmentPattern' && (p.left as Node).type === 'Identifier' ? ((p.left as Node).name as string) : '?'));
  const own = topId?.name as string | undefined;
  const free = (n: string) => !declared.has(n) && n !== own;
  for (const id of refs) {
    const name = id.name as string;
    if (!free(name)) continue;
    result.references.push({ name, start: codeOffset + (id.start as number), end: codeOffset + (id.end as number) });
    if (!usedPlainly.has(name)) result.typeofOnly.add(name);
  }

  // A parameter's declared type holds while nothing assigns to it.
  const assigned = new Set<string>();
  walk(program, (n) => {
    if (n.type === 'AssignmentExpression' && (n.left as Node).type === 'Identifier') assigned.add((n.left as Node).name as string);
    if (n.type === 'UpdateExpression' && (n.argument as Node).type === 'Identifier') assigned.add((n.argument as Node).name as string);
  });
  const paramType = new Map<string, PortType>();
  result.params.forEach((p, i) => {
    const port = inputs[i];
    if (port && port.name === p && port.type !== 'void' && !port.optional && !assigned.has(p) && bindings.get(p) === 1) paramType.set(p, port.type);
  });

  const typeOf = (n: Node): Pick<CallArgument, 'type' | 'origin'> => {
    switch (n.type) {
      case 'Literal': {
        const v = n.value;
        if (v === null && n.raw === 'null') return { type: 'null', origin: 'null' };
        if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return { type: typeof v as PortType, origin: `a ${typeof v} literal` };
        return {};
      }
      case 'TemplateLiteral':
        return { type: 'string', origin: 'a template string' };
      case 'UnaryExpression': {
        const op = n.operator as string;
        if (op === '!') return { type: 'boolean', origin: 'a negation' };
        if (op === 'typeof') return { type: 'string', origin: 'typeof' };
        if ((op === '-' || op === '+') && (n.argument as Node).type === 'Literal' && typeof (n.argument as Node).value === 'number') return { type: 'number', origin: 'a number literal' };
        if (op === 'void') return { type: 'undefined', origin: 'void' };
        return {};
      }
      case 'ArrayExpression': {
        const els = n.elements as (Node | null)[];
        if (els.length === 0) return { type: 'array', origin: 'an empty array' };
        const types = new Set(els.map((e) => (e && e.type !== 'SpreadElement' ? typeOf(e).type : undefined)));
        const [t] = types;
        if (types.size === 1 && (t === 'number' || t === 'string' || t === 'boolean')) return { type: `${t}[]` as PortType, origin: `an array of ${t}s` };
        return { type: 'array', origin: 'an array' };
      }
      case 'ObjectExpression':
        return { type: 'object', origin: 'an object literal' };
      case 'ArrowFunctionExpression':
      case 'FunctionExpression':
        return { type: 'function', origin: 'a function' };
      case 'Identifier': {
        const name = n.name as string;
        if (name === 'undefined' && !declared.has(name)) return { type: 'undefined', origin: 'undefined' };
        const t = paramType.get(name);
        return t ? { type: t, origin: `parameter ${name} (${t})` } : {};
      }
      case 'CallExpression': {
        const callee = n.callee as Node;
        if (callee.type !== 'Identifier' || !free(callee.name as string)) return {};
        const outputs = outputsOf(callee.name as string);
        if (!outputs) return {};
        const real = outputs.filter((o) => o.type !== 'void');
        if (real.length === 0) return { type: 'undefined', origin: `${callee.name as string}'s result (it returns nothing)` };
        if (real.length === 1) return real[0]!.optional ? {} : { type: real[0]!.type, origin: `${callee.name as string}'s result (${real[0]!.type})` };
        return { type: 'object', origin: `${callee.name as string}'s result (an object of ${real.map((o) => o.name).join(', ')})` };
      }
      default:
        return {};
    }
  };

  walk(program, (n) => {
    if (n.type !== 'CallExpression') return;
    const callee = n.callee as Node;
    if (callee.type !== 'Identifier' || !free(callee.name as string)) return;
    result.calls.push({
      name: callee.name as string,
      id: { start: codeOffset + (callee.start as number), end: codeOffset + (callee.end as number) },
      call: { start: codeOffset + (callee.start as number), end: codeOffset + (n.end as number) },
      args: (n.arguments as Node[]).map((a) =>
        a.type === 'SpreadElement'
          ? { start: codeOffset + (a.start as number), end: codeOffset + (a.end as number), spread: true }
          : { start: codeOffset + (a.start as number), end: codeOffset + (a.end as number), ...typeOf(a) },
      ),
    });
  });
  result.calls.sort((a, b) => a.id.start - b.id.start);
  return result;
}

function walk(node: Node, onNode: (n: Node) => void): void {
  onNode(node);
  for (const [k, value] of Object.entries(node)) {
    if (k === 'loc' || k === 'range') continue;
    if (Array.isArray(value)) {
      for (const child of value) if (isNode(child)) walk(child, onNode);
    } else if (isNode(value)) walk(value, onNode);
  }
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as Node).type === 'string';
}

// ---- checks --------------------------------------------------------------------------------

export interface CallProblem extends Span {
  /** unknown: a call to no atom; arity: too many or too few arguments; type: an argument of the wrong type. */
  kind: 'unknown' | 'arity' | 'type';
  callee: string;
  message: string;
}

/**
 * What is wrong with the calls of `analysis`: `lookup` gives the atom of a name (undefined: none).
 * A callee that declares no inputs has no contract on its arguments, unless its code takes none.
 *
 * Unknown names follow the server's rule (unknownNames.ts), so the editor flags exactly what a save
 * would refuse: a name the code uses (called or not) that is no local, no atom and no global of the
 * preview page, `typeof name` alone aside; the message names the nearest atoms (`atomNames`).
 */
export function callProblems(
  analysis: DocumentAnalysis,
  lookup: (name: string) => Pick<Atom, 'inputs' | 'code'> | undefined,
  atomNames: () => Iterable<string> = () => [],
): CallProblem[] {
  const problems: CallProblem[] = [];
  for (const ref of analysis.references) {
    if (lookup(ref.name) || isPageGlobal(ref.name) || analysis.typeofOnly.has(ref.name)) continue;
    const near = nearestNames(ref.name, atomNames());
    const hint = near.length > 0 ? ` Did you mean ${near.join(', ')}?` : ' Fix the name, or create that atom (a global your own page defines is reached as window.<name>).';
    problems.push({
      kind: 'unknown',
      callee: ref.name,
      start: ref.start,
      end: ref.end,
      message: `${ref.name} is no atom, no parameter or local, and no global of the preview page: a save is refused.${hint}`,
    });
  }
  for (const call of analysis.calls) {
    const atom = lookup(call.name);
    if (!atom) continue;
    if (call.args.some((a) => a.spread)) continue;
    const inputs = atom.inputs;
    const takesNothing = inputs.length === 0 && /^\s*(?:async\s+)?function\s*\*?\s*[\w$]*\s*\(\s*\)/.test(atom.code);
    if (inputs.length === 0 && !takesNothing) continue;
    let required = 0;
    inputs.forEach((p, i) => {
      if (!p.optional && p.type !== 'void') required = i + 1;
    });
    const n = call.args.length;
    if (n < required || n > inputs.length) {
      const expected = required === inputs.length ? `${inputs.length}` : `${required} to ${inputs.length}`;
      const signature = `${call.name}(${inputs.map((p) => `${p.name}${p.optional ? '?' : ''}: ${p.type}`).join(', ')})`;
      const span = n > inputs.length ? { start: call.args[inputs.length]!.start, end: call.args[n - 1]!.end } : call.id;
      problems.push({ kind: 'arity', callee: call.name, ...span, message: `${call.name} takes ${expected} argument${expected === '1' ? '' : 's'}, got ${n}: ${signature}` });
    }
    call.args.forEach((arg, i) => {
      const port = inputs[i];
      if (!port || !arg.type || fits(port, arg.type)) return;
      problems.push({ kind: 'type', callee: call.name, start: arg.start, end: arg.end, message: `${call.name}'s ${port.name} is a ${port.type}${port.optional ? ' (optional)' : ''}, but this is ${arg.origin ?? arg.type}` });
    });
  }
  return problems;
}

/** Whether a value of `type` may be passed to `port`. */
export function fits(port: Port, type: ValueType): boolean {
  if (port.type === 'void') return type === 'null' || type === 'undefined';
  if (type === 'null' || type === 'undefined') return port.optional === true;
  if (type === port.type) return true;
  if (type === 'array') return port.type.endsWith('[]');
  return false;
}

// ---- while typing ----------------------------------------------------------------------------

/** The identifier around or just before `offset` (`math_cl|` -> `math_cl`), or undefined. */
export function wordAt(text: string, offset: number): ({ word: string } & Span) | undefined {
  let start = offset;
  while (start > 0 && /[\w$]/.test(text[start - 1]!)) start--;
  let end = offset;
  while (end < text.length && /[\w$]/.test(text[end]!)) end++;
  if (start === end || /^\d/.test(text.slice(start, end))) return undefined;
  return { word: text.slice(start, end), start, end };
}

/**
 * The call whose parentheses hold `offset`, read backwards through the text as typed (it need not
 * parse): the callee's name and which argument the cursor is in (commas at the call's own depth).
 * Strings, template strings and comments on the way are skipped roughly; enough for parameter hints.
 */
export function callContext(text: string, offset: number): { name: string; argument: number; open: number } | undefined {
  let depth = 0;
  let commas = 0;
  const floor = codeOffsetOf(text);
  for (let i = offset - 1; i >= floor; i--) {
    const c = text[i]!;
    if (c === '"' || c === "'" || c === '`') {
      // Back to the opening quote of a string that ends here.
      let j = i - 1;
      while (j >= floor && !(text[j] === c && text[j - 1] !== '\\')) j--;
      i = j;
      continue;
    }
    if (c === ')' || c === ']' || c === '}') depth++;
    else if (c === '(' || c === '[' || c === '{') {
      if (depth === 0) {
        if (c !== '(') return undefined;
        let end = i;
        while (end > floor && /\s/.test(text[end - 1]!)) end--;
        const w = wordAt(text, end);
        if (!w || w.end !== end) return undefined;
        return { name: w.word, argument: commas, open: i };
      }
      depth--;
    } else if (c === ',' && depth === 0) commas++;
    else if (c === ';' && depth === 0) return undefined;
  }
  return undefined;
}

/** The call or reference at `offset` in an analysed document: the name and its span, or the own name. */
export function nameAt(analysis: DocumentAnalysis, offset: number): { name: string; own: boolean } & Span | undefined {
  if (analysis.own && offset >= analysis.own.start && offset <= analysis.own.end) return { ...analysis.own, own: true };
  const ref = analysis.references.find((r) => offset >= r.start && offset <= r.end);
  return ref ? { ...ref, own: false } : undefined;
}
