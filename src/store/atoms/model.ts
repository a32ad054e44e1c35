/**
 * The atoms in memory, kept equal to the database: every read of the store is answered here,
 * never by SQL. Counters (edges, atoms per type) are kept as atoms change, so status never
 * walks every atom.
 */
import type { DependencyMap } from '../../atoms/graph.js';
import { ATOM_TYPES, type Atom, type AtomType } from '../../atoms/model.js';
import type { JournalOp } from '../journal.js';

export class AtomModel {
  /** Sorted by name (see `sortAfterInsert`), so `all()` needs no sort. */
  private readonly atoms = new Map<string, Atom>();
  private edgeCount = 0;
  private readonly typeCount = new Map<AtomType, number>();
  /** Every atom's dependency list, kept up to date as atoms change (never rebuilt per write). */
  private readonly lists = new Map<string, readonly string[]>();
  /** The view handed out: the same object until an atom changes, so callers can cache what they derive from it. */
  private dependencyMapCache: DependencyMap | undefined;

  /** Every atom, sorted by name. */
  all(): Atom[] {
    return [...this.atoms.values()];
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

  /** Atoms that list `name` as a dependency, sorted. */
  dependents(name: string): string[] {
    const out: string[] = [];
    for (const atom of this.atoms.values()) if (atom.dependencies.includes(name)) out.push(atom.name);
    return out.sort();
  }

  /** Replaces every atom with `sorted` (sorted by name), as a load or a reload read them. */
  replace(sorted: readonly Atom[]): void {
    this.dependencyMapCache = undefined;
    this.atoms.clear();
    this.lists.clear();
    this.typeCount.clear();
    this.edgeCount = 0;
    for (const atom of sorted) {
      this.atoms.set(atom.name, atom);
      this.lists.set(atom.name, atom.dependencies);
      this.countType(atom.type, 1);
      this.edgeCount += atom.dependencies.length;
    }
  }

  /**
   * Applies the puts and deletes of one committed journal entry, in order (other ops are not
   * the atoms'). A batch that adds atoms sorts the map once, at the end.
   */
  apply(ops: readonly JournalOp[]): void {
    let inserted = false;
    for (const op of ops) {
      if (op.op === 'put') {
        this.dependencyMapCache = undefined;
        const previous = this.atoms.get(op.atom.name);
        this.edgeCount += op.atom.dependencies.length - (previous?.dependencies.length ?? 0);
        if (previous) this.countType(previous.type, -1);
        this.countType(op.atom.type, 1);
        inserted ||= !previous;
        this.atoms.set(op.atom.name, op.atom);
        this.lists.set(op.atom.name, op.atom.dependencies);
      } else if (op.op === 'del') {
        this.dependencyMapCache = undefined;
        const gone = this.atoms.get(op.name);
        this.edgeCount -= gone?.dependencies.length ?? 0;
        if (gone) this.countType(gone.type, -1);
        this.atoms.delete(op.name);
        this.lists.delete(op.name);
      }
    }
    if (inserted) this.sortAfterInsert();
  }

  /** Keeps the map sorted by name (an update keeps its place in a Map; an insert goes last). */
  private sortAfterInsert(): void {
    const sorted = [...this.atoms.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    this.atoms.clear();
    for (const [k, v] of sorted) this.atoms.set(k, v);
  }

  private countType(type: AtomType, delta: number): void {
    this.typeCount.set(type, (this.typeCount.get(type) ?? 0) + delta);
  }
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
