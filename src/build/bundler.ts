/**
 * The bundle, pure: every atom, dependencies first (ties broken by name), wrapped in a strict
 * IIFE with the contract's header, a `// --- [type] name ---` line before each atom and a Boot
 * line for the entry point.
 *
 * Names are checked before an atom is stored or loaded, yet nothing from an atom reaches the
 * bundle's comments unescaped (see `commentText`), and the Boot line calls the entry point only
 * if its name is a JavaScript identifier: a name can never become a line of code.
 */
import { linesInsideTemplates } from '../atoms/code.js';
import { topologicalOrder } from '../atoms/graph.js';
import type { Atom } from '../atoms/model.js';

export interface Bundle {
  code: string;
  order: string[];
  entry: string | null;
}

export class BundleError extends Error {}

/**
 * Text safe inside a `//` comment line: JavaScript ends a line comment at \n, \r, U+2028 and
 * U+2029, so those (and every other control character) are written as `\uXXXX` escapes; `*\/`
 * is broken up too, in case the text ever lands in a block comment.
 */
export function commentText(text: string): string {
  return text
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/\*\//g, '*\\/');
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function bootLines(entry: string | null): string[] {
  if (!entry) return ['  // no core atom: nothing to start'];
  if (!IDENTIFIER.test(entry)) return [`  // the entry point ${commentText(JSON.stringify(entry))} is not a JavaScript name: nothing started`];
  return [`  if (typeof ${entry} === 'function') ${entry}();`];
}

/** The boot rule, as the instructions, get_status and upsert_atom's description say it. */
export const BOOT_RULE = 'the core atom named game_loop, else main, else the last core atom in dependency order';

/**
 * The atom the bundle boots (its Boot line calls it), by the one rule (`findEntryPoint`). Sorts
 * the graph only when the rule needs the order (no `game_loop` or `main` core atom and more than
 * one core atom) and `order`, the atoms' dependency order when the caller has it, is not given.
 */
export function bootAtom(atomList: readonly Atom[], order?: readonly string[]): string | null {
  // Only a core atom boots, so the rule looks up core atoms only: no map of every atom (50,000
  // entries cost about 80 ms at an open).
  const cores = new Map<string, Atom>();
  for (const a of atomList) if (a.type === 'core') cores.set(a.name, a);
  // One core atom or none: whatever the rule's order, that one (or nothing) boots.
  if (cores.size <= 1) return cores.keys().next().value ?? null;
  return findEntryPoint(cores, order ?? (() => topologicalOrder(new Map(atomList.map((a) => [a.name, a.dependencies]))).order));
}

/**
 * The boot rule (BOOT_RULE): `game_loop` or `main` among core atoms, else the last core atom in
 * topological order (`order`, or a function giving it, called only when the rule needs it).
 */
export function findEntryPoint(atoms: Pick<ReadonlyMap<string, Atom>, 'get'>, order: readonly string[] | (() => readonly string[])): string | null {
  for (const preferred of ['game_loop', 'main']) {
    if (atoms.get(preferred)?.type === 'core') return preferred;
  }
  const cores = (typeof order === 'function' ? order() : order).filter((n) => atoms.get(n)?.type === 'core');
  return cores.length > 0 ? cores[cores.length - 1]! : null;
}

export function createBundle(atomList: readonly Atom[], generatedAt: Date = new Date()): Bundle {
  const { parts, order, entry } = new IncrementalBundler().bundle(atomList, generatedAt);
  return { code: Buffer.concat(parts).toString('utf8'), order: [...order], entry };
}

/** A bundle as the bytes of latest.js, in pieces (written with writev: no 10 MB copy). */
export interface BundleBytes {
  parts: Buffer[];
  /** Frozen, and the very same array from build to build while the order stands. */
  order: readonly string[];
  entry: string | null;
}

/** Where a build reads the atoms from: the store itself, so a build copies no map of them. */
export interface AtomLookup {
  readonly size: number;
  get(name: string): Atom | undefined;
  all(): readonly Atom[];
}

/**
 * The same bundle as `createBundle`, remembering what did not change between builds: each
 * atom's indented text, already UTF-8 encoded (keyed by the atom object, which the store
 * replaces on every change), and the order. At 10,000 atoms a full build spent ~300 ms sorting,
 * indenting, joining and encoding ~10 MB; a build after editing one atom's code encodes that
 * atom and hands the cached bytes to writev (told which atom changed, it looks at no other).
 *
 * The order is kept up to date without sorting again when an atom is added or removed (see
 * `noteAdded`); a changed dependency list sorts again (`invalidateOrder`).
 */
export class IncrementalBundler {
  /**
   * @param announced the caller tells of every change (`noteAdded`, `noteRemoved`, `noteChanged`,
   * `invalidateOrder`, as the builder does from the store's announcements): builds then look at
   * the changed atoms only. Otherwise every build compares every atom with the last build's.
   */
  constructor(private readonly announced = false) {}

  private readonly chunks = new WeakMap<Atom, Chunk>();
  /** Dependencies first, ties by name; undefined: sort at the next build. */
  private order: string[] | undefined;
  /**
   * The atom each position of `order` was bundled from, and its bytes: a build compares objects
   * (the store replaces an atom's object on every change) instead of looking each up again.
   * Emptied whenever the order changes.
   */
  private laid: { atoms: Atom[]; bytes: Chunk[] } = { atoms: [], bytes: [] };
  /** The header lines after the date and the Boot lines, for `order`; undefined: render again. */
  private rendered: { entry: string | null; orderLine: Buffer; boot: Buffer } | undefined;
  /** `order` as builds hand it out: a frozen copy, the same while the order stands. */
  private published: readonly string[] | undefined;
  /**
   * The atoms changed since the last build (their names), when every position of `laid` is
   * filled and `positions` holds each name's: a build then looks at those atoms only. undefined:
   * compare every atom (at 50,000 atoms, 50,000 lookups were 10–20 ms of every build).
   */
  private changed: Set<string> | undefined;
  /** Each name's position in `order`, made by the pass that lays every atom out (when `announced`). */
  private positions = new Map<string, number>();

  /**
   * The atoms' dependency order, from whoever sorted them already (the store's open): taken
   * when this bundler has none, so the first build after an open does not sort again.
   */
  startFrom(order: readonly string[]): void {
    if (!this.order) this.ordered([...order]);
  }

  /** A dependency list changed (or anything unknown): sort again at the next build. */
  invalidateOrder(): void {
    this.ordered(undefined);
  }

  /**
   * A new atom, which nothing depends on yet. It takes the place the sort would give it: the
   * sort (Kahn's, smallest ready name first) emits the other atoms in the same sequence with
   * or without it, since it makes no other atom ready; it is emitted at the first step after
   * its dependencies where it is smaller than the atom emitted there.
   */
  noteAdded(atom: Atom): void {
    const order = this.order;
    if (!order) return;
    let start = 0;
    for (const dep of atom.dependencies) {
      const at = order.indexOf(dep);
      if (at < 0) return this.invalidateOrder(); // added with another new atom: sort
      start = Math.max(start, at + 1);
    }
    if (order.includes(atom.name)) return this.invalidateOrder();
    let at = order.length;
    for (let t = start; t < order.length; t++) {
      if (atom.name < order[t]!) {
        at = t;
        break;
      }
    }
    order.splice(at, 0, atom.name);
    this.ordered(order);
  }

  /** An atom removed that nothing depended on: the others keep their sequence (as above). */
  noteRemoved(name: string): void {
    const at = this.order?.indexOf(name) ?? -1;
    if (at < 0) return this.invalidateOrder();
    this.order!.splice(at, 1);
    this.ordered(this.order);
  }

  /**
   * An atom changed and its dependencies did not (the order stands; a changed type may move the
   * entry point): the next build looks at it. Once a build has laid every atom out, builds look
   * only at the atoms announced here, until the order changes.
   */
  noteChanged(name: string): void {
    this.changed?.add(name);
  }

  /**
   * The bundle of `source`'s atoms (a list, or the store itself: then nothing is copied, and a
   * build after an edit of code costs a comparison per atom, not a lookup table of them all).
   */
  bundle(source: readonly Atom[] | AtomLookup, generatedAt: Date = new Date()): BundleBytes {
    const atoms: AtomLookup = isLookup(source) ? source : lookupOf(source);
    // A change not announced (or announced out of step) is caught here: sort again.
    if (!this.order || this.order.length !== atoms.size) this.layOut(atoms);
    let bytes = this.changed ? this.chunksOfChanged(atoms) : this.chunksInOrder(atoms);
    if (!bytes) {
      this.layOut(atoms);
      bytes = this.chunksInOrder(atoms)!;
    }
    const order = this.order!;
    if (!this.rendered) {
      const entry = findEntryPoint(atoms, order);
      this.rendered = {
        entry,
        orderLine: Buffer.from(
          `// Atoms: ${order.length}\n// Order: ${order.map(commentText).join(' -> ')}\n(function() {\n  "use strict";\n\n`,
        ),
        boot: Buffer.from(['  // Boot', ...bootLines(entry), '})();', ''].join('\n')),
      };
    }
    const { entry, orderLine, boot } = this.rendered;
    const head = Buffer.from(`// === Atomic Coding Bundle ===\n// Generated: ${generatedAt.toISOString().replace(/\.\d{3}Z$/, 'Z')}\n`);
    this.published ??= Object.freeze([...order]);
    return { parts: [head, orderLine, ...pieces(bytes), boot], order: this.published, entry };
  }

  private layOut(atoms: AtomLookup): void {
    this.ordered(dependencyOrder(atoms));
  }

  /** `order` is new, or changed in place: what was laid out and rendered for the old one goes. */
  private ordered(order: string[] | undefined): void {
    this.order = order;
    this.rendered = undefined;
    this.published = undefined;
    this.laid = { atoms: [], bytes: [] };
    this.changed = undefined;
  }

  /**
   * Each atom's bytes in `order`, or undefined when the order names an atom `atoms` lacks. Atoms
   * encoded here (all of them at a first build) are encoded side by side, in order.
   */
  private chunksInOrder(atoms: AtomLookup): Chunk[] | undefined {
    const order = this.order!;
    const positions = this.announced ? new Map<string, number>() : undefined;
    const arena = new Arena();
    for (let i = 0; i < order.length; i++) {
      const atom = atoms.get(order[i]!);
      if (!atom) return undefined;
      this.layAt(i, atom, arena);
      positions?.set(order[i]!, i);
    }
    if (positions) {
      this.positions = positions;
      this.changed = new Set();
    }
    return this.laid.bytes;
  }

  /** `chunksInOrder` for the atoms announced as changed; undefined when one is not where `order` has it. */
  private chunksOfChanged(atoms: AtomLookup): Chunk[] | undefined {
    for (const name of this.changed!) {
      const at = this.positions.get(name);
      const atom = atoms.get(name);
      if (at === undefined || !atom) return undefined;
      this.layAt(at, atom);
    }
    this.changed!.clear();
    return this.laid.bytes;
  }

  private layAt(i: number, atom: Atom, arena?: Arena): void {
    const was = this.laid.atoms[i];
    if (was === atom) return;
    // The type is in the chunk's comment line and may move the entry point.
    if (was !== undefined && was.type !== atom.type) this.rendered = undefined;
    this.laid.atoms[i] = atom;
    this.laid.bytes[i] = this.chunk(atom, arena);
  }

  private chunk(atom: Atom, arena?: Arena): Chunk {
    let chunk = this.chunks.get(atom);
    if (chunk === undefined) {
      const text = `  // --- [${commentText(atom.type)}] ${commentText(atom.name)} ---\n${indent(atom.code.trimEnd())}\n\n`;
      if (arena) chunk = arena.put(text);
      else {
        const bytes = Buffer.from(text);
        chunk = { bytes, start: 0, end: bytes.length };
      }
      this.chunks.set(atom, chunk);
    }
    return chunk;
  }
}

/** An atom's bytes in the bundle: `bytes[start, end)`. Atoms encoded together share `bytes`, side by side. */
interface Chunk {
  bytes: Buffer;
  start: number;
  end: number;
}

/**
 * Where a build that lays every atom out encodes those it has no bytes for (all of them at a
 * first build): one buffer after another, each atom's bytes right after the previous atom's.
 * latest.js is then written in a few hundred pieces (`pieces`) instead of one per atom: writev
 * of 50,000 pieces cost about 15 ms more, and 50,000 Buffer objects more memory, than of 200.
 * Buffers start small and double up to ARENA_BYTES, so that a layout encoding one new atom keeps
 * no large buffer alive; an edited atom is encoded on its own (Node's pool).
 */
class Arena {
  private buffer = Buffer.allocUnsafeSlow(0);
  private used = 0;
  private nextSize = 4096;

  put(text: string): Chunk {
    // UTF-8 takes at most 3 bytes per UTF-16 unit: counted only when that might not fit.
    if (text.length * 3 > this.buffer.length - this.used) {
      const needed = Buffer.byteLength(text);
      if (needed > this.buffer.length - this.used) {
        this.buffer = Buffer.allocUnsafeSlow(Math.max(this.nextSize, needed));
        this.nextSize = Math.min(this.nextSize * 2, ARENA_BYTES);
        this.used = 0;
      }
    }
    const start = this.used;
    this.used += this.buffer.write(text, start);
    return { bytes: this.buffer, start, end: this.used };
  }
}

const ARENA_BYTES = 256 * 1024;

/** The chunks as the pieces of memory they lie in: neighbours encoded side by side are one piece. */
function pieces(chunks: readonly Chunk[]): Buffer[] {
  const out: Buffer[] = [];
  let run: Chunk | undefined;
  let end = 0;
  for (const c of chunks) {
    if (run && c.bytes === run.bytes && c.start === end) {
      end = c.end;
      continue;
    }
    if (run) out.push(run.bytes.subarray(run.start, end));
    run = c;
    end = c.end;
  }
  if (run) out.push(run.bytes.subarray(run.start, end));
  return out;
}

function isLookup(source: readonly Atom[] | AtomLookup): source is AtomLookup {
  return !Array.isArray(source);
}

function lookupOf(list: readonly Atom[]): AtomLookup {
  const byName = new Map(list.map((a) => [a.name, a]));
  return { size: byName.size, get: (name) => byName.get(name), all: () => list };
}

/** The atoms, dependencies first (topologicalOrder); atoms on a cycle cannot be bundled. */
function dependencyOrder(atoms: AtomLookup): string[] {
  const { order, cyclic } = topologicalOrder(new Map(atoms.all().map((a) => [a.name, a.dependencies])));
  if (cyclic.length > 0) {
    throw new BundleError(`the atoms ${cyclic.join(', ')} depend on each other in a cycle; break the cycle and rebuild`);
  }
  return order;
}

/** Indents by two spaces, except lines that start inside a template literal (their text would change). */
function indent(code: string): string {
  const keep = code.includes('`') ? linesInsideTemplates(code) : new Set<number>();
  return code
    .split('\n')
    .map((line, i) => (line.length === 0 || keep.has(i + 1) ? line : `  ${line}`))
    .join('\n');
}
