/**
 * The atoms in memory, kept equal to the database: every read of the store is answered here,
 * never by SQL. Counters (edges, atoms per type) are kept as atoms change, so status never
 * walks every atom.
 */
import type { DependencyMap } from '../../atoms/graph.js';
import { ATOM_TYPES, type Atom, type AtomType } from '../../atoms/model.js';
import { NameFilterIndex } from '../../atoms/nameFilter.js';
import type { JournalOp } from '../journal.js';

export class AtomModel {
  /** By name, in no order: `names` keeps the order. */
  private readonly atoms = new Map<string, Atom>();
  /**
   * Every name, sorted: an atom created is inserted where it belongs (a binary search and one
   * move of the names after it), never by sorting the whole map again, which at 50,000 atoms cost
   * tens of milliseconds and a copy of every entry per atom created.
   */
  private readonly names: string[] = [];
  /**
   * The atoms in the order of `names`, kept as it is: `all()` copies it (a copy of 50,000 references
   * takes a fraction of a millisecond, where looking every name up in the map again took 10-25 ms).
   */
  private readonly sorted: Atom[] = [];
  /** `all()`'s answer until the next change: readers call it several times a write. */
  private allCache: readonly Atom[] | undefined;
  private edgeCount = 0;
  private readonly typeCount = new Map<AtomType, number>();
  /** Every atom's dependency list, kept up to date as atoms change (never rebuilt per write). */
  private readonly lists = new Map<string, readonly string[]>();
  /** The view handed out: the same object until an atom changes, so callers can cache what they derive from it. */
  private dependencyMapCache: DependencyMap | undefined;
  /**
   * The reverse edges, kept up to date as atoms change: for each atom something depends on, the
   * atoms that do, sorted (no entry when nothing does). Asking who depends on an atom is then a
   * lookup, where it was a walk over every atom, or a reverse map of the whole graph built for
   * every write (the checks asked twice a write: at 1,000 atoms a quarter of a write's garbage).
   */
  private readonly users = new Map<string, string[]>();
  /** Which atoms' code may name a name (nameFilter.ts): made at the first question, then kept as atoms change. */
  private filters: NameFilterIndex | undefined;

  /** Every atom, sorted by name: the same frozen array until an atom changes. */
  all(): readonly Atom[] {
    this.allCache ??= Object.freeze(this.sorted.slice());
    return this.allCache;
  }

  get(name: string): Atom | undefined {
    return this.atoms.get(name);
  }

  has(name: string): boolean {
    return this.atoms.has(name);
  }

  get size(): number {
    return this.atoms.size;
  }

  get edges(): number {
    return this.edgeCount;
  }

  /** Number of atoms of each type, from counters (no walk over the atoms). */
  countByType(): Record<AtomType, number> {
    return Object.fromEntries(ATOM_TYPES.map((t) => [t, this.typeCount.get(t) ?? 0])) as Record<AtomType, number>;
  }

  /**
   * Every atom's dependencies. A read-only view of the live lists: read it before the next
   * change (copy it to keep it longer); a change hands out a new view.
   */
  dependencyMap(): DependencyMap {
    this.dependencyMapCache ??= new ReadonlyMapView(this.lists);
    return this.dependencyMapCache;
  }

  /** Atoms that list `name` as a dependency, sorted (a copy). */
  dependents(name: string): string[] {
    return this.users.get(name)?.slice() ?? [];
  }

  /** The same, read-only and not copied: read it before the next change. */
  dependentsOf(name: string): readonly string[] {
    return this.users.get(name) ?? NONE;
  }

  /**
   * The atoms whose code may name one of `names`, sorted by name: every atom that does, and about one
   * in fifty that does not (read their code to know). Made at the first question (a pass over every
   * atom's code), then kept: a question costs a fraction of a millisecond at 50,000 atoms.
   */
  mayName(names: readonly string[]): Atom[] {
    this.filters ??= new NameFilterIndex(this.sorted);
    return this.filters.mayName(names);
  }

  /** Replaces every atom with `sorted` (sorted by name), as a load or a reload read them. */
  replace(sorted: readonly Atom[]): void {
    this.filters = undefined;
    this.dependencyMapCache = undefined;
    this.allCache = undefined;
    this.names.length = 0;
    this.sorted.length = 0;
    this.atoms.clear();
    this.lists.clear();
    this.users.clear();
    this.typeCount.clear();
    this.edgeCount = 0;
    for (const atom of sorted) {
      this.atoms.set(atom.name, atom);
      this.names.push(atom.name);
      this.lists.set(atom.name, atom.dependencies);
      this.countType(atom.type, 1);
      this.edgeCount += atom.dependencies.length;
    }
    // A load hands its rows sorted; sort anyway when they are not (a cheap check when they are).
    if (!isSorted(this.names)) this.names.sort(compareNames);
    // In name order: the atoms' array, and each list built sorted.
    for (const name of this.names) {
      this.sorted.push(this.atoms.get(name)!);
      for (const d of new Set(this.lists.get(name))) {
        const list = this.users.get(d);
        if (list) list.push(name);
        else this.users.set(d, [name]);
      }
    }
  }

  /**
   * Applies the puts and deletes of one committed journal entry, in order (other ops are not
   * the atoms').
   */
  apply(ops: readonly JournalOp[]): void {
    for (const op of ops) {
      if (op.op === 'put' || op.op === 'del') this.allCache = undefined;
      if (op.op === 'put') {
        this.dependencyMapCache = undefined;
        const previous = this.atoms.get(op.atom.name);
        this.edgeCount += op.atom.dependencies.length - (previous?.dependencies.length ?? 0);
        if (previous) this.countType(previous.type, -1);
        this.countType(op.atom.type, 1);
        const at = insertionPoint(this.names, op.atom.name);
        if (previous) this.sorted[at] = op.atom;
        else {
          this.names.splice(at, 0, op.atom.name);
          this.sorted.splice(at, 0, op.atom);
        }
        this.atoms.set(op.atom.name, op.atom);
        this.filters?.set(op.atom);
        this.lists.set(op.atom.name, op.atom.dependencies);
        if (previous?.dependencies !== op.atom.dependencies) this.relink(op.atom.name, previous?.dependencies ?? NONE, op.atom.dependencies);
      } else if (op.op === 'del') {
        this.dependencyMapCache = undefined;
        const gone = this.atoms.get(op.name);
        this.edgeCount -= gone?.dependencies.length ?? 0;
        if (gone) {
          this.countType(gone.type, -1);
          const at = insertionPoint(this.names, op.name);
          this.names.splice(at, 1);
          this.sorted.splice(at, 1);
        }
        this.atoms.delete(op.name);
        this.filters?.delete(op.name);
        this.lists.delete(op.name);
        if (gone) this.relink(op.name, gone.dependencies, NONE);
      }
    }
  }

  /** `name` now depends on `now` instead of `was`: the reverse edges follow. */
  private relink(name: string, was: readonly string[], now: readonly string[]): void {
    for (const d of was) {
      if (now.includes(d)) continue;
      const list = this.users.get(d);
      if (!list) continue;
      const at = insertionPoint(list, name);
      if (list[at] !== name) continue;
      if (list.length === 1) this.users.delete(d);
      else list.splice(at, 1);
    }
    for (const d of now) {
      const list = this.users.get(d);
      if (!list) {
        this.users.set(d, [name]);
        continue;
      }
      const at = insertionPoint(list, name);
      if (list[at] !== name) list.splice(at, 0, name);
    }
  }

  private countType(type: AtomType, delta: number): void {
    this.typeCount.set(type, (this.typeCount.get(type) ?? 0) + delta);
  }
}

const NONE: readonly string[] = Object.freeze([]);

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function isSorted(names: readonly string[]): boolean {
  for (let i = 1; i < names.length; i++) if (names[i - 1]! > names[i]!) return false;
  return true;
}

/** Where `name` is, or would go, in the sorted `names` (binary search). */
function insertionPoint(names: readonly string[], name: string): number {
  let lo = 0;
  let hi = names.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (names[mid]! < name) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A map seen read-only: no copy, no way to change it through the view. */
class ReadonlyMapView<K, V> implements ReadonlyMap<K, V> {
  constructor(private readonly map: ReadonlyMap<K, V>) {}
  get size(): number {
    return this.map.size;
  }
  get(key: K): V | undefined {
    return this.map.get(key);
  }
  has(key: K): boolean {
    return this.map.has(key);
  }
  forEach(callback: (value: V, key: K, map: ReadonlyMap<K, V>) => void, thisArg?: unknown): void {
    this.map.forEach((value, key) => callback.call(thisArg, value, key, this));
  }
  keys(): MapIterator<K> {
    return this.map.keys();
  }
  values(): MapIterator<V> {
    return this.map.values();
  }
  entries(): MapIterator<[K, V]> {
    return this.map.entries();
  }
  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.map.entries();
  }
}
