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
import { findEntryPoint } from '../atoms/boot.js';
import { topologicalOrder } from '../atoms/graph.js';
import { isProgramAtom, type Atom } from '../atoms/model.js';
import type { KnownOrderChange } from '../store/builds.js';

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
  // Most texts (every atom name) need nothing: handed back as they are, no new string.
  if (!NEEDS_ESCAPE.test(text)) return text;
  return text
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/\*\//g, '*\\/');
}

// eslint-disable-next-line no-control-regex -- as commentText's
const NEEDS_ESCAPE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|\*\//;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function bootLines(entry: string | null): string[] {
  if (!entry) return ['  // no core atom: nothing to start'];
  if (!IDENTIFIER.test(entry)) return [`  // the entry point ${commentText(JSON.stringify(entry))} is not a JavaScript name: nothing started`];
  return [`  if (typeof ${entry} === 'function') ${entry}();`];
}

export function createBundle(atomList: readonly Atom[], generatedAt: Date = new Date()): Bundle {
  atomList = atomList.filter(isProgramAtom); // test atoms are run by the checks, never bundled
  const plan = new IncrementalBundler().bundle(atomList, generatedAt);
  return { code: assemble(plan).toString('utf8'), order: [...plan.order], entry: plan.entry };
}

/**
 * A piece of latest.js as a build lays it out: bytes to write as they are, a run of the bundle
 * the last build wrote (`IncrementalBundler.written`) to copy unchanged, or atoms to encode.
 */
export type BundlePart =
  | { kind: 'bytes'; bytes: Buffer }
  /** Bytes [start, end) of the bundle last written, holding the chunks of atoms that did not change. */
  | { kind: 'copy'; start: number; end: number }
  /** The atoms at positions [from, to) of the order, encoded with `BundlePlan.chunkText`. */
  | { kind: 'atoms'; from: number; to: number };

/** One build's bundle, as a plan for whoever writes it (builder.ts; `assemble` in memory). */
export interface BundlePlan {
  parts: BundlePart[];
  /** Frozen, and the very same array from build to build while the order stands. */
  order: readonly string[];
  /**
   * How `order` differs from the order an earlier plan handed out (`base`, that very array), when one
   * atom was added or removed since: the store journals that change without comparing the two lists.
   */
  orderChange?: KnownOrderChange;
  entry: string | null;
  /** The text of the atom at a position of `order`: its `// --- [type] name ---` line and indented code. */
  chunkText(position: number): string;
  /** The atom at each position of `order` (for the source map, sourceMap.ts); valid until the next build. */
  atoms: readonly Atom[];
  /**
   * The bytes of each position's chunk: set when planned for copied chunks; the writer sets
   * those it encodes. Where each chunk lands, for the next build's copies (`written`).
   */
  lengths: Int32Array;
  /** How many of `parts` come before the chunks (the header's lines, all bytes). */
  prologue: number;
}

/** The header's end: what follows the order line, before the first chunk. */
const OPENING = Buffer.from('\n(function() {\n  "use strict";\n\n');
/** Between two names of the order line. */
const ARROW = ' -> ';

/** The bytes of a plan's prologue (its header): where its chunks start. */
export function prologueBytes(plan: BundlePlan): Buffer[] {
  const out: Buffer[] = [];
  for (const part of plan.parts.slice(0, plan.prologue)) {
    if (part.kind !== 'bytes') throw new Error('not a plan of this bundler');
    out.push(part.bytes);
  }
  return out;
}

/**
 * The plan's bytes in one buffer: for tests, `createBundle` and a bundle written nowhere.
 * `previous` is the bundle last written, which copy parts read (a plan copies only after `written`).
 */
export function assemble(plan: BundlePlan, previous?: Uint8Array): Buffer {
  const out: Buffer[] = [];
  for (const part of plan.parts) {
    if (part.kind === 'bytes') out.push(part.bytes);
    else if (part.kind === 'copy') {
      if (!previous || part.end > previous.length) throw new Error('the plan copies from a bundle that was not given');
      out.push(Buffer.from(previous.subarray(part.start, part.end)));
    } else {
      for (let i = part.from; i < part.to; i++) {
        const bytes = Buffer.from(plan.chunkText(i));
        plan.lengths[i] = bytes.length;
        out.push(bytes);
      }
    }
  }
  return Buffer.concat(out);
}

/** Where a build reads the atoms from: the store itself, so a build copies no map of them. */
export interface AtomLookup {
  readonly size: number;
  get(name: string): Atom | undefined;
  all(): readonly Atom[];
}

/**
 * The bundle written last, as the next build copies from it: where its chunks start (the first
 * one at `firstAt`, each `lengths[i]` bytes after the one before), and which atom object each
 * position held (the store replaces an atom's object on every change, so the same object means
 * the same bytes).
 */
interface WrittenBundle {
  order: readonly string[];
  atoms: Atom[];
  lengths: Int32Array;
  firstAt: number;
  /** `order`'s positions by name, made when an order change needs it. */
  positions?: Map<string, number>;
}

/**
 * The same bundle as `createBundle`, remembering what did not change between builds: the order
 * (an atom added or removed takes its place without a sort, see `noteAdded`), the atom at each
 * position, and where each atom's chunk lies in the bundle written last. A build encodes only
 * the atoms changed since that bundle; the rest is copied from it by the writer, so no build keeps
 * the bundle's bytes in memory (at 50,000 atoms they were 51 MiB, kept for the process's life).
 *
 * Told of every change (`announced`), a build looks at the atoms announced only; otherwise it
 * compares every atom with the last build's.
 */
export class IncrementalBundler {
  /**
   * @param announced the caller tells of every change (`noteAdded`, `noteRemoved`, `noteChanged`,
   * `invalidateOrder`, as the builder does from the store's announcements): builds then look at
   * the changed atoms only. Otherwise every build compares every atom with the last build's.
   */
  constructor(private readonly announced = false) {}

  /** Dependencies first, ties by name; undefined: sort at the next build. */
  private order: string[] | undefined;
  /**
   * The atom each position of `order` was bundled from: a build compares objects (the store
   * replaces an atom's object on every change) instead of looking each up again. Emptied
   * whenever the order changes.
   */
  private laid: Atom[] = [];
  /** The atom count's line and the Boot lines, for `order`; undefined: render again. */
  private rendered: { entry: string | null; count: Buffer; boot: Buffer } | undefined;
  /**
   * The boot atom by `order` (`findEntryPoint`), for the Boot line and `entryPoint` alike;
   * undefined: look again (the order changed, or an atom's type did).
   */
  private entry: string | null | undefined;
  /**
   * The order line's names (`order` joined by arrows, escaped), kept from build to build: an atom
   * added or removed is put in or taken out of it (`shifted`) rather than the line made again (at
   * 50,000 atoms, a 1.2 MB line joined, escaped and encoded was ~50 ms of every creation).
   * undefined: render it again.
   */
  private names: OrderNames | undefined;
  /** `names` was patched since the last build: a second change before the next build renders it again. */
  private namesPatched = false;
  /** `order` as builds hand it out: a frozen copy, the same while the order stands. */
  private published: readonly string[] | undefined;
  /**
   * Since `published` was last handed out: nothing moved (undefined), one atom added or removed
   * (how, from that order), or more than that or a new sort (null: the store compares the lists).
   */
  private shift: KnownOrderChange | null | undefined;
  /**
   * The atoms changed since the last build (their names), when every position of `laid` is
   * filled and `positions` holds each name's: a build then looks at those atoms only. undefined:
   * compare every atom (at 50,000 atoms, 50,000 lookups were 10–20 ms of every build).
   */
  private changed: Set<string> | undefined;
  /**
   * Names' positions in `order`, made by the pass that lays every atom out (when `announced`). An
   * atom added or removed moves the positions after it, which are then put right when looked up
   * (`positionOf`): an agent creates atoms one by one, and moving them all was ~10 ms a creation at 50,000.
   */
  private positions = new Map<string, number>();
  /** The bundle written last (`written`); undefined: none, or it cannot be trusted (`forgetWritten`). */
  private last: WrittenBundle | undefined;
  /**
   * Where each chunk of `last` starts, made by `chunkParts` and kept for the next: a new array of
   * 50,000 starts a build was ~2 ms of fresh pages (allocations of this size cost their page faults).
   */
  private starts = new Float64Array(0);
  /** Positions whose atom changed since `last` was written, while the order is `last`'s. */
  private dirty = new Set<number>();

  /**
   * The atoms' dependency order, from whoever sorted them already (the store's open): taken
   * when this bundler has none, so the first build after an open does not sort again.
   */
  startFrom(order: readonly string[]): void {
    if (!this.order) this.ordered([...order]);
  }

  /**
   * The atom the bundle of `atoms` boots (the boot rule, `findEntryPoint`), read from the order
   * this bundler keeps: sorted now only when it has none, and the next build then lays the atoms
   * out in that order rather than sorting again. Announced changes keep the order current (an atom
   * added takes its place, one removed leaves it), so asking after each write costs at most a look
   * at its last core atoms (kept until the order or a type changes), where sorting the whole graph
   * again was the largest allocation of an agent's batches at 10,000 atoms (~440 MB of 2.9 GB).
   */
  entryPoint(atoms: AtomLookup): string | null {
    if (!this.order || this.order.length !== atoms.size) this.layOut(atoms);
    if (this.entry === undefined) this.entry = findEntryPoint(atoms, this.order!);
    return this.entry;
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
    this.shifted(at, atom);
  }

  /** An atom removed that nothing depended on: the others keep their sequence (as above). */
  noteRemoved(name: string): void {
    const at = this.order?.indexOf(name) ?? -1;
    if (at < 0) return this.invalidateOrder();
    this.order!.splice(at, 1);
    this.shifted(at, undefined, name);
  }

  /**
   * An atom changed and its dependencies did not (the order stands; a changed type may move the
   * entry point): the next build looks at it. Once a build has laid every atom out, builds look
   * only at the atoms announced here, until the order changes.
   */
  noteChanged(name: string, typeChanged = false): void {
    this.changed?.add(name);
    if (typeChanged) this.entry = undefined;
  }

  /**
   * `plan` was written (its `lengths` filled), as the bundle the next build copies from. Call it
   * only with the plan of this bundler's latest `bundle()`.
   */
  written(plan: BundlePlan): void {
    const firstAt = prologueBytes(plan).reduce((sum, bytes) => sum + bytes.length, 0);
    // The layout copied into the array of the bundle written before (read by nobody from now on):
    // a new array of 50,000 atoms a build was ~2 ms of fresh pages.
    const atoms = this.last?.atoms ?? [];
    atoms.length = this.laid.length;
    for (let i = 0; i < this.laid.length; i++) atoms[i] = this.laid[i]!;
    this.last = { order: plan.order, atoms, lengths: plan.lengths, firstAt };
    this.dirty.clear();
  }

  /** The bundle written last is gone or changed by someone else: the next build encodes every atom. */
  forgetWritten(): void {
    this.last = undefined;
    this.dirty.clear();
  }

  /**
   * The bundle of `source`'s atoms (a list, or the store itself: then nothing is copied, and a
   * build after an edit of code costs a comparison per atom, not a lookup table of them all).
   */
  bundle(source: readonly Atom[] | AtomLookup, generatedAt: Date = new Date()): BundlePlan {
    const atoms: AtomLookup = isLookup(source) ? source : lookupOf(source);
    // A change not announced (or announced out of step) is caught here: sort again.
    if (!this.order || this.order.length !== atoms.size) this.layOut(atoms);
    if (!(this.changed ? this.layChanged(atoms) : this.layAll(atoms))) {
      this.layOut(atoms);
      this.layAll(atoms);
    }
    const order = this.order!;
    if (!this.rendered) {
      const entry = this.entryPoint(atoms);
      this.rendered = {
        entry,
        count: Buffer.from(`// Atoms: ${order.length}\n// Order: `),
        boot: Buffer.from(['  // Boot', ...bootLines(entry), '})();', ''].join('\n')),
      };
    }
    const { entry, count, boot } = this.rendered;
    const names = (this.names ??= renderNames(order));
    this.namesPatched = false;
    const head = Buffer.from(`// === Atomic Coding Bundle ===\n// Generated: ${generatedAt.toISOString().replace(/\.\d{3}Z$/, 'Z')}\n`);
    let orderChange: BundlePlan['orderChange'];
    if (this.published === undefined) {
      this.published = Object.freeze([...order]);
      orderChange = this.shift ?? undefined;
      this.shift = undefined;
    }
    const lengths = new Int32Array(order.length);
    const laid = this.laid;
    return {
      parts: [
        { kind: 'bytes', bytes: head },
        { kind: 'bytes', bytes: count },
        ...names.blocks.map((bytes) => ({ kind: 'bytes' as const, bytes })),
        { kind: 'bytes', bytes: OPENING },
        ...this.chunkParts(lengths),
        { kind: 'bytes', bytes: boot },
      ],
      prologue: 3 + names.blocks.length,
      order: this.published,
      ...(orderChange ? { orderChange } : {}),
      entry,
      chunkText: (i) => chunkText(laid[i]!),
      atoms: laid,
      lengths,
    };
  }

  /**
   * The chunks in order, as runs of the bundle written last (copied) and atoms to encode; fills
   * `lengths` for the copied ones.
   */
  private chunkParts(lengths: Int32Array): BundlePart[] {
    const last = this.last;
    const n = this.laid.length;
    if (!last) return n > 0 ? [{ kind: 'atoms', from: 0, to: n }] : [];
    const parts: BundlePart[] = [];
    const starts = (this.starts = startsOf(last, this.starts));
    const encode = (i: number) => {
      const tail = parts.at(-1);
      if (tail?.kind === 'atoms' && tail.to === i) tail.to = i + 1;
      else parts.push({ kind: 'atoms', from: i, to: i + 1 });
    };
    // Positions [at, at + count) as the written bundle's [from, from + count), copied in one run.
    const copy = (at: number, from: number, count: number) => {
      if (count <= 0) return;
      const start = starts[from]!;
      const end = starts[from + count]!;
      lengths.set(last.lengths.subarray(from, from + count), at);
      const tail = parts.at(-1);
      if (tail?.kind === 'copy' && tail.end === start) tail.end = end;
      else parts.push({ kind: 'copy', start, end });
    };
    if (last.order === this.published) {
      // The order is the written bundle's: only the positions changed since are encoded.
      let next = 0;
      for (const p of [...this.dirty].sort((a, b) => a - b)) {
        copy(next, next, p - next);
        encode(p);
        next = p + 1;
      }
      copy(next, next, n - next);
      return parts;
    }
    // A new order: each atom's chunk is where the written bundle has it, if it is the same atom.
    // Walked side by side with the written order, which an atom added or removed shifts by one;
    // looked up by name only when that does not find it.
    const old = last.atoms;
    let j = 0;
    const laid = this.laid;
    for (let i = 0; i < n; i++) {
      const atom = laid[i]!;
      if (old[j] === atom) {
        // A run of atoms where they were, in one copy: at 50,000 atoms a call a position was ~4 ms a build.
        let run = 1;
        while (i + run < n && old[j + run] === laid[i + run]) run++;
        copy(i, j, run);
        i += run - 1;
        j += run;
      } else if (old[j + 1] === atom) {
        // The atom at j is gone.
        copy(i, j + 1, 1);
        j += 2;
      } else if (last.order[j] === atom.name) {
        // Changed in place.
        encode(i);
        j++;
      } else if (j >= old.length || this.laid[i + 1] === old[j]) encode(i); // new here
      else {
        last.positions ??= new Map(last.order.map((name, k) => [name, k]));
        const was = last.positions.get(atom.name);
        if (was !== undefined && old[was] === atom) {
          copy(i, was, 1);
          j = was + 1;
        } else encode(i);
      }
    }
    return parts;
  }

  private layOut(atoms: AtomLookup): void {
    this.ordered(dependencyOrder(atoms));
  }

  /** `order` is new, or changed in place: what was laid out and rendered for the old one goes. */
  private ordered(order: string[] | undefined): void {
    this.order = order;
    this.rendered = undefined;
    this.entry = undefined;
    this.names = undefined;
    this.published = undefined;
    this.shift = null;
    this.laid = [];
    this.changed = undefined;
    this.dirty.clear();
  }

  /**
   * `order` changed in place: `added` was inserted at `at`, or `removed` taken out from there. When
   * every atom was laid out, the layout follows (one atom in or out, the positions after it moved
   * up or down) rather than being made again for every atom at the next build: an agent creates
   * atoms one by one, each a change of order.
   */
  private shifted(at: number, added: Atom | undefined, removed?: string): void {
    const base = this.published;
    this.shift =
      base !== undefined && this.shift === undefined
        ? { base, change: { from: base.length, at, removed: added ? 0 : 1, added: added ? [added.name] : [] } }
        : null;
    this.rendered = undefined;
    this.entry = undefined;
    // One atom in or out since the last build (an agent's creation): patched. More (a batch): made
    // again once, at the build, rather than a block made anew for each of them.
    if (this.names && !this.namesPatched) {
      this.names = added ? withName(this.names, this.order!, at) : withoutName(this.names, this.order!, at, removed!);
      this.namesPatched = true;
    } else this.names = undefined;
    this.published = undefined;
    this.dirty.clear();
    if (!this.changed) {
      this.laid = [];
      return;
    }
    if (added) this.laid.splice(at, 0, added);
    else this.laid.splice(at, 1);
    if (removed !== undefined) {
      this.positions.delete(removed);
      this.changed.delete(removed);
    } else this.positions.set(added!.name, at);
  }

  /** Where `name` stands in `order` (see `positions`): undefined when it is not there. */
  private positionOf(name: string): number | undefined {
    const order = this.order!;
    const kept = this.positions.get(name);
    if (kept !== undefined && order[kept] === name) return kept;
    const at = order.indexOf(name);
    if (at < 0) return undefined;
    this.positions.set(name, at);
    return at;
  }

  /** Lays every atom of `order` out; false when the order names an atom `atoms` lacks. */
  private layAll(atoms: AtomLookup): boolean {
    const order = this.order!;
    const positions = this.announced ? new Map<string, number>() : undefined;
    for (let i = 0; i < order.length; i++) {
      const atom = atoms.get(order[i]!);
      if (!atom) return false;
      this.layAt(i, atom);
      positions?.set(order[i]!, i);
    }
    if (positions) {
      this.positions = positions;
      this.changed = new Set();
    }
    return true;
  }

  /** `layAll` for the atoms announced as changed; false when one is not where `order` has it. */
  private layChanged(atoms: AtomLookup): boolean {
    for (const name of this.changed!) {
      const at = this.positionOf(name);
      const atom = atoms.get(name);
      if (at === undefined || !atom) return false;
      this.layAt(at, atom);
    }
    this.changed!.clear();
    return true;
  }

  private layAt(i: number, atom: Atom): void {
    const was = this.laid[i];
    if (was === atom) return;
    // The type is in the chunk's comment line and may move the entry point.
    if (was !== undefined && was.type !== atom.type) this.rendered = this.entry = undefined;
    this.laid[i] = atom;
    // Changed positions matter only while the order is the one published (and written); a new
    // order is compared atom by atom (chunkParts).
    if (this.published !== undefined) this.dirty.add(i);
  }
}

/**
 * The order line's names as written: `order` joined by arrows, escaped once as a whole (an arrow
 * neither makes nor breaks an escape), in blocks of about `NAME_BLOCK` bytes. A name put in or taken
 * out makes one block anew and shares the others: at 50,000 atoms a new 1.2 MB line a creation cost
 * ~6 ms in fresh pages alone. Blocks are never changed once made, so a plan being written keeps
 * its own. `plain` when no name needed escaping and every one is ASCII: a name's bytes are then its
 * characters, and the line can be patched by position.
 */
interface OrderNames {
  blocks: readonly Buffer[];
  plain: boolean;
}

const NAME_BLOCK = 64 * 1024;

function renderNames(order: readonly string[]): OrderNames {
  const joined = order.join(ARROW);
  const escaped = commentText(joined);
  const bytes = Buffer.from(escaped);
  const blocks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += NAME_BLOCK) blocks.push(bytes.subarray(at, at + NAME_BLOCK));
  return { blocks, plain: escaped === joined && bytes.length === joined.length };
}

/** `blocks` with `count` bytes from `start` replaced by `inserted`: the blocks touched made anew, split when grown large. */
export function spliceBlocks(blocks: readonly Buffer[], start: number, count: number, inserted: Buffer): Buffer[] | undefined {
  // The first block touched: the one holding `start` (or the last, for an end of the line).
  let first = 0;
  let firstAt = 0;
  while (first < blocks.length - 1 && firstAt + blocks[first]!.length <= start) firstAt += blocks[first++]!.length;
  // The last block touched: the one holding the last byte removed.
  let last = first;
  let lastEnd = firstAt + (blocks[first]?.length ?? 0);
  while (last < blocks.length - 1 && lastEnd < start + count) lastEnd += blocks[++last]!.length;
  if (start + count > lastEnd) return undefined; // past the line's end: not this line's names
  const touched = Buffer.concat(blocks.slice(first, last + 1) as Buffer[]);
  const made = Buffer.concat([touched.subarray(0, start - firstAt), inserted, touched.subarray(start - firstAt + count)]);
  const replaced = made.length === 0 ? [] : made.length > 2 * NAME_BLOCK ? [made.subarray(0, NAME_BLOCK), made.subarray(NAME_BLOCK)] : [made];
  return [...blocks.slice(0, first), ...replaced, ...blocks.slice(last + 1)];
}

/** A name that is written as it is, one byte a character (every valid atom name is). */
function isPlainName(name: string): boolean {
  return /^[\x20-\x7e]*$/.test(name) && !name.includes('*/');
}

/** Where the name at `at` starts in a plain line of `order`'s names (the names before it unchanged). */
function offsetOf(order: readonly string[], at: number): number {
  let offset = 0;
  for (let i = 0; i < at; i++) offset += order[i]!.length + ARROW.length;
  return offset;
}

/** `names` with `order[at]` (just inserted there) put in; undefined: render it again. */
function withName(names: OrderNames, order: readonly string[], at: number): OrderNames | undefined {
  const name = order[at]!;
  if (!names.plain || !isPlainName(name)) return undefined;
  if (order.length === 1) return { blocks: [Buffer.from(name)], plain: true };
  // Before the arrow that led to the name now after it; at the start, before that name.
  const cut = at === 0 ? 0 : offsetOf(order, at) - ARROW.length;
  const blocks = spliceBlocks(names.blocks, cut, 0, Buffer.from(at === 0 ? name + ARROW : ARROW + name));
  return blocks && { blocks, plain: true };
}

/** `names` with `removed` (taken out of `order` at `at`) gone; undefined: render it again. */
function withoutName(names: OrderNames, order: readonly string[], at: number, removed: string): OrderNames | undefined {
  if (!names.plain) return undefined;
  if (order.length === 0) return { blocks: [], plain: true };
  // The name and the arrow after it; at the end, the arrow before it and the name.
  const start = at === 0 ? 0 : offsetOf(order, at) - ARROW.length;
  const blocks = spliceBlocks(names.blocks, start, removed.length + ARROW.length, Buffer.alloc(0));
  return blocks && { blocks, plain: true };
}

/** An atom's text in the bundle. */
function chunkText(atom: Atom): string {
  return `  // --- [${commentText(atom.type)}] ${commentText(atom.name)} ---\n${indent(atom.code.trimEnd())}\n\n`;
}

/** Where each position's chunk starts in a written bundle, and (last) where the chunks end. */
function startsOf(last: WrittenBundle, kept: Float64Array<ArrayBuffer>): Float64Array<ArrayBuffer> {
  const starts = kept.length > last.lengths.length ? kept : new Float64Array(Math.ceil((last.lengths.length + 1) * 1.25));
  starts[0] = last.firstAt;
  for (let i = 0; i < last.lengths.length; i++) starts[i + 1] = starts[i]! + last.lengths[i]!;
  return starts;
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
  // Without a template literal, one pass and one new string: a full build indents every atom.
  if (!code.includes('`')) return (code.length > 0 && code[0] !== '\n' ? '  ' : '') + code.replace(/\n(?!\n|$)/g, '\n  ');
  const keep = linesInsideTemplates(code);
  return code
    .split('\n')
    .map((line, i) => (line.length === 0 || keep.has(i + 1) ? line : `  ${line}`))
    .join('\n');
}
