/**
 * What an atom's code refers to outside itself. The bundle puts every atom in one scope and calls
 * atoms by name, so a name the code uses but does not declare is either a global of the page
 * (`Math`, `document`) or another atom; `referencedAtoms` picks out the atoms. Used to catch calls
 * to atoms that are not declared as dependencies, and deletes that would leave a caller behind.
 *
 * The scope analysis is deliberately coarse: a name declared anywhere inside the function (a
 * parameter, a variable, an inner function, a catch binding, a class) counts as local everywhere in
 * it. That can only miss a reference, never invent one, so a refusal built on it is never wrong.
 */
import { parse } from 'acorn';
import { parseScript } from 'meriyah';
import type { Atom } from './model.js';
import { mayName, nameProbe } from './nameFilter.js';
import { kindOf, type ValueKind } from './valueKind.js';

export interface Node {
  type: string;
  [key: string]: unknown;
}

export interface CodeNames {
  /** Names the code uses and does not declare (globals and other atoms), in order of first use. */
  free: readonly string[];
  /** The function's parameter names in order (a destructured or rest parameter is `...` plus its name, or `?`). */
  params: readonly string[];
  /** Free names used only as `typeof name`, which never throws for a name that does not exist. */
  typeofOnly: readonly string[];
  /**
   * The top function's own return statements (not those of functions inside it), in order: the kind
   * of value each visibly returns (valueKind.ts; 'nothing' for a bare `return`) and the line of the
   * code it is on (returns.ts judges them). Not the returned expression's tree: names are kept for
   * the last codes (`recent`), and each tree kept that long outlived V8's young generation.
   */
  returns: readonly { kind: ValueKind | undefined; line: number }[];
  /**
   * The program's top-level statements (type and offset), the first one's name when it is a
   * function declaration: the shape check (code.ts) reads them from this same parse.
   */
  top: readonly { type: string; start: number; name?: string }[];
}

/**
 * The last codes' names. A write asks for the same code's names several times (its
 * dependencies completed, its signature compared, the bundle's missing calls), and each parse
 * allocated about 0.4 MiB at 1,000 bytes of code: the garbage that grew V8's heap along the path
 * agents take. Keyed by the code's text; an answer is frozen, so sharing it is safe. More than a
 * batch holds (upsert_atoms takes 50): a batch asks stage by stage, every atom at each stage, and
 * with room for 16 every atom of a batch of 50 was parsed again at every stage (at 10,000 atoms
 * built in batches, 262 of the 950 MiB allocated per 2,000 atoms).
 */
const recent = new Map<string, CodeNames | Error>();
const RECENT = 64;
/** How many codes `recent` keeps now: RECENT, or a batch's size while it is planned (holdCodeNames). */
let room = RECENT;

/**
 * Keeps the names of `count` codes until the current task's synchronous work ends. Planning a batch
 * asks for every code in one pass (planWrite), and the store checks every draft in the next
 * (planChange) in the same task: with room for 64, a fresh clone's import of 1,000 atoms parsed each
 * code twice (0.3 of the 0.95 s its planning held the event loop). Back to RECENT in a microtask,
 * so no more than a batch's names is ever kept, and only while it is planned.
 */
export function holdCodeNames(count: number): void {
  if (count <= room) return;
  if (room === RECENT) {
    queueMicrotask(() => {
      room = RECENT;
      while (recent.size > RECENT) recent.delete(recent.keys().next().value!);
    });
  }
  room = count;
}

/** Names parsed ahead of a large batch's planning (`keepCodeNames`), with how many holders keep each. */
const kept = new Map<string, { names: CodeNames | Error; holders: number }>();
/** Past this many codes a batch is not parsed ahead (each kept code's names are ~3 KiB). */
const MAX_KEPT = 5_000;

/**
 * Parses `codes` ahead of a batch's planning, a slice of `sliceMs` at a time with `turn()` between,
 * and keeps their names until the returned release is called. Planning a batch is one synchronous
 * task (planWrite, then the store's check): a fresh clone's import of 1,000 atoms held the event loop
 * (the extension host's, shared with every other extension) for ~0.8 s, nearly all of it parsing. A
 * batch of more than MAX_KEPT codes is not parsed ahead.
 */
export async function keepCodeNames(codes: readonly unknown[], turn: () => Promise<void>, sliceMs = 10): Promise<() => void> {
  const mine: string[] = [];
  if (codes.length > MAX_KEPT) return () => {};
  let slice = performance.now();
  for (const code of codes) {
    if (typeof code !== 'string') continue;
    const held = kept.get(code);
    if (held) held.holders++;
    else kept.set(code, { names: recent.get(code) ?? parseOrError(code), holders: 1 });
    mine.push(code);
    if (performance.now() - slice > sliceMs) {
      await turn();
      slice = performance.now();
    }
  }
  return () => {
    for (const code of mine.splice(0)) {
      const held = kept.get(code);
      if (held && --held.holders === 0) kept.delete(code);
    }
  };
}

/** Free names and parameters of an atom's code; throws the parser's error if the code does not parse. */
export function codeNames(code: string): CodeNames {
  let names = recent.get(code) ?? kept.get(code)?.names;
  if (names === undefined) {
    names = parseOrError(code);
    if (recent.size >= room) recent.delete(recent.keys().next().value!);
    recent.set(code, names);
  }
  if (names instanceof Error) throw names;
  return names;
}

/** The code's names, or the parser's error (kept like names, thrown at each ask). */
function parseOrError(code: string): CodeNames | Error {
  try {
    return parseNames(code);
  } catch (err) {
    return err as Error;
  }
}

/**
 * The code's tree (ESTree, with offsets): meriyah's, ~3 times faster than acorn's on atoms (1,000
 * generated atoms: 71 against 222 ms on a cold start, 37 against 95 warm), and a fresh clone's
 * import parses every atom before its first search. `lexical` turns on its scope checks (a name
 * declared twice), which acorn makes. Where meriyah refuses the code, acorn parses it: the web's
 * leftovers a script may hold (Annex B, meriyah's `webcompat`, left off) and a regular expression
 * newer than the running engine (meriyah asks its RegExp) go to acorn; a syntax error is acorn's as
 * it always was (its message and position), and code acorn takes is never refused. `test/unit/calls-parsers.test.ts` holds the two trees' names equal, and what meriyah
 * takes that acorn refuses to what V8 (the page's engine) takes.
 */
export function codeTree(code: string): Node {
  try {
    return parseScript(code, { ranges: true, lexical: true }) as unknown as Node;
  } catch {
    // Without `locations`: a location object and two positions per node were half of a parse's
    // garbage, and every write parses its code. A shape error's line comes from the node's offset;
    // a syntax error carries its line and column either way.
    return parse(code, { ecmaVersion: 'latest', sourceType: 'script' }) as unknown as Node;
  }
}

function parseNames(code: string): CodeNames {
  return namesOf(codeTree(code), code);
}

/** The names of a code's tree (`codeTree`'s, or any ESTree parser's with offsets). */
export function namesOf(program: Node, code: string): CodeNames {
  const fn = (program.body as Node[])[0];
  const declared = new Set<string>();
  const used: string[] = [];
  const seen = new Set<string>();
  const usedPlainly = new Set<string>();
  visit(program, undefined, undefined, (id, parent, key) => {
    if (isBinding(parent, key)) declared.add(id.name as string);
    else if (isReference(parent, key)) {
      if (!(parent?.type === 'UnaryExpression' && parent.operator === 'typeof')) usedPlainly.add(id.name as string);
      if (!seen.has(id.name as string)) {
        seen.add(id.name as string);
        used.push(id.name as string);
      }
    }
  });
  collectDeclared(program, declared);
  const own = fn && fn.type === 'FunctionDeclaration' ? ((fn.id as Node | null)?.name as string | undefined) : undefined;
  const params = fn && Array.isArray(fn.params) ? (fn.params as Node[]).map(paramName) : [];
  const free = Object.freeze(used.filter((n) => !declared.has(n) && n !== own));
  const returns: { kind: ValueKind | undefined; line: number }[] = [];
  if (fn && fn.type === 'FunctionDeclaration') collectReturns(fn.body as Node, code, returns);
  const top = Object.freeze(
    (program.body as Node[]).map((n) => Object.freeze({ type: n.type, start: n.start as number, name: (n.id as Node | null | undefined)?.name as string | undefined })),
  );
  return Object.freeze({ free, params: Object.freeze(params), typeofOnly: Object.freeze(free.filter((n) => !usedPlainly.has(n))), returns: Object.freeze(returns), top });
}

/** The return statements under `node`, not those of functions or classes inside it. */
function collectReturns(node: Node, code: string, out: { kind: ValueKind | undefined; line: number }[]): void {
  if (node.type === 'ReturnStatement') out.push(Object.freeze({ kind: kindOf(node.argument as Node | null), line: lineAt(code, node.start as number) }));
  if (node.type.includes('Function') || node.type === 'ClassBody') return; // their returns are their own
  for (const k in node) {
    const value = node[k];
    if (Array.isArray(value)) {
      for (const child of value) if (isNode(child)) collectReturns(child, code, out);
    } else if (isNode(value)) collectReturns(value, code, out);
  }
}

/** The 1-based line of `offset` in `code`. */
function lineAt(code: string, offset: number): number {
  let line = 1;
  for (let at = code.indexOf('\n'); at >= 0 && at < offset; at = code.indexOf('\n', at + 1)) line++;
  return line;
}

/** The atoms (names in `atoms`) that `code` refers to, sorted; `self` is left out. */
export function referencedAtoms(code: string, isAtom: (name: string) => boolean, self?: string): string[] {
  let free: readonly string[];
  try {
    free = codeNames(code).free;
  } catch {
    return [];
  }
  return free.filter((n) => n !== self && isAtom(n)).sort();
}

/**
 * The atoms whose code refers to `name` (declared as a dependency or not), sorted. Each atom's word
 * filter (nameFilter.ts) is asked first, then its text searched, so only the few atoms that mention
 * the name are parsed.
 */
export function codeCallers(atoms: Iterable<Pick<Atom, 'name' | 'code'>>, name: string): string[] {
  const out: string[] = [];
  const probe = nameProbe(name);
  for (const a of atoms) {
    if (a.name !== name && mayName(a, probe) && a.code.includes(name) && referencedAtoms(a.code, (n) => n === name, a.name).length > 0) out.push(a.name);
  }
  return out.sort();
}

/** Why a rename cannot rewrite some code: the new name is declared inside it, so a call would bind to that local. */
export class RenameConflict extends Error {}

/**
 * `code` with every reference to the atom `from` written as `to`: the free references (not
 * property names, labels or names declared inside the function), replaced by position, and the
 * function's own name when the code is the atom's own (`own`). A shorthand property `{ from }`
 * becomes `{ from: to }`, so the object keeps its key. Unchanged when nothing refers to `from`.
 * Throws the parser's error when the code does not parse, and a RenameConflict when `to` is
 * declared inside the function where a reference would be rewritten (the call would then bind
 * to the local).
 */
export function renameInCode(code: string, from: string, to: string, own = false): string {
  const program = parse(code, { ecmaVersion: 'latest', sourceType: 'script' }) as unknown as Node;
  const fn = (program.body as Node[])[0];
  const topId = fn && fn.type === 'FunctionDeclaration' ? (fn.id as Node | null) : null;
  const declared = new Set<string>();
  const hits: { start: number; end: number; text: string }[] = [];
  visit(program, undefined, undefined, (id, parent, key) => {
    if (id === topId) return;
    if (isBinding(parent, key)) declared.add(id.name as string);
    else if (id.name === from && isReference(parent, key)) {
      const shorthand = parent?.type === 'Property' && parent.shorthand === true && key === 'value';
      hits.push({ start: id.start as number, end: id.end as number, text: shorthand ? `${from}: ${to}` : to });
    }
  });
  collectDeclared(program, declared);
  // A name declared inside counts as local everywhere in it (see the top): nothing there is the atom.
  const refs = declared.has(from) ? [] : hits;
  if (refs.length > 0 && declared.has(to)) throw new RenameConflict(`it declares its own "${to}", which the renamed calls would reach instead`);
  if (own && topId?.name === from) refs.push({ start: topId.start as number, end: topId.end as number, text: to });
  let out = code;
  for (const r of [...refs].sort((a, b) => b.start - a.start)) out = out.slice(0, r.start) + r.text + out.slice(r.end);
  return out;
}

function paramName(p: Node): string {
  if (p.type === 'Identifier') return p.name as string;
  if (p.type === 'AssignmentPattern') return paramName(p.left as Node);
  if (p.type === 'RestElement') return `...${paramName(p.argument as Node)}`;
  return '?';
}

export type OnIdentifier = (id: Node, parent: Node | undefined, key: string | undefined) => void;

export function visit(node: Node, parent: Node | undefined, key: string | undefined, onId: OnIdentifier): void {
  if (node.type === 'Identifier') {
    onId(node, parent, key);
    return;
  }
  // for...in, not Object.entries: an array of pairs per node was most of a parse's garbage.
  for (const k in node) {
    if (k === 'loc' || k === 'range') continue;
    const value = node[k];
    if (Array.isArray(value)) {
      for (const child of value) if (isNode(child)) visit(child, node, k, onId);
    } else if (isNode(value)) visit(value, node, k, onId);
  }
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as Node).type === 'string';
}

/** Identifiers that are not uses of a variable: property names, labels, meta properties. */
export function isReference(parent: Node | undefined, key: string | undefined): boolean {
  if (!parent) return true;
  switch (parent.type) {
    case 'MemberExpression':
      return key !== 'property' || parent.computed === true;
    case 'Property':
      // `{ a: 1 }` names no variable; `{ a }` (shorthand) uses a; `{ [a]: 1 }` uses a.
      return key === 'value' || parent.computed === true;
    case 'MethodDefinition':
    case 'PropertyDefinition':
      return key !== 'key' || parent.computed === true;
    case 'LabeledStatement':
    case 'BreakStatement':
    case 'ContinueStatement':
    case 'MetaProperty':
      return false;
    default:
      return true;
  }
}

/** Identifiers directly in a declaring position (patterns inside are handled by collectDeclared). */
export function isBinding(parent: Node | undefined, key: string | undefined): boolean {
  if (!parent) return false;
  switch (parent.type) {
    case 'VariableDeclarator':
      return key === 'id';
    case 'FunctionDeclaration':
    case 'FunctionExpression':
    case 'ArrowFunctionExpression':
      return key === 'id' || key === 'params';
    case 'ClassDeclaration':
    case 'ClassExpression':
      return key === 'id';
    case 'CatchClause':
      return key === 'param';
    default:
      return false;
  }
}

/** Every name a pattern anywhere in the tree declares (destructuring, defaults, rest). */
export function collectDeclared(node: Node, into: Set<string>): void {
  const addPattern = (p: Node | null | undefined): void => {
    if (!p) return;
    switch (p.type) {
      case 'Identifier':
        into.add(p.name as string);
        break;
      case 'ObjectPattern':
        for (const prop of p.properties as Node[]) addPattern(prop.type === 'RestElement' ? prop : (prop.value as Node));
        break;
      case 'ArrayPattern':
        for (const el of p.elements as (Node | null)[]) addPattern(el);
        break;
      case 'AssignmentPattern':
        addPattern(p.left as Node);
        break;
      case 'RestElement':
        addPattern(p.argument as Node);
        break;
    }
  };
  const walk = (n: Node): void => {
    switch (n.type) {
      case 'VariableDeclarator':
        addPattern(n.id as Node);
        break;
      case 'FunctionDeclaration':
      case 'FunctionExpression':
      case 'ArrowFunctionExpression':
        for (const p of n.params as Node[]) addPattern(p);
        break;
      case 'CatchClause':
        addPattern(n.param as Node | null);
        break;
    }
    for (const k in n) {
      if (k === 'loc' || k === 'range') continue;
      const value = n[k];
      if (Array.isArray(value)) {
        for (const child of value) if (isNode(child)) walk(child);
      } else if (isNode(value)) walk(value);
    }
  };
  walk(node);
}
