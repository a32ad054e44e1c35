/**
 * Which atoms' code may name a given atom, answered without reading the code again. A write that
 * creates atoms looks for existing atoms that already call them (writeChecks.ts's callersToLink),
 * and a delete or a rename for the atoms that call the one it removes (calls.ts's codeCallers).
 * Searching every atom's code for the name cost 11 ms at 10,000 atoms and 35 ms at 50,000 for one
 * name, and 69 ms at 10,000 for a batch of 50 new names (memory bandwidth: the code is ~1 KB an atom).
 *
 * Each atom gets, once, a 512-bit Bloom filter of the words of its code that could be atom names
 * (identifiers starting with a lower-case letter, of lower-case letters, digits and underscores),
 * three bits a word. A name whose three bits are not all set is certainly not in the code; one
 * whose bits are set may be (about 1 atom in 50 of the bench's workspaces, ~1 KB of code each),
 * and the caller then searches and parses its code as before. A word is split wherever JavaScript
 * splits identifiers or sooner (only ASCII letters, digits, `_` and `$` join), so every identifier
 * equal to a name is one of the filter's words: the filter only ever skips code that cannot name it.
 *
 * Filters are kept per atom object (the store's atoms are frozen and an update is a new object), in
 * a WeakMap: an atom deleted or replaced takes its filter with it. A filter is a string of 32 UTF-16
 * units: 84 bytes of heap an atom with its entry, measured, where a Uint32Array took 290.
 */
import type { Atom } from './model.js';

/** 512 bits, in 32 UTF-16 code units. */
const UNITS = 32;
const filters = new WeakMap<object, string>();

/** A name's three bit positions, packed: as `addWord` sets them for the same characters. */
export type NameProbe = number;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** The probe of a name (an atom name: `[a-z][a-z0-9_]*`). */
export function nameProbe(name: string): NameProbe {
  let h = FNV_OFFSET;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), FNV_PRIME);
  return h >>> 0;
}

function addWord(filter: Uint16Array, h: number): void {
  for (let k = 0; k < 3; k++) {
    const bit = (h >>> (k * 9)) & 511;
    filter[bit >>> 4]! |= 1 << (bit & 15);
  }
}

/** False when the filter certainly lacks the probe's name; true when it may hold it. */
export function filterHolds(filter: string, h: NameProbe): boolean {
  for (let k = 0; k < 3; k++) {
    const bit = (h >>> (k * 9)) & 511;
    if ((filter.charCodeAt(bit >>> 4) & (1 << (bit & 15))) === 0) return false;
  }
  return true;
}

/** The filter of a code's words that could be atom names (see the module's comment), as kept. */
export function codeFilter(code: string): string {
  const filter = new Uint16Array(UNITS);
  let h = 0;
  let inWord = false;
  let nameLike = false;
  for (let i = 0; i <= code.length; i++) {
    const c = i < code.length ? code.charCodeAt(i) : 32;
    const lower = c >= 97 && c <= 122;
    const upperOrDollar = (c >= 65 && c <= 90) || c === 36;
    if (lower || upperOrDollar || (c >= 48 && c <= 57) || c === 95) {
      if (!inWord) {
        inWord = true;
        nameLike = lower;
        h = FNV_OFFSET;
      } else if (upperOrDollar) {
        nameLike = false;
      }
      h = Math.imul(h ^ c, FNV_PRIME);
    } else if (inWord) {
      inWord = false;
      if (nameLike) addWord(filter, h >>> 0);
    }
  }
  return String.fromCharCode(...filter);
}

/**
 * False when `atom`'s code certainly does not hold the name of `probe` as a word; true when it may
 * (then look). The atom's filter is made at its first question and kept with the atom.
 */
export function mayName(atom: Pick<Atom, 'code'>, probe: NameProbe): boolean {
  return filterHolds(wordFilter(atom), probe);
}

/** The atom's filter, made at its first question and kept with the atom (ask it once for several names). */
export function wordFilter(atom: Pick<Atom, 'code'>): string {
  let filter = filters.get(atom);
  if (filter === undefined) {
    filter = codeFilter(atom.code);
    filters.set(atom, filter);
  }
  return filter;
}

/**
 * Every atom's filter at once, bit-sliced: for each of the filter's 512 bits, a row holding that bit
 * of every atom (one bit a slot). The atoms that may name a given name are the AND of its three bits'
 * rows, ~1,600 words at 50,000 atoms, where asking each atom's filter (a WeakMap lookup and a test
 * each) took ~10 ms of every creation there. 64 bytes an atom (512 bits), and no filter kept per atom.
 * Whoever holds the atoms keeps it up to date (`set`, `delete`).
 */
export class NameFilterIndex {
  private readonly slots = new Map<string, number>();
  /** The atom in each slot; undefined: free. */
  private held: (Atom | undefined)[] = [];
  private readonly free: number[] = [];
  /** 32-bit words a row: room for `stride * 32` slots. */
  private stride = 0;
  private rows = new Uint32Array(0);

  constructor(atoms: Iterable<Atom> = []) {
    for (const atom of atoms) this.set(atom);
  }

  get size(): number {
    return this.slots.size;
  }

  /** `atom` added, or in place of the atom of its name. */
  set(atom: Atom): void {
    let slot = this.slots.get(atom.name);
    if (slot === undefined) {
      slot = this.free.pop() ?? this.held.length;
      if (slot >= this.stride * 32) this.grow();
      this.slots.set(atom.name, slot);
    } else this.clear(slot);
    this.held[slot] = atom;
    const filter = codeFilter(atom.code);
    const word = slot >>> 5;
    const bit = 1 << (slot & 31);
    for (let unit = 0; unit < UNITS; unit++) {
      for (let v = filter.charCodeAt(unit); v !== 0; v &= v - 1) {
        const row = unit * 16 + (31 - Math.clz32(v & -v));
        this.rows[row * this.stride + word]! |= bit;
      }
    }
  }

  delete(name: string): void {
    const slot = this.slots.get(name);
    if (slot === undefined) return;
    this.clear(slot);
    this.slots.delete(name);
    this.held[slot] = undefined;
    this.free.push(slot);
  }

  /** The atoms whose code may name one of `names` (every one that does, and a few that do not), sorted by name. */
  mayName(names: readonly string[]): Atom[] {
    const out: Atom[] = [];
    const stride = this.stride;
    const rows = this.rows;
    const probes = names.map(nameProbe);
    for (let word = 0; word < stride; word++) {
      let any = 0;
      for (const h of probes) {
        let all = -1;
        for (let k = 0; k < 3; k++) all &= rows[((h >>> (k * 9)) & 511) * stride + word]!;
        any |= all;
      }
      for (let v = any; v !== 0; v &= v - 1) out.push(this.held[word * 32 + (31 - Math.clz32(v & -v))]!);
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  private clear(slot: number): void {
    const word = slot >>> 5;
    const keep = ~(1 << (slot & 31));
    for (let row = 0; row < 512; row++) this.rows[row * this.stride + word]! &= keep;
  }

  /** Twice the room (at least 32 slots), every row copied to its new place. */
  private grow(): void {
    const stride = Math.max(1, this.stride * 2);
    const rows = new Uint32Array(512 * stride);
    for (let row = 0; row < 512; row++) rows.set(this.rows.subarray(row * this.stride, (row + 1) * this.stride), row * stride);
    this.rows = rows;
    this.stride = stride;
  }
}
